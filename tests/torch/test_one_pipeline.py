"""The Python API and `aiprof export` are one pipeline: the Kineto trace that
export_chrome_trace and tensorboard_trace_handler write and the trace_view*.json of
`aiprof export` on the same PROF_* directory hold the same events, event for event, and
the same top-level fields except traceName (each names its own file)."""

import glob
import gzip
import json
import os
import subprocess
import tempfile
import unittest
import warnings

import torch

import aiprof.profiler as aiprof_profiler
from torch_models import profile_marked_mlp_window

BUILD_DIR = os.environ.get("AIPROF_BUILD_DIR", "")
AIPROF = os.path.join(BUILD_DIR, "bin", "aiprof")


def cli_trace(prof_dir):
    """`aiprof export --type=text` of prof_dir, loaded."""
    result = subprocess.run([AIPROF, "export", "--output=" + prof_dir, "--type=text"],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError("aiprof export failed (%d): %s" % (result.returncode,
                                                               result.stderr))
    # A PROF_* alone in a *_aiprof_pt result folder is exported into that folder's
    # aiprof_output/ with torch_npu's fixed names; elsewhere msprof's timestamped names.
    traces = (glob.glob(os.path.join(prof_dir, "aiprof_output", "trace_view_*.json")) +
              glob.glob(os.path.join(os.path.dirname(prof_dir), "aiprof_output",
                                     "trace_view.json")))
    if len(traces) != 1:
        raise AssertionError("expected one exported trace, found %s" % traces)
    with open(traces[0]) as handle:
        return json.load(handle)


class OnePipelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")
        torch.set_num_threads(1)
        cls._tmp = tempfile.TemporaryDirectory()
        cls.out = cls._tmp.name
        cls.handler = aiprof_profiler.tensorboard_trace_handler(
            cls.out, worker_name="worker0", analyse_flag=False, use_gzip=True)
        prof = profile_marked_mlp_window(cls.handler, {"run": "one-pipeline"}, with_flops=True)
        cls.prof = prof
        cls.api_path = os.path.join(cls.out, "api_trace.json")
        prof.export_chrome_trace(cls.api_path)
        with open(cls.api_path) as handle:
            cls.api = json.load(handle)
        cls.cli = cli_trace(prof.prof_dir)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def assert_same_trace(self, ours, theirs):
        self.assertEqual(len(ours["traceEvents"]), len(theirs["traceEvents"]))
        for index, (a, b) in enumerate(zip(ours["traceEvents"], theirs["traceEvents"])):
            self.assertEqual(a, b, "event %d differs" % index)
        self.assertEqual({k: v for k, v in ours.items() if k != "traceName"},
                         {k: v for k, v in theirs.items() if k != "traceName"})

    def test_export_chrome_trace_equals_aiprof_export(self):
        events = self.api["traceEvents"]
        categories = {e.get("cat") for e in events}
        # The comparison covers every kind of PyTorch data the window recorded.
        for category in ("cpu_op", "user_annotation", "python_function", "fwdbwd", "gc",
                         "cpu_instant_event"):
            self.assertIn(category, categories)
        self.assertTrue(any("flops" in e.get("args", {}) for e in events))
        self.assertEqual(self.api["run"], "one-pipeline")
        self.assertEqual(self.api["with_flops"], 1)
        self.assertEqual(self.api["traceName"], os.path.abspath(self.api_path))
        self.assert_same_trace(self.api, self.cli)

    def test_trace_handler_gzip_equals_aiprof_export(self):
        self.assertEqual(len(self.handler.kineto_traces), 1)
        path = self.handler.kineto_traces[0]
        self.assertTrue(path.endswith(".pt.trace.json.gz"))
        with gzip.open(path, "rt") as handle:
            handler_trace = json.load(handle)
        self.assertEqual(handler_trace["traceName"], path)
        self.assert_same_trace(handler_trace, self.cli)

    def test_key_averages_agree_with_the_trace(self):
        # Operator counts, total and self time come from the same model slices.
        ops = [e for e in self.api["traceEvents"] if e.get("cat") == "cpu_op"]
        counts = {}
        for event in ops:
            counts[event["name"]] = counts.get(event["name"], 0) + 1
        # torch's own FunctionEventAvg rows; record_function ranges are rows too, as in torch.
        rows = {row.key: row for row in self.prof.key_averages()}
        annotations = {e["name"] for e in self.api["traceEvents"]
                       if e.get("cat") == "user_annotation"}
        # torch's tree building (EventList._build_tree) drops a child that repeats its only
        # parent's name (aten::zero_ in aten::zero_), so a row never counts more calls than
        # the trace has; operators that never nest in themselves count exactly.
        for name, count in counts.items():
            if name in rows:
                self.assertLessEqual(rows[name].count, count, name)
        for name in ("aten::addmm", "aten::relu", "aten::linear"):
            if name in counts:
                self.assertEqual(rows[name].count, counts[name], name)
        # torch's own names: ProfilerStep* for the steps, [memory] for allocator events
        # outside every operator.
        annotations = {"ProfilerStep*" if name.startswith("ProfilerStep#") else name
                       for name in annotations} | {"[memory]"}
        self.assertTrue(set(rows) - set(counts) <= annotations, set(rows) - set(counts))
        addmm_total = sum(e["dur"] for e in ops if e["name"] == "aten::addmm")
        # torch's FunctionEvent keeps whole microseconds (Interval of ints in torch 1.x): at
        # most 1 us apart per call.
        self.assertAlmostEqual(rows["aten::addmm"].cpu_time_total, addmm_total,
                               delta=counts["aten::addmm"])
        for row in rows.values():
            self.assertLessEqual(row.self_cpu_time_total, row.cpu_time_total + 1e-6)
        flops = sum(e["args"].get("flops", 0) for e in ops if e["name"] == "aten::addmm")
        self.assertGreater(flops, 0)
        self.assertEqual(rows["aten::addmm"].flops, flops)

if __name__ == "__main__":
    unittest.main()
