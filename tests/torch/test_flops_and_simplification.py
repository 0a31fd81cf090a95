"""with_flops (FLOPs from input shapes, checked by value against hand-computed counts) and
data_simplification (what tensorboard_trace_handler leaves in PROF_* after export)."""

import glob
import json
import os
import tempfile
import unittest
import warnings

import torch

import aiprof.profiler as aiprof_profiler
from aiprof.profiler import _handler


def profile_once(step, **kwargs):
    with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU],
                                 **kwargs) as prof:
        step()
    return prof


class FlopsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")
        torch.set_num_threads(1)
        torch.manual_seed(0)

    def flops_by_name(self, prof):
        return {row.key: row.flops for row in prof.key_averages() if row.flops}

    def test_linear(self):
        linear = torch.nn.Linear(32, 16)
        x = torch.randn(8, 32)
        prof = profile_once(lambda: linear(x), with_flops=True)
        # [8, 32] x [32, 16]: 2 * 8 * 32 * 16 multiply-adds counted as two operations each.
        expected = 2 * 8 * 32 * 16
        flops = self.flops_by_name(prof)
        self.assertEqual(flops.get("aten::linear"), expected)
        self.assertEqual(flops.get("aten::addmm"), expected)
        # with_flops alone records no Input Dims (the shapes were captured only to count).
        addmm = [e for e in prof.events() if e.name == "aten::addmm"]
        self.assertEqual(len(addmm), 1)
        self.assertEqual(addmm[0].input_shapes, [])

    def test_conv2d(self):
        conv = torch.nn.Conv2d(3, 4, kernel_size=3, stride=2, padding=1)
        x = torch.randn(2, 3, 9, 9)
        prof = profile_once(lambda: conv(x), with_flops=True, record_shapes=True)
        # Output 5 x 5 ((9 + 2 - 2 - 1) / 2 + 1); each of 2 * 4 * 25 outputs sums 3 * 3 * 3.
        expected = 2 * (2 * 4 * 5 * 5) * (3 * 3 * 3)
        flops = self.flops_by_name(prof)
        self.assertEqual(flops.get("aten::conv2d"), expected)
        self.assertEqual(flops.get("aten::convolution"), expected)
        conv_events = [e for e in prof.events() if e.name == "aten::conv2d"]
        self.assertEqual(conv_events[0].input_shapes[0], [2, 3, 9, 9])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as handle:
                events = json.load(handle)["traceEvents"]
        conv_args = [e["args"] for e in events if e.get("name") == "aten::conv2d"]
        self.assertEqual(conv_args[0]["flops"], expected)

    def test_elementwise_and_off_by_default(self):
        a, b = torch.randn(4, 5), torch.randn(5)
        prof = profile_once(lambda: torch.add(a, b), with_flops=True)
        self.assertEqual(self.flops_by_name(prof).get("aten::add"), 20)  # broadcast 4 x 5
        prof = profile_once(lambda: torch.add(a, b), record_shapes=True)
        self.assertEqual(self.flops_by_name(prof), {})


class DataSimplificationTest(unittest.TestCase):
    def test_only_raw_data_stays(self):
        with tempfile.TemporaryDirectory() as prof_dir:
            kept = ["info.json", "host/data/aiprof.1.data", "host/data/host_sys.1.data",
                    "device_0/data/cuda.1.data"]
            extra = ["aiprof_output/op_summary.csv", "host/log/export.log", "scratch.tmp",
                     "device_0/sqlite/cache.db"]
            for relative in kept + extra:
                path = os.path.join(prof_dir, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").close()
            deleted = _handler.simplify_prof_dir(prof_dir)
            left = sorted(os.path.relpath(p, prof_dir)
                          for p in glob.glob(os.path.join(prof_dir, "**"), recursive=True)
                          if os.path.isfile(p))
            self.assertEqual(left, sorted(kept))
            self.assertEqual(deleted, sorted(extra + ["aiprof_output", "host/log",
                                                      "device_0/sqlite"]))

    def test_handler_keeps_outputs_and_raw_data(self):
        linear = torch.nn.Linear(8, 8)
        with tempfile.TemporaryDirectory() as out:
            handler = aiprof_profiler.tensorboard_trace_handler(out, worker_name="w")
            config = aiprof_profiler._ExperimentalConfig(data_simplification=True)
            with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU],
                                         on_trace_ready=handler, experimental_config=config):
                linear(torch.randn(2, 8))
            trace_dir = handler.trace_dirs[0]
            prof_dirs = glob.glob(os.path.join(trace_dir, "PROF_*"))
            self.assertEqual(len(prof_dirs), 1)
            files = sorted(os.path.relpath(p, prof_dirs[0])
                           for p in glob.glob(os.path.join(prof_dirs[0], "**"), recursive=True)
                           if os.path.isfile(p))
            self.assertTrue(all(_handler._is_raw_data(f) for f in files), files)
            self.assertIn("info.json", files)
            self.assertTrue(os.path.isfile(os.path.join(trace_dir, "aiprof_output", "op_summary.csv")))
            self.assertEqual(len(handler.kineto_traces), 1)
            self.assertTrue(os.path.isfile(handler.kineto_traces[0]))


if __name__ == "__main__":
    unittest.main()
