"""Seed 002's dynamic_profile samples, each in its own job (dynamic_profile is initialised
once per process): `dp.init(dir)` and an edit of profiler_config.json, `dp.start(config)`,
and the environment form `PROF_CONFIG_PATH=dir` with an unchanged script (steps counted at
Optimizer.step(), as torch_npu does), with the runtime preloaded or loaded by
`import aiprof`. Every window must hold the job's operators, not only ProfilerStep#N."""

import json
import os
import subprocess
import tempfile
import unittest

from seed_support import (PYTHON, RUNTIME, UNCHANGED_TRAIN, edit_profiler_config,
                          exported_timeline, finished_prof_dir, job_environment, slice_names)

# Seed 002, "dp.init": the script divides steps with dp.step(); it runs until ./stop exists.
DP_INIT_JOB = """
import os, sys, time
import torch
from aiprof.profiler import dynamic_profile as dp
dp.init(sys.argv[1])
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
def train_one_step():
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
print("ready", flush=True)
for step in range(3000):
    if os.path.exists("stop"):
        break
    train_one_step()
    dp.step()
    time.sleep(0.01)
"""

# Seed 002, "dp.start": collection starts at step 5 with the settings of start_config_path.
DP_START_JOB = """
import sys
import torch
from aiprof.profiler import dynamic_profile as dp
dp.init(sys.argv[1])
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
x = torch.randn(4, 8)
for step in range(10):
    if step == 5:
        print("started", dp.start(sys.argv[2]), flush=True)
    model(x).sum().backward()
    dp.step()
"""


class DynamicProfileSeedTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.config_dir = os.path.join(self.tmp, "profiler_config_path")
        self.prof_dir = os.path.join(self.tmp, "prof")

    def tearDown(self):
        self._tmp.cleanup()

    def write_script(self, text):
        path = os.path.join(self.tmp, "train.py")
        with open(path, "w") as handle:
            handle.write(text)
        return path

    def run_until_window(self, command, env, active):
        """Starts the job, edits profiler_config.json as a user would, waits for the window,
        stops the job and returns the exported timeline's slice names."""
        job = subprocess.Popen(command, env=env, cwd=self.tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(job.stdout.readline().strip(), "ready")
            edit_profiler_config(self.config_dir, prof_dir=self.prof_dir, active=active,
                                 record_shapes=True)
            prof = finished_prof_dir(self.prof_dir)
        finally:
            open(os.path.join(self.tmp, "stop"), "w").close()
            _, stderr = job.communicate(timeout=60)
        self.assertEqual(job.returncode, 0, stderr)
        return slice_names(exported_timeline(prof)), prof

    def check_window(self, names, active):
        steps = [n for n in names if n.startswith("ProfilerStep#")]
        self.assertEqual(len(steps), active, names)
        self.assertGreater(names["aten::addmm"], 0, names)  # the job's operators
        self.assertGreater(names["aten::mm"], 0, names)  # including backward

    def test_dp_init_and_config_edit(self):
        script = self.write_script(DP_INIT_JOB)
        env = job_environment()
        names, prof = self.run_until_window([PYTHON, script, self.config_dir], env, active=2)
        self.check_window(names, active=2)
        # record_shapes from the edit reached the plugin: operators carry input shapes.
        with open(os.path.join(prof, "info.json")) as handle:
            self.assertIn("record_shapes", json.dumps(json.load(handle)))

    def test_dp_start(self):
        start_config = os.path.join(self.tmp, "start_config_path", "profiler_config.json")
        os.makedirs(os.path.dirname(start_config))
        with open(start_config, "w") as handle:
            json.dump({"activities": ["CPU"], "prof_dir": self.prof_dir, "active": 2}, handle)
        script = self.write_script(DP_START_JOB)
        result = subprocess.run([PYTHON, script, self.config_dir, start_config],
                                env=job_environment(), cwd=self.tmp, capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("started True", result.stdout)
        names = slice_names(exported_timeline(finished_prof_dir(self.prof_dir)))
        self.check_window(names, active=2)
        self.assertEqual(names["aten::addmm"], 4)  # 2 steps x 2 Linear

    def test_prof_config_path_with_preloaded_runtime(self):
        script = self.write_script(UNCHANGED_TRAIN)
        env = job_environment(PROF_CONFIG_PATH=self.config_dir, LD_PRELOAD=RUNTIME)
        env.pop("PYTHONPATH", None)  # the runtime brings its own hook; no aiprof import
        names, _ = self.run_until_window([PYTHON, script, "3000", "0.01"], env, active=3)
        self.check_window(names, active=3)
        self.assertEqual(names["Optimizer.step#SGD.step"], 3)  # one step per Optimizer.step()

    def test_prof_config_path_with_import_aiprof(self):
        script = self.write_script("import aiprof\n" + UNCHANGED_TRAIN)
        env = job_environment(PROF_CONFIG_PATH=self.config_dir)
        names, _ = self.run_until_window([PYTHON, script, "3000", "0.01"], env, active=2)
        self.check_window(names, active=2)


if __name__ == "__main__":
    unittest.main()
