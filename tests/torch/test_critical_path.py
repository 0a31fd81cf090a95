"""The critical path on the two real jobs of issue 30 (docs/analysis.md, "Critical path"):

- a DataLoader-bound training job (examples/pytorch/train.py, two worker processes, each
  batch 40 ms slower to load): the path of `aiprof analyze --critical-path` over the job's
  PROF_* directories runs through the workers' threads, data loading is on it, "data
  loading free" saves what it costs, and `aiprof advise` ranks the data-loading advice first
  by that projected saving;
- a 4-rank gloo job whose rank 2 computes 200 ms more per step (far above what a loaded
  2-core machine adds to the others' collectives)
  (examples/pytorch/distributed_gloo.py --slow-rank=2): every step's path is gated by rank
  2 (its compute on the path, the other ranks' own paths mostly waiting for it in the
  collectives), "the slowest rank at the median rank's speed" saves most, and the advice
  puts the slow rank first; its near-critical work (critical_path_slack.csv) is off the path
  with its slack, least first; and `aiprof cluster --critical-path`, from the ranks'
  summaries alone, names rank 2 as the rank that gates every step, with compute as why.

No timing is asserted beyond shares the knobs make large (a 40 ms sleep against a few ms of
work); each attribution must sum to its step.
"""

import csv
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "pytorch")
CATEGORIES = ["compute", "communication transit", "communication wait", "host overhead",
              "synchronisation", "data loading", "idle"]


def run(command, timeout=240):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(" ".join(command) + " failed:\n" + result.stdout + result.stderr)
    return result.stdout


def read_csv(output, name):
    with open(os.path.join(output, "aiprof_output", "analysis", name)) as handle:
        return list(csv.DictReader(handle))


def findings(output):
    with open(os.path.join(output, "aiprof_output", "analysis", "advice.json")) as handle:
        return [f for f in json.load(handle)["findings"] if f["status"] == "triggered"]


class CriticalPathTestCase(unittest.TestCase):
    def check_attribution_sums(self, steps):
        for row in steps:
            parts = sum(float(row[c + "(us)"]) for c in CATEGORIES)
            self.assertAlmostEqual(parts, float(row["Step Time(us)"]), delta=0.01 * len(CATEGORIES))

    def what_if(self, kind):
        rows = [r for r in self.what_ifs if r["Kind"] == kind]
        self.assertEqual(len(rows), 1, self.what_ifs)
        return rows[0]


class DataLoaderBoundJob(CriticalPathTestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls._tmp.name, "loader")
        run([AIPROF, "--task-time=on", "--export=off", "--output=" + cls.output, sys.executable,
             os.path.join(EXAMPLES, "train.py"), "--model=mlp", "--steps=6", "--threads=1",
             "--workers=2", "--load-delay-ms=40"])
        cls.report = run([AIPROF, "analyze", "--output=" + cls.output, "--critical-path"])
        cls.steps = read_csv(cls.output, "critical_path_steps.csv")
        cls.segments = read_csv(cls.output, "critical_path_segments.csv")
        cls.what_ifs = read_csv(cls.output, "critical_path_what_if.csv")
        run([AIPROF, "advise", "--output=" + cls.output])
        cls.findings = findings(cls.output)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_the_path_runs_through_the_loader_workers(self):
        self.assertIn("runs parsed together", self.report)
        self.assertEqual(len(self.steps), 6, self.report)
        self.check_attribution_sums(self.steps)
        # Threads are "<name> <pid>/<tid>"; the training process is where compute is.
        by_process = {}
        for row in self.segments:
            pid = row["Thread"].rsplit(" ", 1)[-1].split("/")[0]
            times = by_process.setdefault(pid, {})
            times[row["Category"]] = times.get(row["Category"], 0) + float(row["Duration(us)"])
        trainer = max(by_process, key=lambda pid: by_process[pid].get("compute", 0))
        workers = [pid for pid in by_process if pid != trainer]
        self.assertTrue(workers, "no piece of the path in a DataLoader worker:\n" + self.report)
        self.assertTrue(any(by_process[pid].get("data loading", 0) > 0 for pid in workers),
                        by_process)
        loading = sum(float(row["data loading(us)"]) for row in self.steps)
        total = sum(float(row["Step Time(us)"]) for row in self.steps)
        # 40 ms of sleep per batch against a few ms of MLP: most of the step is the loader.
        self.assertGreater(loading / total, 0.3, self.report)

    def test_data_loading_free_saves_what_loading_costs_on_the_path(self):
        free = self.what_if("data_loading_free")
        self.assertEqual(free["Applicable"], "yes")
        loading = sum(float(row["data loading(us)"]) for row in self.steps)
        self.assertGreater(float(free["Saving(us)"]), 0)
        # Re-solved on the graph: never more than the loading on the path.
        self.assertLessEqual(float(free["Saving(us)"]), loading + 1)

    def test_advise_ranks_the_loader_first_by_its_projected_saving(self):
        first = self.findings[0]
        self.assertEqual(first["rule"], "data_loading", [f["rule"] for f in self.findings])
        self.assertEqual(first["projection"], "data loading free")
        saving = float(self.what_if("data_loading_free")["Saving(%)"]) / 100
        self.assertAlmostEqual(first["projected_saving"], saving, delta=0.001)


