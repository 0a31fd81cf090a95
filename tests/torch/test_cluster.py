"""A real 4-rank gloo job under `aiprof --task-time=on` (launch mode), rank 3 doing extra
compute (matrix products) before every step: `aiprof cluster` must name rank 3 as the slow
rank because of compute, in its terminal summary and in cluster.db, and show the other
ranks waiting on the collectives for it; `aiprof advise` over the same data names it too."""

import csv
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

from test_distributed import AIPROF, EXAMPLE, gloo_unavailable

RANKS, SLOW_RANK, SLOW_MS = 4, 3, 150


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class ClusterGlooTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls._tmp.name, "out")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        job = subprocess.run([AIPROF, "--task-time=on", "--export=off", "--output=" + cls.output,
                              sys.executable, EXAMPLE, "--world-size=%d" % RANKS, "--steps=2",
                              "--slow-rank=%d" % SLOW_RANK, "--extra-compute-ms=%d" % SLOW_MS],
                             env=env, capture_output=True, text=True, timeout=150)
        if job.returncode != 0:
            raise AssertionError("the gloo job failed:\n" + job.stdout + job.stderr)
        cluster = subprocess.run([AIPROF, "cluster", "-d", cls.output, "--jobs=2"],
                                 capture_output=True, text=True, timeout=120)
        if cluster.returncode != 0:
            raise AssertionError("aiprof cluster failed:\n" + cluster.stdout + cluster.stderr)
        cls.report = cluster.stdout
        cls.result_dir = os.path.join(cls.output, "cluster_analysis_output")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_report_names_the_slow_rank_and_why(self):
        self.assertIn("found %d rank(s) (0..%d)" % (RANKS, RANKS - 1), self.report)
        slow_lines = [line for line in self.report.splitlines() if "per step; why:" in line]
        self.assertTrue(slow_lines, self.report)
        self.assertTrue(slow_lines[0].strip().startswith("rank %d " % SLOW_RANK), self.report)
        self.assertIn("why: compute", slow_lines[0])

    def test_database_holds_the_diagnosis_and_the_waits(self):
        with sqlite3.connect(os.path.join(self.result_dir, "cluster.db")) as db:
            rows = db.execute("SELECT rank_id, slow, reason, communication_wait_ms, computing_ms "
                              "FROM ClusterRankDiagnosis ORDER BY rank_id").fetchall()
            waits = dict(db.execute("SELECT rank_id, SUM(wait_time) FROM ClusterCommunicationTime "
                                    "GROUP BY rank_id").fetchall())
        self.assertEqual([row[0] for row in rows], list(range(RANKS)))
        by_rank = {row[0]: row for row in rows}
        self.assertEqual(by_rank[SLOW_RANK][1:3], (1, "compute"))
        for rank in range(RANKS):
            if rank == SLOW_RANK:
                continue
            # The others wait for the slow rank's extra compute on the collectives.
            self.assertGreater(waits[rank], 0.5 * SLOW_MS * 2 * 0.5, waits)
            self.assertGreater(waits[rank], 2 * waits[SLOW_RANK], waits)
            self.assertGreater(by_rank[SLOW_RANK][4], by_rank[rank][4])

    def test_advise_names_the_slow_rank(self):
        # The same data given to `aiprof advise` (every rank's PROF_* under the output):
        # msprof-analyze's slow-rank rule must name the rank with the extra compute.
        advise = subprocess.run([AIPROF, "advise", "--output=" + self.output,
                                 "--report-dir=" + os.path.join(self._tmp.name, "advice")],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(advise.returncode, 0, advise.stdout + advise.stderr)
        self.assertRegex(advise.stdout, r"rank %d is the slow rank: comput" % SLOW_RANK)

    def test_step_trace_has_a_row_per_rank(self):
        with open(os.path.join(self.result_dir, "cluster_step_trace_time.csv")) as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(sorted(row["Index"] for row in rows if row["Type"] == "rank"),
                         [str(rank) for rank in range(RANKS)])
        self.assertEqual(len([row for row in rows if row["Type"] == "stage"]), 1)


if __name__ == "__main__":
    unittest.main()
