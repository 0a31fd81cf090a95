"""Issue 25, points 2 and 3, on real PyTorch jobs: every arrangement of on_trace_ready keeps
the data where the user asked (a handler wrapped in a lambda, built inside it or outside),
data nobody read is kept and said where; and the steps a run has are the same in every
command (src/model/steps.h): ProfilerStep#N ranges in launch mode, prof.step() without a
schedule, an unchanged script's Optimizer.step, and two training loops in one process."""

import csv
import glob
import os
import subprocess
import sys
import tempfile
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")
TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                     "pytorch", "train.py")

HANDLER_JOB = """
import torch, aiprof.profiler as P
x = torch.randn(64, 64)
outside = P.tensorboard_trace_handler("./outside")
with P.profile(activities=[P.ProfilerActivity.CPU],
               schedule=P.schedule(wait=0, warmup=0, active=2, repeat=1),
               on_trace_ready=lambda p: (print(p.key_averages().table(row_limit=2)),
                                         P.tensorboard_trace_handler("./wrapped")(p),
                                         outside(p))) as prof:
    for _ in range(3):
        torch.mm(x, x)
        prof.step()
"""

STEP_CALLS_JOB = """
import torch, aiprof.profiler as P
x = torch.randn(64, 64)
with P.profile(activities=[P.ProfilerActivity.CPU],
               on_trace_ready=P.tensorboard_trace_handler("./result")) as prof:
    for _ in range(3):
        torch.mm(x, x)
        prof.step()
"""

UNREAD_JOB = """
import torch, aiprof.profiler as P
with P.profile(activities=[P.ProfilerActivity.CPU]) as prof:
    torch.mm(torch.randn(8, 8), torch.randn(8, 8))
if READ:
    prof.key_averages()
"""

