"""Seed 001 (aclprof API, iteration selection) with `torch_npu.npu` -> `aiprof.npu`,
`msprof` -> `aiprof`: prof_init/prof_start/prof_stop/prof_finalize around one epoch,
iteration_start()/iteration_end() that `aiprof export --iteration-id=3` selects,
`profile(path, config=ProfileConfig(...))` and `use_e2e_profiler=True`, the configuration by
environment (PROFILING_MODE=true with PROFILING_OPTIONS), and the C API flow
(examples/api/aclprof_flow.c: init, create config, start, execute, stop, destroy config,
finalize)."""

import glob
import os
import subprocess
import tempfile
import unittest

import torch

import aiprof.npu
from seed_support import (BUILD_DIR, CLI, PYTHON, RUNTIME, export, exported_timeline,
                          job_environment, prof_dirs, read_csv, slice_names)

torch.manual_seed(0)
torch.set_num_threads(1)
MODEL = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
X_DATA, Y_DATA = torch.randn(4, 8), torch.randn(4, 2)
LOSS_FUNC = torch.nn.MSELoss()


def execute_model():
    y_pred = MODEL(X_DATA)
    loss = LOSS_FUNC(y_pred, Y_DATA)
    loss.backward()


def step_trace_iterations(prof_dir):
    """Iteration ids of the step_trace summary that `aiprof export` wrote."""
    files = glob.glob(os.path.join(prof_dir, "aiprof_output", "step_trace_*.csv"))
    rows = read_csv(files[0])
    column = rows[0].index("Iteration ID")
    return [int(row[column]) for row in rows[1:]]


class Seed001Test(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.result = os.path.join(self.tmp, "profiler_result_path")

    def tearDown(self):
        self._tmp.cleanup()

    def only_prof_dir(self):
        dirs = prof_dirs(self.result)
        self.assertEqual(len(dirs), 1, dirs)
        return dirs[0]

    # "Collect only the needed iteration": prof_init / prof_start at epoch 2, stop after it.
    def test_prof_init_start_stop_finalize(self):
        for epoch in range(10):
            if epoch == 2:
                aiprof.npu.prof_init(self.result)
                aiprof.npu.prof_start()
            execute_model()
            if epoch == 2:
                aiprof.npu.prof_stop()
                aiprof.npu.prof_finalize()
        names = slice_names(exported_timeline(self.only_prof_dir()))
        self.assertEqual(names["aten::addmm"], 2)  # one epoch: two Linear layers

    # The same with the context manager around epoch 2 only.
    def test_profile_one_epoch(self):
        for epoch in range(10):
            if epoch != 2:
                execute_model()
            else:
                with aiprof.npu.profile(self.result):
                    execute_model()
        names = slice_names(exported_timeline(self.only_prof_dir()))
        self.assertEqual(names["aten::addmm"], 2)

    # "Compare iterations": iteration marks, then `aiprof export --iteration-id=3`.
    def test_iteration_selection(self):
        with aiprof.npu.profile(self.result):
            for _ in range(10):
                aiprof.npu.iteration_start()
                execute_model()
                aiprof.npu.iteration_end()
        prof = self.only_prof_dir()
        export(prof)
        self.assertEqual(step_trace_iterations(prof), list(range(1, 11)))
        # The seed's command: msprof --export=on --output=[prof path] --iteration-id=3
        result = subprocess.run([CLI, "--export=on", "--output=" + prof, "--iteration-id=3",
                                 "--clear=on"], capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(step_trace_iterations(prof), [3])
        view = glob.glob(os.path.join(prof, "aiprof_output", "trace_view_*.json"))[0]
        self.assertEqual(slice_names(view)["aten::addmm"], 2)  # the third iteration only

    # CANN-side config: task time off collects no operators; use_e2e_profiler adds them.
    def test_profile_config(self):
        config = aiprof.npu.ProfileConfig(ACL_PROF_ACL_API=True, ACL_PROF_TASK_TIME=False,
                                          ACL_PROF_AICPU=False, AC_PROF_AICORE_METRICS=False,
                                          aiCoreMetricsType=0)
        with aiprof.npu.profile(self.result, config=config):
            for _ in range(2):
                execute_model()
        prof = self.only_prof_dir()
        self.assertEqual(slice_names(exported_timeline(prof))["aten::addmm"], 0)
        e2e = os.path.join(self.tmp, "e2e")
        with aiprof.npu.profile(e2e, use_e2e_profiler=True, config=config):
            for _ in range(2):
                execute_model()
        self.assertEqual(slice_names(exported_timeline(prof_dirs(e2e)[0]))["aten::addmm"], 4)

    # TensorFlow-style configuration by environment: PROFILING_MODE=true + PROFILING_OPTIONS.
    def test_profiling_options_environment(self):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as handle:
            handle.write("import torch\nm = torch.nn.Linear(8, 2)\n"
                         "for _ in range(3):\n    m(torch.randn(4, 8)).sum().backward()\n")
        options = ('{"output":"%s","training_trace":"on","task_trace":"on","aicpu":"on",'
                   '"aic_metrics":"PipeUtilization"}' % self.result)
        env = job_environment(PROFILING_MODE="true", PROFILING_OPTIONS=options,
                              LD_PRELOAD=RUNTIME)
        env.pop("PYTHONPATH", None)
        result = subprocess.run([PYTHON, script], env=env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        names = slice_names(exported_timeline(self.only_prof_dir()))
        self.assertEqual(names["aten::addmm"], 3)

    # The aclprof C API flow (examples/api/aclprof_flow.c), then --iteration-id=3.
    def test_c_api_flow(self):
        program = os.path.join(BUILD_DIR, "bin", "aclprof_flow")
        result = subprocess.run([program, self.result, "5"], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        prof = self.only_prof_dir()
        self.assertIn(prof, result.stdout)
        names = slice_names(exported_timeline(prof))
        self.assertEqual(names["Execute"], 5)
        export(prof, "--iteration-id=3", "--clear=on")
        self.assertEqual(step_trace_iterations(prof), [3])


if __name__ == "__main__":
    unittest.main()
