"""A real 2-rank gloo job under `aiprof --task-time=on`: each rank's export holds exactly
the collectives the rank issued, per op type, in communication_statistic and in the
database's COMMUNICATION_OP table, with message sizes from the recorded input shapes."""

import csv
import glob
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "pytorch", "distributed_gloo.py")
STEPS = 2


def gloo_unavailable():
    """Why a gloo job cannot run here, or None."""
    try:
        import torch.distributed as dist
    except ImportError as error:
        return "torch.distributed is not importable: %s" % error
    if not dist.is_available():
        return "this torch build has no torch.distributed"
    if not dist.is_gloo_available():
        return "this torch build has no gloo backend"
    return None


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class DistributedGlooTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls._tmp.name, "out")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        job = subprocess.run([AIPROF, "--task-time=on", "--export=off",
                              "--output=" + cls.output, sys.executable, EXAMPLE,
                              "--steps=%d" % STEPS], env=env, capture_output=True,
                             text=True, timeout=120)
        if job.returncode != 0:
            raise AssertionError("the gloo job failed:\n" + job.stdout + job.stderr)
        cls.issued = issued_by_rank(job.stdout)
        for export_type in ("text", "db"):
            export = subprocess.run([AIPROF, "export", "--output=" + cls.output,
                                     "--type=" + export_type], capture_output=True, text=True,
                                    timeout=120)
            if export.returncode != 0:
                raise AssertionError("export failed:\n" + export.stdout + export.stderr)
        cls.rank_dirs, cls.other_dirs = {}, []
        for prof in glob.glob(os.path.join(cls.output, "PROF_*")):
            with open(os.path.join(prof, "info.json")) as handle:
                info = json.load(handle)
            if isinstance(info.get("rank"), int):
                cls.rank_dirs[info["rank"]] = prof
            else:
                cls.other_dirs.append(prof)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_every_rank_reported_and_was_profiled(self):
        self.assertEqual(sorted(self.issued), [0, 1])
        self.assertEqual(sorted(self.rank_dirs), [0, 1])

    def test_no_communication_file_without_communication(self):
        self.assertEqual(len(self.other_dirs), 1)  # the launching process
        for prof in self.other_dirs:
            self.assertEqual(
                glob.glob(os.path.join(prof, "aiprof_output", "communication_statistic_*")), [])

    def test_communication_statistic_counts_what_each_rank_issued(self):
        for rank, prof in self.rank_dirs.items():
            files = glob.glob(os.path.join(prof, "aiprof_output", "communication_statistic_*.csv"))
            self.assertEqual(len(files), 1, prof)
            with open(files[0], newline="") as handle:
                rows = list(csv.reader(handle))
            self.assertEqual(rows[0], ["Device_id", "OP Type", "Count", "Total Time(us)",
                                       "Min Time(us)", "Avg Time(us)", "Max Time(us)",
                                       "Ratio(%)"])
            counts = {row[1]: int(row[2]) for row in rows[1:]}
            self.assertEqual(counts, self.issued[rank], "rank %d" % rank)
            self.assertEqual({row[0] for row in rows[1:]}, {"host"})
            self.assertAlmostEqual(sum(float(row[7]) for row in rows[1:]), 100.0, places=6)

    def test_database_rows_carry_sizes_rank_and_world_size(self):
        for rank, prof in self.rank_dirs.items():
            databases = glob.glob(os.path.join(prof, "aiprof_*.db"))
            self.assertEqual(len(databases), 1, prof)
            db = sqlite3.connect(databases[0])
            rows = db.execute(
                "SELECT t.value, c.count, c.bytes, c.rankId, c.rankSize, d.value, s.value, "
                "c.endNs > c.startNs FROM COMMUNICATION_OP c "
                "JOIN STRING_IDS t ON t.id = c.opType JOIN STRING_IDS s ON s.id = c.source "
                "LEFT JOIN STRING_IDS d ON d.id = c.dataType").fetchall()
            db.close()
            counts = {}
            for op_type, _, _, _, _, _, _, _ in rows:
                counts[op_type] = counts.get(op_type, 0) + 1
            self.assertEqual(counts, self.issued[rank])
            for op_type, count, size, rank_id, rank_size, dtype, source, positive in rows:
                self.assertEqual((rank_id, rank_size, source, positive), (rank, 2, "backend", 1))
                if op_type == "barrier":
                    self.assertEqual((count, size), (0, 0))
                    continue
                self.assertEqual(dtype, "Float")
                self.assertEqual(size, count * 4 * (2 if op_type == "allgather" else 1))
            # The script's messages: gradients of Linear(64,128) and Linear(128,10),
            # broadcast of a 128x64 weight, all_gather of 16 floats, reduce of 256, p2p of 8.
            sizes = {(op_type, count) for op_type, count, *_ in rows}
            self.assertIn(("allreduce", 128 * 64), sizes)
            self.assertIn(("allreduce", 10), sizes)
            self.assertIn(("broadcast", 128 * 64), sizes)
            self.assertIn(("allgather", 16), sizes)
            self.assertIn(("reduce", 256), sizes)


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class SpawnedRanksTest(unittest.TestCase):
    """Ranks started by torch.multiprocessing.spawn have no RANK in their environment: the
    launch hook records the process group's rank once init_process_group returns."""

    def test_rank_comes_from_the_process_group(self):
        with tempfile.TemporaryDirectory() as tmp:
            output = os.path.join(tmp, "out")
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANK")}
            job = subprocess.run([AIPROF, "--task-time=on", "--export=off", "--output=" + output,
                                  sys.executable, EXAMPLE, "--steps=1", "--spawn"], env=env,
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(job.returncode, 0, job.stdout + job.stderr)
            issued = issued_by_rank(job.stdout)
            self.assertEqual(sorted(issued), [0, 1])
            export = subprocess.run([AIPROF, "export", "--output=" + output, "--type=db"],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(export.returncode, 0, export.stderr)
            found = {}
            for database in glob.glob(os.path.join(output, "PROF_*", "aiprof_*.db")):
                db = sqlite3.connect(database)
                for rank, op_type, count in db.execute(
                        "SELECT c.rankId, t.value, count(*) FROM COMMUNICATION_OP c "
                        "JOIN STRING_IDS t ON t.id = c.opType GROUP BY c.rankId, c.opType"):
                    found.setdefault(rank, {})[op_type] = count
                db.close()
            self.assertEqual(found, issued)


def issued_by_rank(stdout):
    """The ranks' {"rank", "issued"} reports, wherever they are in the output."""
    issued, decoder, position = {}, json.JSONDecoder(), stdout.find("{")
    while position >= 0:
        try:
            report, end = decoder.raw_decode(stdout, position)
        except ValueError:
            end = position + 1
        else:
            if isinstance(report, dict) and "rank" in report and "issued" in report:
                issued[report["rank"]] = report["issued"]
        position = stdout.find("{", end)
    return issued


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class PythonApiRanksTest(unittest.TestCase):
    """Each rank profiled with aiprof.profiler.profile and tensorboard_trace_handler (no
    launcher): the handler's export holds the rank's collectives and its rank id."""

    def test_each_trace_directory_holds_its_ranks_collectives(self):
        with tempfile.TemporaryDirectory() as tmp:
            traces = os.path.join(tmp, "traces")
            env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "AIPROF_OPTIONS")}
            job = subprocess.run([sys.executable, EXAMPLE, "--steps=%d" % STEPS,
                                  "--profile-dir=" + traces], env=env, capture_output=True,
                                 text=True, timeout=120)
            self.assertEqual(job.returncode, 0, job.stdout + job.stderr)
            issued = issued_by_rank(job.stdout)
            self.assertEqual(sorted(issued), [0, 1])
            for rank in (0, 1):
                directories = glob.glob(os.path.join(traces, "rank%d_*_aiprof_pt" % rank))
                self.assertEqual(len(directories), 1, os.listdir(traces))
                with open(os.path.join(directories[0], "profiler_info.json")) as handle:
                    self.assertEqual(json.load(handle)["rank_id"], rank)
                # torch_npu-style result folder: fixed file names (docs/dynamic.md)
                files = glob.glob(os.path.join(directories[0], "aiprof_output",
                                               "communication_statistic.csv"))
                self.assertEqual(len(files), 1, directories[0])
                with open(files[0], newline="") as handle:
                    counts = {row[1]: int(row[2]) for row in list(csv.reader(handle))[1:]}
                self.assertEqual(counts, issued[rank])


if __name__ == "__main__":
    unittest.main()