OPTIMIZER_JOB = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 8), torch.randint(0, 2, (4,))) for _ in range(5)]
for x, y in torch.utils.data.DataLoader(data, batch_size=None):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
"""


def run(command, cwd, env=None, expect=0):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=240)
    if result.returncode != expect:
        raise AssertionError("%s: exit %d (expected %d)\n%s%s" % (
            " ".join(command), result.returncode, expect, result.stdout, result.stderr))
    return result


def query_iterations(path, cwd):
    lines = run([AIPROF, "query", "--output=" + path], cwd).stdout.splitlines()
    header = lines[0]
    column = header.index("Iteration Number")
    return [int(line[column:].split()[0]) for line in lines[1:] if line.strip()]


def step_labels(prof_dir):
    with open(glob.glob(os.path.join(prof_dir, "aiprof_output", "analysis",
                                     "step_trace_time.csv"))[0]) as handle:
        return [row["Step"] for row in csv.DictReader(handle)]


class HandlerArrangementsTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.env = dict(os.environ)
        self.env["TMPDIR"] = self.tmp  # the windows' temporary directories land here

    def tearDown(self):
        self._tmp.cleanup()

    def job(self, text, *args):
        path = os.path.join(self.tmp, "job.py")
        with open(path, "w") as handle:
            handle.write(text)
        return run([sys.executable, path] + list(args), self.tmp, self.env)

    def test_wrapped_handlers_keep_the_data_where_asked(self):
        self.job(HANDLER_JOB)
        for name in ("wrapped", "outside"):
            folders = glob.glob(os.path.join(self.tmp, name, "*_aiprof_pt"))
            self.assertEqual(len(folders), 1, name)
            prof_dirs = glob.glob(os.path.join(folders[0], "PROF_*"))
            self.assertEqual(len(prof_dirs), 1, name)
            outputs = os.listdir(os.path.join(folders[0], "aiprof_output"))
            for expected in ("trace_view.json", "step_trace_time.csv", "op_statistic.csv"):
                self.assertIn(expected, outputs, name)
            # The folder is a run of its own: every command reads it.
            run([AIPROF, "analyze", "--output=" + folders[0]], self.tmp)
        self.assertEqual(glob.glob(os.path.join(self.tmp, "aiprof_*")), [])

    def test_unread_data_is_kept_and_said_where(self):
        kept = self.job("READ = False\n" + UNREAD_JOB)
        left = glob.glob(os.path.join(self.tmp, "aiprof_*", "PROF_*"))
        self.assertEqual(len(left), 1, kept.stderr)
        self.assertIn("is kept in " + os.path.dirname(left[0]), kept.stderr)
        for directory in glob.glob(os.path.join(self.tmp, "aiprof_*")):
            run(["rm", "-rf", directory], self.tmp)
        read = self.job("READ = True\n" + UNREAD_JOB)
        self.assertEqual(glob.glob(os.path.join(self.tmp, "aiprof_*")), [], read.stderr)

    def test_step_calls_without_a_schedule_are_steps(self):
        self.job(STEP_CALLS_JOB)
        folder = glob.glob(os.path.join(self.tmp, "result", "*_aiprof_pt"))[0]
        # Three prof.step() calls: steps 0-2 and the open step 3 until the profile stopped.
        self.assertEqual(query_iterations(folder, self.tmp), [4])
        exported = run([AIPROF, "export", "--output=" + folder, "--iteration-id=1"], self.tmp)
        self.assertIn("steps: 1,", exported.stdout + exported.stderr)


class StepsInEveryCommandTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def tearDown(self):
        self._tmp.cleanup()

    def collect(self, *job):
        out = os.path.join(self.tmp, "out")
        run([AIPROF, "--output=" + out, "--task-time=on"] + list(job), self.tmp, self.env)
        prof_dirs = sorted(glob.glob(os.path.join(out, "PROF_*")))
        # The main process has the steps (DataLoader workers have none).
        with_steps = [d for d in prof_dirs if query_iterations(d, self.tmp)[0] > 0]
        self.assertEqual(len(with_steps), 1, prof_dirs)
        return out, with_steps[0]

    def test_profiler_step_ranges_in_launch_mode(self):
        out, prof = self.collect(sys.executable, TRAIN, "--steps=6", "--model=mlp",
                                 "--workers=1")
        self.assertEqual(step_labels(prof), [str(n) for n in range(6)])
        run([AIPROF, "--export=on", "--output=" + prof, "--iteration-id=3"], self.tmp)
        run([AIPROF, "analyze", "--output=" + prof, "--iteration-id=3"], self.tmp)
        self.assertEqual(step_labels(prof), ["3"])

    def test_optimizer_steps_of_an_unchanged_script(self):
        script = os.path.join(self.tmp, "plain.py")
        with open(script, "w") as handle:
            handle.write(OPTIMIZER_JOB)
        out, prof = self.collect(sys.executable, script)
        with open(glob.glob(os.path.join(prof, "aiprof_output", "analysis",
                                         "analysis_inputs.csv"))[0]) as handle:
            inputs = next(csv.DictReader(handle))
        self.assertEqual((inputs["Steps"], inputs["Step Source"]), ("5", "Optimizer.step ranges"))
        self.assertEqual(query_iterations(prof, self.tmp), [5])
        self.assertTrue(glob.glob(os.path.join(prof, "aiprof_output", "step_trace_*.csv")))
        run([AIPROF, "analyze", "--output=" + prof, "--iteration-id=2-3"], self.tmp)
        self.assertEqual(step_labels(prof), ["2", "3"])
        run([AIPROF, "--export=on", "--output=" + prof, "--iteration-id=3"], self.tmp)

    def test_two_training_loops_are_told_apart(self):
        out, prof = self.collect(sys.executable, TRAIN, "--steps=4", "--model=both")
        self.assertEqual(step_labels(prof), ["0:0", "0:1", "0:2", "0:3",
                                             "1:0", "1:1", "1:2", "1:3"])
        ambiguous = run([AIPROF, "analyze", "--output=" + prof, "--iteration-id=2"], self.tmp,
                        expect=2)
        self.assertIn("several training loops", ambiguous.stderr)
        self.assertIn("--iteration-id=1:2", ambiguous.stderr)
        run([AIPROF, "analyze", "--output=" + prof, "--iteration-id=1:2"], self.tmp)
        self.assertEqual(step_labels(prof), ["1:2"])


if __name__ == "__main__":
    unittest.main()
