"""`aiprof --task-time=on python3 train.py` records PyTorch operators of an unchanged
script: the preloaded runtime puts the launch hook on PYTHONPATH and the hook attaches
the torch plugin after `import torch`."""

import collections
import glob
import os
import subprocess
import sys
import tempfile
import unittest

from aiprof import _aiprof

TRAIN = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
for _ in range(3):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
print("trained")
"""

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")


class LaunchModeTest(unittest.TestCase):
    def run_job(self, command, env, output):
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120,
                                cwd=self.tmp)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("trained", result.stdout)
        prof_dirs = glob.glob(os.path.join(output, "PROF_*"))
        self.assertEqual(len(prof_dirs), 1, result.stderr)
        return _aiprof.RecordedModel(prof_dirs)

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.script = os.path.join(self.tmp, "train.py")
        with open(self.script, "w") as handle:
            handle.write(TRAIN)
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def tearDown(self):
        self._tmp.cleanup()

    def check_operators(self, model, shapes):
        operators = model.operators()
        counts = collections.Counter(operators["name"])
        self.assertEqual(counts["aten::addmm"], 6)  # 3 steps x 2 Linear
        self.assertEqual(counts["Optimizer.step#SGD.step"], 3)
        self.assertGreater(counts["autograd::engine::evaluate_function: AddmmBackward0"], 0)
        with_inputs = [dims for dims in operators["input_dims"] if dims]
        self.assertEqual(bool(with_inputs), shapes)
        self.assertEqual(model.dropped, 0)

    def test_cli_task_time_on(self):
        output = os.path.join(self.tmp, "out")
        data = self.run_job([os.path.join(BUILD_DIR, "bin", "aiprof"), "--task-time=on",
                             "--export=off",
                             "--output=" + output, sys.executable, self.script], self.env,
                            output)
        self.check_operators(data, shapes=True)  # on = l1, which records shapes

    def test_preloaded_runtime_with_options(self):
        output = os.path.join(self.tmp, "out")
        env = dict(self.env)
        env["LD_PRELOAD"] = os.path.join(BUILD_DIR, "lib", "libaiprof.so")
        env["AIPROF_OPTIONS"] = '{"output": "%s", "mode": "launch", "task_time": "l0"}' % output
        data = self.run_job([sys.executable, self.script], env, output)
        self.check_operators(data, shapes=False)

    def test_task_time_off_records_no_operators(self):
        output = os.path.join(self.tmp, "out")
        env = dict(self.env)
        env["LD_PRELOAD"] = os.path.join(BUILD_DIR, "lib", "libaiprof.so")
        # As the launcher sets it (this test process stands for the launcher): the launched
        # program keeps its directory although it records nothing.
        env["AIPROF_OPTIONS"] = ('{"output": "%s", "mode": "launch", "task_time": "off", '
                                 '"launcher_pid": %d}' % (output, os.getpid()))
        data = self.run_job([sys.executable, self.script], env, output)
        self.assertEqual(data.operators()["name"], [])


if __name__ == "__main__":
    unittest.main()
