"""A real 3-rank gloo job under `aiprof --task-time=on`, rank 2 computing 100 ms more per
step: the launcher exports the three ranks in one run, so each rank's communication.json
(msprof's per-op time split) holds every operation the rank issued and the wait derived from
its peers, and the two ranks that wait for the straggler show more wait than the straggler."""

import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import unittest

from test_distributed import AIPROF, EXAMPLE, gloo_unavailable, issued_by_rank

STEPS = 2
WORLD = 3
SLOW_RANK = 2
EXTRA_MS = 100.0


def operations(communication):
    """(step key, kind, op key, op dict) of communication.json, without the totals."""
    for step, kinds in communication.items():
        for kind, ops in kinds.items():
            for key, op in ops.items():
                if key != "Total Op Info":
                    yield step, kind, key, op


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class CommunicationAnalysisTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls._tmp.name, "out")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        job = subprocess.run([AIPROF, "--task-time=on", "--output=" + cls.output, sys.executable,
                              EXAMPLE, "--steps=%d" % STEPS, "--world-size=%d" % WORLD,
                              "--slow-rank=%d" % SLOW_RANK, "--extra-compute-ms=%g" % EXTRA_MS],
                             env=env, capture_output=True, text=True, timeout=150)
        if job.returncode != 0:
            raise AssertionError("the gloo job failed:\n" + job.stdout + job.stderr)
        cls.issued = issued_by_rank(job.stdout)
        cls.communication, cls.matrix, cls.info = {}, {}, {}
        for prof in glob.glob(os.path.join(cls.output, "PROF_*")):
            with open(os.path.join(prof, "info.json")) as handle:
                info = json.load(handle)
            if not isinstance(info.get("rank"), int):
                continue  # the launching process
            analysis = os.path.join(prof, "aiprof_output", "analysis")
            with open(os.path.join(analysis, "communication.json")) as handle:
                cls.communication[info["rank"]] = json.load(handle)
            with open(os.path.join(analysis, "communication_matrix.json")) as handle:
                cls.matrix[info["rank"]] = json.load(handle)
            cls.info[info["rank"]] = info

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_rank_identity_in_info_json(self):
        self.assertEqual(sorted(self.info), list(range(WORLD)))
        for rank, info in self.info.items():
            self.assertEqual((info["rank"], info["local_rank"], info["world_size"],
                              info["local_world_size"]), (rank, rank, WORLD, WORLD))
            self.assertTrue(info["hostname"])

    def test_kineto_distributed_info_as_hta_reads_it(self):
        for prof in glob.glob(os.path.join(self.output, "PROF_*")):
            with open(os.path.join(prof, "info.json")) as handle:
                rank = json.load(handle).get("rank")
            if not isinstance(rank, int):
                continue
            trace = glob.glob(os.path.join(prof, "aiprof_output", "trace_view_*.json"))[0]
            with open(trace) as handle:
                text = handle.read()
            # hta/common/trace_file.py's pattern for the rank.
            self.assertEqual(re.search(r'"rank":\s+(\d+)', text).group(1), str(rank))
            info = json.loads(text)["distributedInfo"]
            self.assertEqual((info["rank"], info["world_size"]), (rank, WORLD))

    def test_every_issued_operation_once_per_rank(self):
        for rank, communication in self.communication.items():
            counts = {}
            for step, kind, key, op in operations(communication):
                op_type = key.split("@")[0].split("_")[1]
                counts[op_type] = counts.get(op_type, 0) + 1
                self.assertEqual(kind, "p2p" if op_type in ("send", "recv") else "collective")
                self.assertIn(step, ["step"] + ["step%d" % n for n in range(STEPS + 1)])
                self.assertTrue(key.endswith("@world"), key)
            self.assertEqual(counts, self.issued[rank], "rank %d" % rank)

    def test_time_split_adds_up(self):
        for rank, communication in self.communication.items():
            for _, _, key, op in operations(communication):
                time = op["Communication Time Info"]
                self.assertEqual(list(time)[:8], [
                    "Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
                    "Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio",
                    "Synchronization Time Ratio"])
                self.assertAlmostEqual(time["Elapse Time(ms)"],
                                       time["Transit Time(ms)"] + time["Wait Time(ms)"]
                                       + time["Idle Time(ms)"], places=6)
                self.assertGreaterEqual(time["Wait Time(ms)"], 0)
                # send/recv: the ranges do not name the peer in a world of three; a send
                # is paired with a recv only when their recorded times allow it (gloo's
                # ranges may not), else its wait is said to be unmeasured.
                if "_send_" in key or "_recv_" in key:
                    self.assertTrue(time["Wait Time Source"] == "peers"
                                    or "not measured" in time["Wait Time Source"], key)
                    continue
                self.assertEqual(time["Wait Time Source"], "peers", (rank, key))
                self.assertIn("INTRA_HOST", op["Communication Bandwidth Info"])

    def test_ranks_waiting_for_the_straggler_show_the_wait(self):
        def collective_wait(rank):
            return sum(op["Communication Time Info"]["Wait Time(ms)"]
                       for _, kind, _, op in operations(self.communication[rank])
                       if kind == "collective")

        slow = collective_wait(SLOW_RANK)
        for rank in range(WORLD):
            if rank == SLOW_RANK:
                continue
            # Each step the straggler arrives EXTRA_MS late at its first collective (the
            # margins leave room for a loaded machine's scheduling noise).
            self.assertGreater(collective_wait(rank), 0.5 * EXTRA_MS * STEPS)
            self.assertGreater(collective_wait(rank), slow + 0.25 * EXTRA_MS * STEPS,
                               "rank %d waits %.3f ms, the straggler %.3f ms"
                               % (rank, collective_wait(rank), slow))

    def test_matrix_links_only_the_paired_send_and_recv(self):
        expected = {0: "send", 1: "receive"}
        for rank, matrix in self.matrix.items():
            types = {key.split("-")[0] for kinds in matrix.values()
                     for key in kinds.get("p2p", {})}
            # Only the ranks that sent or received have links, and only 0 -> 1.
            self.assertLessEqual(types, {expected[rank]} if rank in expected else set(), rank)
            for kinds in matrix.values():
                self.assertNotIn("collective", kinds)
                for key, links in kinds.get("p2p", {}).items():
                    self.assertEqual(list(links), ["0-1"], key)
                    link = links["0-1"]
                    self.assertEqual(link["Transport Type"], "INTRA_HOST")
                    self.assertGreater(link["Transit Size(MB)"], 0)

    def test_database_tables(self):
        # --type=db of one rank alone: the tables exist, the wait is said to be unmeasured.
        rank_dir = None
        for candidate in glob.glob(os.path.join(self.output, "PROF_*")):
            with open(os.path.join(candidate, "info.json")) as handle:
                if json.load(handle).get("rank") == 0:
                    rank_dir = candidate
        export = subprocess.run([AIPROF, "export", "--output=" + rank_dir, "--type=db"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(export.returncode, 0, export.stderr)
        database = glob.glob(os.path.join(rank_dir, "aiprof_*.db"))[0]
        db = sqlite3.connect(database)
        rows = db.execute("SELECT type, COUNT(*), MIN(wait_source) FROM CommAnalyzerTime "
                          "GROUP BY type ORDER BY type").fetchall()
        db.close()
        collectives = sum(n for op, n in self.issued[0].items() if op not in ("send", "recv"))
        self.assertEqual(rows[0][:2], ("Collective", collectives))
        self.assertEqual(rows[1][:2], ("P2P", self.issued[0].get("send", 0)))
        self.assertIn("not measured", rows[0][2])


if __name__ == "__main__":
    unittest.main()
