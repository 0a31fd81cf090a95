"""A real 4-rank gloo job, rank 3 doing extra compute (matrix products) before every step,
profiled two ways: under `aiprof --task-time=on` (launch mode) and with the Python API
(aiprof.profiler in each rank, --profile-dir). `aiprof cluster` must name rank 3 as the
slow rank because of compute, in its terminal summary and in cluster.db, and show the
other ranks waiting on the collectives for it; `aiprof advise` over the launch-mode data
names it too."""

import csv
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

from test_distributed import AIPROF, EXAMPLE, gloo_unavailable

RANKS, SLOW_RANK, SLOW_MS, STEPS = 4, 3, 150, 2
JOB = [EXAMPLE, "--world-size=%d" % RANKS, "--steps=%d" % STEPS, "--slow-rank=%d" % SLOW_RANK,
       "--extra-compute-ms=%d" % SLOW_MS]


def run_cluster(data_dir):
    """`aiprof cluster -d data_dir`: its terminal summary and its output folder."""
    cluster = subprocess.run([AIPROF, "cluster", "-d", data_dir, "--jobs=2"],
                             capture_output=True, text=True, timeout=120)
    if cluster.returncode != 0:
        raise AssertionError("aiprof cluster failed:\n" + cluster.stdout + cluster.stderr)
    return cluster.stdout, os.path.join(data_dir, "cluster_analysis_output")


class ImbalancedJobChecks:
    """The checks of the imbalanced job, whichever way its ranks were profiled: a subclass
    runs the job into `directory` by `profile` and returns the folder to analyse."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        job = cls.profile(cls._tmp.name)
        if job.returncode != 0:
            raise AssertionError("the gloo job failed:\n" + job.stdout + job.stderr)
        cls.report, cls.result_dir = run_cluster(cls.data_dir)

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
            # The others wait for the slow rank's extra compute on the collectives (more than
            # the slow rank itself, which waits only when the machine's 2 shared cores leave
            # another rank descheduled).
            self.assertGreater(waits[rank], 0.5 * SLOW_MS * STEPS * 0.5, waits)
            self.assertGreater(waits[rank], waits[SLOW_RANK], waits)
            self.assertGreater(by_rank[SLOW_RANK][4], by_rank[rank][4])

    def test_step_trace_has_a_row_per_rank_and_step_and_one_stage(self):
        # A data-parallel job: no pipeline, so one stage of all ranks and no index columns.
        with open(os.path.join(self.result_dir, "cluster_step_trace_time.csv")) as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
        self.assertNotIn("PP Index", reader.fieldnames)
        steps = sorted({row["Step"] for row in rows})
        self.assertEqual(len(steps), self.steps)
        for step in steps:
            self.assertEqual(sorted(row["Index"] for row in rows
                                    if row["Type"] == "rank" and row["Step"] == step),
                             [str(rank) for rank in range(RANKS)])
            self.assertEqual([row["Index"] for row in rows
                              if row["Type"] == "stage" and row["Step"] == step], ["(0, 1, 2, 3)"])


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class LaunchModeClusterTest(ImbalancedJobChecks, unittest.TestCase):
    steps = STEPS  # no step markers under the launcher: the steps end at Optimizer.step

    @classmethod
    def profile(cls, directory):
        cls.data_dir = os.path.join(directory, "out")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return subprocess.run([AIPROF, "--task-time=on", "--export=off",
                               "--output=" + cls.data_dir, sys.executable] + JOB,
                              env=env, capture_output=True, text=True, timeout=150)

    def test_advise_names_the_slow_rank(self):
        # The same data given to `aiprof advise` (every rank's PROF_* under the output):
        # msprof-analyze's slow-rank rule must name the rank with the extra compute.
        advise = subprocess.run([AIPROF, "advise", "--output=" + self.data_dir,
                                 "--report-dir=" + os.path.join(self._tmp.name, "advice")],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(advise.returncode, 0, advise.stdout + advise.stderr)
        self.assertRegex(advise.stdout, r"rank %d is the slow rank: comput" % SLOW_RANK)


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class PythonApiClusterTest(ImbalancedJobChecks, unittest.TestCase):
    steps = STEPS  # --record-steps: a schedule, so profiler.step() marks every step

    @classmethod
    def profile(cls, directory):
        cls.data_dir = os.path.join(directory, "traces")
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "AIPROF_OPTIONS")}
        return subprocess.run([sys.executable] + JOB + ["--profile-dir=" + cls.data_dir,
                                                        "--record-steps"],
                              env=env, capture_output=True, text=True, timeout=150)


if __name__ == "__main__":
    unittest.main()
