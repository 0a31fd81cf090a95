"""Seed 004 (msprof dynamic collection) with `msprof` -> `aiprof`: attach mode (the job is
started with PROFILING_MODE=dynamic and the runtime preloaded, then `aiprof --dynamic=on
--pid=<pid> --output=...` and start / stop / quit) and launch mode (`aiprof --dynamic=on
--output=... <app>`). The job is an unchanged PyTorch training script: each window must
hold its aten operators."""

import os
import subprocess
import tempfile
import time
import unittest

from seed_support import (CLI, PYTHON, RUNTIME, UNCHANGED_TRAIN, exported_timeline,
                          job_environment, prof_dirs, slice_names, wait_for)

# The seed's collection options adapted NPU -> CPU: --aicpu=on (Ascend AI CPU operators)
# has no counterpart here and is rejected by name (collect_options_test); see README.md.
SEED_OPTIONS = ["--runtime-api=on", "--model-execution=on"]


class DynamicSeedTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.output = os.path.join(self.tmp, "output")
        self.script = os.path.join(self.tmp, "train.py")
        with open(self.script, "w") as handle:
            handle.write(UNCHANGED_TRAIN)

    def tearDown(self):
        self._tmp.cleanup()

    def converse(self, client, lines):
        """Types the prompt's commands with a pause after start so steps run in the window."""
        for line in lines:
            client.stdin.write(line + "\n")
            client.stdin.flush()
            time.sleep(1.0 if line == "start" else 0.2)

    def check_windows(self, count):
        dirs = prof_dirs(self.output)
        self.assertEqual(len(dirs), count, dirs)
        for prof in dirs:
            names = slice_names(exported_timeline(prof))
            self.assertGreater(names["aten::addmm"], 0, (prof, names))
            self.assertGreater(names["Optimizer.step#SGD.step"], 0, (prof, names))

    def test_attach_mode(self):
        env = job_environment(PROFILING_MODE="dynamic", LD_PRELOAD=RUNTIME)
        env.pop("PYTHONPATH", None)
        job = subprocess.Popen([PYTHON, self.script, "100000", "0.005"], env=env, cwd=self.tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(job.stdout.readline().strip(), "ready")
            client = subprocess.Popen(
                [CLI, "--dynamic=on", "--pid=%d" % job.pid, "--output=" + self.output,
                 *SEED_OPTIONS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            self.converse(client, ["start", "stop", "start", "stop", "quit"])
            out, err = client.communicate(timeout=60)
            self.assertEqual(client.returncode, 0, out + err)
        finally:
            open(os.path.join(self.tmp, "stop"), "w").close()
            job.communicate(timeout=60)
        self.assertEqual(job.returncode, 0)
        self.check_windows(2)  # each start/stop is one PROF_* directory

    def test_launch_mode(self):
        env = job_environment()
        env.pop("PYTHONPATH", None)
        launcher = subprocess.Popen(
            [CLI, "--dynamic=on", "--output=" + self.output, *SEED_OPTIONS, PYTHON, self.script,
             "100000", "0.005"], env=env, cwd=self.tmp, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for(lambda: "ready" in launcher.stdout.readline(), what="the job")
            self.converse(launcher, ["start", "stop", "quit"])
        finally:
            open(os.path.join(self.tmp, "stop"), "w").close()
            out, err = launcher.communicate(timeout=60)
        self.assertEqual(launcher.returncode, 0, out + err)
        self.check_windows(1)


if __name__ == "__main__":
    unittest.main()
