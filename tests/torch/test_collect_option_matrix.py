"""Every CPU collect option, alone and all together, on a real PyTorch job with DataLoader
worker processes (examples/pytorch/train.py): the job exits 0, prints what it prints
unprofiled (its timings aside), and nothing else reaches its stderr — no allocator abort,
no glog line such as "Requested callback is not found" (issue 25: --task-memory corrupted
the job's heap at exit). With AIPROF_MATRIX_ASAN_RUNTIME=<libclang_rt.asan .so> and
AIPROF_BUILD_DIR an ASan build (scripts/test-sanitizers.sh), the same matrix runs the job
with that runtime preloaded first (the launcher puts a sanitizer runtime first), so the
instrumented runtime and plugins are checked inside a real torch job."""

import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                     "pytorch", "train.py")
JOB = [sys.executable, TRAIN, "--steps", "12", "--workers", "2", "--model", "both",
       "--batch", "16"]
ASAN_RUNTIME = os.environ.get("AIPROF_MATRIX_ASAN_RUNTIME", "")

OPTIONS = {
    "task-memory": ["--task-memory=on"],
    "task-time-l2": ["--task-time=l2"],
    "cpu-sampling": ["--sys-cpu-profiling=on", "--sys-cpu-freq=500"],
    "host-sys": ["--host-sys=cpu,mem,disk,network,osrt", "--host-sys-usage=cpu,mem"],
    "msproftx-off": ["--msproftx=off"],
    "sys-profiling": ["--sys-profiling=on", "--sys-pid-profiling=on"],
}
ALL = [option for options in OPTIONS.values() for option in options
       if option != "--msproftx=off"]


def job_output(text):
    """The job's own lines, its timings blanked."""
    return re.sub(r"[0-9.]+ ms/step", "<t> ms/step", text)


def foreign_stderr(text):
    """Lines on stderr that neither the job (unprofiled, it prints none) nor aiprof wrote."""
    return [line for line in text.splitlines()
            if line.strip() and not line.startswith(("aiprof", "[aiprof]"))]


class CollectOptionMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.aiprof = os.path.join(BUILD_DIR, "bin", "aiprof")
        plain = subprocess.run(JOB, capture_output=True, text=True, timeout=300)
        assert plain.returncode == 0, plain.stderr
        cls.expected = job_output(plain.stdout)
        cls.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        cls.app_options = []
        if ASAN_RUNTIME:
            # The launcher (an ASan executable) and the job share the options; leaks are not
            # what this checks (CPython and libtorch keep memory until exit).
            cls.env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1"
            cls.app_options = ["--environment=LD_PRELOAD=" + ASAN_RUNTIME]

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self._tmp.name, "out")

    def tearDown(self):
        self._tmp.cleanup()

    def check(self, result, name):
        self.assertEqual(result.returncode, 0, "%s: exit %d\n%s" % (name, result.returncode,
                                                                   result.stderr[-4000:]))
        self.assertEqual(job_output(result.stdout), self.expected, name)
        self.assertEqual(foreign_stderr(result.stderr), [], name)

    def run_collect(self, options):
        command = ([self.aiprof, "--export=off", "--output=" + self.out] + self.app_options +
                   options + JOB)
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=self.env)

    def test_each_option_alone(self):
        for name, options in OPTIONS.items():
            with self.subTest(option=name):
                self.check(self.run_collect(options), name)

    def test_all_options_together(self):
        self.check(self.run_collect(ALL), "all")

    def test_profiling_mode_environment(self):
        # torch_npu's PROFILING_MODE=true with the runtime preloaded (no launcher): the
        # window closes at exit, where "Requested callback is not found" was printed.
        env = dict(self.env)
        runtime = os.path.join(BUILD_DIR, "lib", "libaiprof.so")
        env["LD_PRELOAD"] = (ASAN_RUNTIME + " " + runtime) if ASAN_RUNTIME else runtime
        env["PROFILING_MODE"] = "true"
        env["PROFILING_OPTIONS"] = '{"output": "%s"}' % self.out
        result = subprocess.run(JOB, capture_output=True, text=True, timeout=300, env=env,
                                cwd=self._tmp.name)
        self.check(result, "PROFILING_MODE=true")

    def test_dynamic_start_and_stop(self):
        # Launch mode with dynamic control: a window (with allocator events) started and
        # stopped while the job runs.
        command = [self.aiprof, "--dynamic=on", "--task-memory=on", "--export=off",
                   "--output=" + self.out] + self.app_options + JOB
        job = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=self.env)
        time.sleep(0.5)
        job.stdin.write("start\n")
        job.stdin.flush()
        time.sleep(0.5)
        job.stdin.write("stop\nquit\n")
        job.stdin.flush()
        stdout, stderr = job.communicate(timeout=300)
        self.assertEqual(job.returncode, 0, stderr[-4000:])
        # The prompt ("> "), the launcher's replies and the job's lines share its stdout.
        lines = []
        for line in stdout.splitlines():
            while line.startswith("> "):
                line = line[2:]
            if line.strip() and not line.startswith(("ok:", "aiprof", "[aiprof]")):
                lines.append(line + "\n")
        self.assertEqual(job_output("".join(lines)), self.expected)
        self.assertEqual(foreign_stderr(stderr), [])


if __name__ == "__main__":
    unittest.main()
