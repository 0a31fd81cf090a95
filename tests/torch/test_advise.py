"""`aiprof advise` on real PyTorch jobs (examples/pytorch/train.py under `aiprof
--task-time=on`): a job with a slow DataLoader gets the data-loading advice and a
compute-bound one does not; a job of many tiny operators gets the host-bound advice."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")
TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                     "pytorch", "train.py")


class AdviseOnPyTorchJobs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.advice = {}
        jobs = {
            # Each batch takes 30 ms more to load than the small MLP needs to train on it.
            "slow_loader": ["--model=mlp", "--load-delay-ms=30"],
            # A wide MLP: each step computes far longer than its batch takes to load.
            "compute_bound": ["--model=mlp", "--hidden=1024"],
            # Hundreds of element-wise operators on a tiny tensor per step.
            "tiny_ops": ["--model=tiny"],
        }
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        for name, knobs in jobs.items():
            output = os.path.join(cls._tmp.name, name)
            job = subprocess.run([AIPROF, "--task-time=on", "--export=off", "--output=" + output,
                                  sys.executable, TRAIN, "--steps=6", "--threads=1"] + knobs,
                                 env=env, capture_output=True, text=True, timeout=180)
            if job.returncode != 0:
                raise AssertionError(name + " failed:\n" + job.stdout + job.stderr)
            advise = subprocess.run([AIPROF, "advise", "--output=" + output],
                                    capture_output=True, text=True, timeout=120)
            if advise.returncode != 0:
                raise AssertionError("advise failed:\n" + advise.stdout + advise.stderr)
            path = glob.glob(os.path.join(output, "aiprof_output", "analysis", "advice.json"))
            if len(path) != 1:
                raise AssertionError("no advice.json for " + name + ":\n" + advise.stdout)
            with open(path[0]) as handle:
                cls.advice[name] = json.load(handle)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def finding(self, job, rule):
        for finding in self.advice[job]["findings"]:
            if finding["rule"] == rule:
                return finding
        self.fail("no rule %s for %s" % (rule, job))

    def test_slow_dataloader_gets_the_data_loading_advice(self):
        finding = self.finding("slow_loader", "data_loading")
        self.assertEqual(finding["status"], "triggered", finding["detail"])
        self.assertEqual(finding["severity"], "high", finding["detail"])
        self.assertIn("num_workers", finding["suggestion"])
        self.assertEqual(self.advice["slow_loader"]["findings"][0]["rule"], "data_loading")

    def test_compute_bound_job_gets_neither_data_loading_nor_host_bound_advice(self):
        for rule in ("data_loading", "host_bound"):
            finding = self.finding("compute_bound", rule)
            self.assertEqual(finding["status"], "passed", finding["detail"])

    def test_many_tiny_operators_get_the_host_bound_advice(self):
        finding = self.finding("tiny_ops", "host_bound")
        self.assertEqual(finding["status"], "triggered", finding["detail"])
        operators = [row[0] for table in finding["evidence"] for row in table["rows"]]
        self.assertTrue(any(name in ("aten::mul", "aten::add", "aten::tanh") for name in operators),
                        operators)
        self.assertEqual(self.finding("slow_loader", "host_bound")["status"], "passed")

    def test_every_job_has_steps_from_profiler_step_ranges(self):
        for job, advice in self.advice.items():
            self.assertIn("ProfilerStep#N ranges (6)", advice["inputs"][0], job)


if __name__ == "__main__":
    unittest.main()
