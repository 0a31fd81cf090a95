"""One answer in every view (issue 25 point 4): for four reference runs — the C++ example,
a DataLoader-bound torch job, a torch job with two training loops and a 2-rank gloo job —
every consumer reports the same steps, step times and shares: the CSVs, the SQLite
database, `aiprof analyze`'s text, `aiprof query`, advice.json and the UI's API. Each
figure is computed once in the analysis layer; this test catches a consumer that computes
one again (or finds steps its own way)."""

import csv
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

from test_distributed import gloo_unavailable

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
TRAIN = os.path.join(EXAMPLES, "pytorch", "train.py")
GLOO = os.path.join(EXAMPLES, "pytorch", "distributed_gloo.py")
US = 1e-3  # the CSVs keep µs with three decimals: one nanosecond


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=240, **kwargs)
    if result.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(command), result.returncode,
                                                     result.stdout, result.stderr))
    return result


def read_csv(pattern):
    paths = glob.glob(pattern)
    if not paths:
        return []
    with open(paths[0]) as handle:
        return list(csv.DictReader(handle))


class UiServer:
    """`aiprof ui` on a free port, its API read with the token of its URL."""

    def __init__(self, prof_dir):
        self.process = subprocess.Popen([AIPROF, "ui", "--port=0", "--no-browser", prof_dir],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        self.url = None
        deadline = time.monotonic() + 60
        while self.url is None and time.monotonic() < deadline:
            line = self.process.stdout.readline()
            found = re.search(r"serving (http://\S+)/\?token=(\w+)", line)
            if found:
                self.url, self.token = found.groups()
        if self.url is None:
            self.close()
            raise AssertionError("aiprof ui did not start")

    def get(self, path):
        request = urllib.request.Request(self.url + path,
                                         headers={"Authorization": "token " + self.token})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def close(self):
        self.process.terminate()
        self.process.communicate(timeout=30)


class Views:
    """What each consumer says about one PROF_* directory."""

    def __init__(self, prof_dir):
        output = os.path.join(prof_dir, "aiprof_output")
        self.step_trace = read_csv(os.path.join(output, "step_trace_*.csv"))
        self.breakdown = read_csv(os.path.join(output, "analysis", "step_trace_time.csv"))
        self.preparation = read_csv(os.path.join(output, "analysis",
                                                 "data_preparation_summary.csv"))
        with open(os.path.join(output, "analysis", "advice.json")) as handle:
            self.advice = json.load(handle)
        self.analyze = run([AIPROF, "analyze", "--output=" + prof_dir]).stdout
        query = run([AIPROF, "query", "--output=" + prof_dir]).stdout.splitlines()
        column = query[0].index("Iteration Number")
        self.query_iterations = int(query[1][column:].split()[0])
        run([AIPROF, "export", "--output=" + prof_dir, "--type=db"])
        with sqlite3.connect(glob.glob(os.path.join(prof_dir, "aiprof_*.db"))[0]) as db:
            self.db_steps = db.execute(
                "SELECT id, loop, startNs, endNs FROM STEP_TIME ORDER BY startNs").fetchall()
            self.db_breakdown = db.execute(
                "SELECT deviceId, step, loop, computing, communication_not_overlapped, free, "
                "preparing, inputWait, startNs, endNs FROM StepTraceTime").fetchall()
        ui = UiServer(prof_dir)
        try:
            self.ui_run = ui.get("/api/run")
            self.ui_analysis = ui.get("/api/analysis")
            self.ui_dataprep = ui.get("/api/dataprep")
        finally:
            ui.close()


class ConsistencyChecks:
    """The checks, over `cls.prof_dirs` (the directories with steps) a subclass records."""

    expected_loops = 1

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        out = os.path.join(cls._tmp.name, "out")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        run([AIPROF, "--output=" + out] + cls.collect, env=env, cwd=cls._tmp.name)
        cls.views = []
        for prof_dir in sorted(glob.glob(os.path.join(out, "PROF_*"))):
            if read_csv(os.path.join(prof_dir, "aiprof_output", "step_trace_*.csv")):
                cls.views.append(Views(prof_dir))
        assert len(cls.views) == cls.ranks, "%d directories with steps" % len(cls.views)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def main_scope_rows(self, rows, key):
        first = rows[0][key]
        return [row for row in rows if row[key] == first]

    def test_step_count_is_the_same_everywhere(self):
        for v in self.views:
            count = len(v.step_trace)
            self.assertGreater(count, 1)
            self.assertEqual(v.query_iterations, count)
            self.assertEqual(len(v.db_steps), count)
            self.assertEqual(len(v.ui_run["steps"]), count)
            self.assertEqual(len(v.ui_analysis["step_trace"]), count)
            self.assertEqual(len(v.advice["step_times"][0]["steps_ms"]), count)
            self.assertIn("all %d step(s)" % count, v.analyze)
            self.assertEqual(len(self.main_scope_rows(v.breakdown, "Device_id")), count)
            ui_rows = self.main_scope_rows(v.ui_analysis["step_breakdown"], "scope")
            self.assertEqual(len(ui_rows), count)
            self.assertEqual(len({row[2] for row in v.db_steps}), count)
            self.assertEqual(len({row[1] for row in v.db_steps}), self.expected_loops)
            # The step names the user sees are unique, however many loops ran.
            labels = [row["Iteration ID"] for row in v.step_trace]
            self.assertEqual(len(set(labels)), count, labels)
            self.assertEqual([s[3] for s in sorted(v.ui_run["steps"], key=lambda s: s[1])],
                             labels)

    def test_step_times_are_the_same_everywhere(self):
        for v in self.views:
            csv_us = [float(row["Iteration Time(us)"]) for row in v.step_trace]
            db_us = [(end - start) / 1e3 for _id, _loop, start, end in v.db_steps]
            ui_us = [(s[2] - s[1]) / 1e3 for s in sorted(v.ui_run["steps"], key=lambda s: s[1])]
            trace_us = [r["iteration"] / 1e3 for r in v.ui_analysis["step_trace"]]
            advice_us = [ms * 1e3 for _label, ms in v.advice["step_times"][0]["steps_ms"]]
            for name, values in (("db", db_us), ("ui run", ui_us), ("ui step_trace", trace_us),
                                 ("advice", advice_us)):
                self.assertEqual(len(values), len(csv_us), name)
                for a, b in zip(sorted(values), sorted(csv_us)):
                    self.assertAlmostEqual(a, b, delta=2 * US, msg=name)
            total_ms = float(re.search(r"all \d+ step\(s\): ([0-9.]+) ms", v.analyze).group(1))
            self.assertAlmostEqual(total_ms, sum(csv_us) / 1e3, delta=0.002)

    def test_breakdown_is_the_same_everywhere(self):
        for v in self.views:
            rows = self.main_scope_rows(v.breakdown, "Device_id")
            ui_rows = self.main_scope_rows(v.ui_analysis["step_breakdown"], "scope")
            db_rows = [r for r in v.db_breakdown if r[0] == v.db_breakdown[0][0]]
            self.assertEqual(len(db_rows), len(rows))
            for row, ui, db in zip(rows, ui_rows, db_rows):
                self.assertEqual(row["Step"], ui["label"])
                for column, key, index in (("Computing", "computing", 3),
                                           ("Communication(Not Overlapped)",
                                            "communication_not_overlapped", 4),
                                           ("Free", "free", 5), ("Preparing", "preparing", 6)):
                    self.assertAlmostEqual(float(row[column]), ui[key] / 1e3, delta=US)
                    self.assertAlmostEqual(float(row[column]), db[index], delta=US)
                self.assertAlmostEqual(ui["input_wait"] / 1e3, db[7], delta=US)
                # The Overview's stacked parts add up to the step, no part counted twice.
                self.assertEqual(ui["computing"] + ui["communication_not_overlapped"] +
                                 ui["input_wait"] + ui["idle"],
                                 ui["computing"] + ui["communication_not_overlapped"] + ui["free"])
                self.assertLessEqual(ui["input_wait"], ui["free"])
                self.assertEqual(ui["duration"], db[9] - db[8])

    def test_input_wait_share_is_the_same_everywhere(self):
        for v in self.views:
            if not v.preparation:
                continue
            summary = v.preparation[0]
            share = float(summary["Data Wait(us)"]) / float(summary["Step Time(us)"])
            ui = v.ui_dataprep["total_wait"] / v.ui_dataprep["total_step"]
            self.assertAlmostEqual(ui, share, delta=1e-6)
            finding = [f for f in v.advice["findings"] if f["rule"] == "data_loading"][0]
            if summary["Inputs"] == "none":  # no input ranges: nothing waited, all agree
                self.assertEqual(share, 0)
                self.assertIn("data preparation: no data", v.analyze)
                self.assertEqual(finding["status"], "not evaluated")
                continue
            analyzed = re.search(r"data preparation: ([0-9.]+)% of step time", v.analyze)
            self.assertAlmostEqual(float(analyzed.group(1)), 100 * share, delta=0.051)
            if finding["status"] != "not evaluated":
                advised = re.search(r"steps wait ([0-9.]+)%", finding["detail"])
                self.assertAlmostEqual(float(advised.group(1)), 100 * share, delta=0.051)
            # The breakdown's input wait is the part of Free the steps waited: never more
            # than the data preparation's wait.
            ui_rows = self.main_scope_rows(v.ui_analysis["step_breakdown"], "scope")
            self.assertLessEqual(sum(r["input_wait"] for r in ui_rows),
                                 v.ui_dataprep["total_wait"])


class CppExampleTest(ConsistencyChecks, unittest.TestCase):
    ranks = 1
    collect = [os.path.join(BUILD_DIR, "bin", "examples", "train"), "--steps=12"]


class DataLoaderBoundTorchTest(ConsistencyChecks, unittest.TestCase):
    ranks = 1
    collect = ["--task-time=on", sys.executable, TRAIN, "--model=mlp", "--workers=2",
               "--load-delay-ms=20", "--steps=8"]

    def test_the_wait_is_input_wait_everywhere(self):
        for v in self.views:
            ui_rows = self.main_scope_rows(v.ui_analysis["step_breakdown"], "scope")
            # The loader is the bottleneck: most of each step's Free time is input wait, and
            # the advice says so.
            self.assertGreater(sum(r["input_wait"] for r in ui_rows),
                               0.5 * sum(r["free"] for r in ui_rows))
            finding = [f for f in v.advice["findings"] if f["rule"] == "data_loading"][0]
            self.assertEqual(finding["status"], "triggered")


class TwoTrainingLoopsTest(ConsistencyChecks, unittest.TestCase):
    ranks = 1
    expected_loops = 2
    collect = ["--task-time=on", sys.executable, TRAIN, "--model=both", "--steps=4"]


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class GlooTwoRanksTest(ConsistencyChecks, unittest.TestCase):
    ranks = 2
    collect = ["--task-time=on", sys.executable, GLOO, "--world-size=2", "--steps=3"]


if __name__ == "__main__":
    unittest.main()