class SlowRankGlooJob(CriticalPathTestCase):
    SLOW_RANK = 2

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls._tmp.name, "gloo")
        run([AIPROF, "--task-time=on", "--export=off", "--output=" + cls.output, sys.executable,
             os.path.join(EXAMPLES, "distributed_gloo.py"), "--world-size=4", "--steps=4",
             "--slow-rank=%d" % cls.SLOW_RANK, "--extra-compute-ms=200"])
        cls.report = run([AIPROF, "analyze", "--output=" + cls.output, "--critical-path"])
        cls.steps = read_csv(cls.output, "critical_path_steps.csv")
        cls.ranks = read_csv(cls.output, "critical_path_ranks.csv")
        cls.what_ifs = read_csv(cls.output, "critical_path_what_if.csv")
        cls.slack = read_csv(cls.output, "critical_path_slack.csv")
        run([AIPROF, "advise", "--output=" + cls.output])
        cls.findings = findings(cls.output)
        cls.cluster_report = run([AIPROF, "cluster", "-d", cls.output, "--critical-path",
                                  "--jobs=2"])
        with open(os.path.join(cls.output, "cluster_analysis_output",
                               "cluster_critical_path.csv")) as handle:
            cls.cluster_steps = list(csv.DictReader(handle))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_near_critical_work_is_off_the_path_least_slack_first(self):
        self.assertTrue(self.slack, self.report)
        by_step = {}
        for row in self.slack:
            self.assertGreaterEqual(float(row["Slack(us)"]), 0, row)
            by_step.setdefault(row["Step"], []).append(float(row["Slack(us)"]))
        self.assertEqual(len(by_step), 4, self.report)
        for slacks in by_step.values():
            self.assertLessEqual(len(slacks), 10)
            self.assertEqual(slacks, sorted(slacks))

    def test_every_step_is_gated_by_the_slow_rank(self):
        self.assertEqual(len(self.steps), 4, self.report)
        self.check_attribution_sums(self.steps)
        for row in self.steps:
            self.assertEqual(int(row["Critical Rank"]), self.SLOW_RANK, self.report)
            self.assertGreater(float(row["compute(us)"]), 0.3 * float(row["Step Time(us)"]),
                               self.report)

    def test_cluster_names_the_slow_rank_per_step_from_the_summaries(self):
        self.assertEqual(len(self.cluster_steps), 4, self.cluster_report)
        for row in self.cluster_steps:
            self.assertEqual(int(row["Ranks"]), 4, row)
            self.assertEqual(int(row["Critical Rank"]), self.SLOW_RANK, self.cluster_report)
            self.assertEqual(row["Gate"], "compute", row)
            self.assertGreater(float(row["On Path(%)"]), 50, row)
            # The others waited for it; it waited little itself.
            self.assertGreater(float(row["Peers Wait(us)"]), float(row["Own compute(us)"]) / 10,
                               row)
        self.assertIn("rank %d gates 4 of 4 step(s)" % self.SLOW_RANK, self.cluster_report)

    def test_the_other_ranks_wait_for_it(self):
        for row in self.ranks:
            share = float(row["communication wait(us)"]) / float(row["Step Time(us)"])
            if int(row["Rank"]) == self.SLOW_RANK:
                self.assertLess(share, 0.2, row)
            else:
                self.assertGreater(share, 0.4, row)

    def test_the_slow_rank_projection_saves_most_and_leads_the_advice(self):
        median = self.what_if("rank_at_median")
        self.assertEqual(median["Applicable"], "yes")
        others = [float(r["Saving(us)"]) for r in self.what_ifs if r["Kind"] != "rank_at_median"]
        self.assertGreater(float(median["Saving(us)"]), max(others), self.what_ifs)
        first = self.findings[0]
        self.assertEqual(first["rule"], "slow_rank", [f["rule"] for f in self.findings])
        self.assertAlmostEqual(first["projected_saving"], float(median["Saving(%)"]) / 100,
                               delta=0.001)


if __name__ == "__main__":
    unittest.main()
