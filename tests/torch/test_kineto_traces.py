"""The traces and folders PyTorch users already have, read by every aiprof command:

- torch.profiler's own tensorboard_trace_handler output (torch 1.13 here, whose profiler
  writes the legacy trace array: no Kineto in the Debian build), two windows of one worker:
  `aiprof analyze|advise|query` on the folder, `aiprof export` of one trace (issue 28);
- aiprof's drop-in tensorboard_trace_handler folder (*_aiprof_pt folders with the Kineto copy
  beside each), read as it is, each window analysed on its own and said so (issue 25 point 6).
"""

import glob
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")

JOB = textwrap.dedent("""
    import sys
    import torch
    import torch.nn as nn
    if sys.argv[2] == "aiprof":
        import aiprof.profiler as profiler
    else:
        import torch.profiler as profiler
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
    with profiler.profile(
            activities=[profiler.ProfilerActivity.CPU],
            schedule=profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
            on_trace_ready=profiler.tensorboard_trace_handler(sys.argv[1], worker_name="w0")) as p:
        for _ in range(9):
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            p.step()
""")


def run(*args):
    return subprocess.run([AIPROF] + list(args), capture_output=True, text=True, timeout=120)


class KinetoTracesOfTorchProfiler(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.folder = os.path.join(cls._tmp.name, "torch_tb")
        job = subprocess.run([sys.executable, "-c", JOB, cls.folder, "torch"],
                             capture_output=True, text=True, timeout=120)
        if job.returncode != 0:
            raise AssertionError("torch.profiler job failed:\n" + job.stdout + job.stderr)
        cls.traces = sorted(glob.glob(os.path.join(cls.folder, "*.pt.trace.json")))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_handler_wrote_two_windows(self):
        self.assertEqual(len(self.traces), 2, os.listdir(self.folder))

    def test_analyze_the_folder(self):
        result = run("analyze", self.folder)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for trace in self.traces:
            self.assertIn(trace + ": analysis of", result.stdout)
        self.assertIn("steps from ProfilerStep#N ranges (2)", result.stdout)
        self.assertIn("worker w0 has 2 runs (profiling windows); each is analysed on its own",
                      result.stderr)

    def test_advise_and_query_the_folder(self):
        advise = run("advise", self.folder)
        self.assertEqual(advise.returncode, 0, advise.stdout + advise.stderr)
        query = run("query", self.folder)
        self.assertEqual(query.returncode, 0, query.stdout + query.stderr)
        self.assertEqual(sum(os.path.basename(t) in query.stdout for t in self.traces), 2)

    def test_export_one_trace_to_a_database(self):
        result = run("export", self.traces[0], "--type=db")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        stem = os.path.basename(self.traces[0])[:-len(".json")]
        self.assertTrue(glob.glob(os.path.join(self.folder, "aiprof_output", stem, "aiprof_*.db")))


class AiprofHandlerFolder(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.folder = os.path.join(cls._tmp.name, "aiprof_tb")
        job = subprocess.run([sys.executable, "-c", JOB, cls.folder, "aiprof"],
                             capture_output=True, text=True, timeout=120)
        if job.returncode != 0:
            raise AssertionError("aiprof.profiler job failed:\n" + job.stdout + job.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_analyze_the_folder_as_it_is(self):
        windows = glob.glob(os.path.join(self.folder, "*_aiprof_pt"))
        self.assertEqual(len(windows), 2, os.listdir(self.folder))
        result = run("analyze", "--output=" + self.folder)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout.count(": analysis of"), 2, result.stdout)
        self.assertIn("has 2 runs (profiling windows); each is analysed on its own", result.stderr)
        self.assertIn("written by aiprof from the raw data found beside them left out",
                      result.stderr)


if __name__ == "__main__":
    unittest.main()
