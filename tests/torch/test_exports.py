"""What a trace handler and the export methods write: the *_aiprof_pt directory, the
Kineto-named Chrome trace, folded stacks, the memory timeline, markers and GC."""

import glob
import gzip
import json
import os
import re
import tempfile
import unittest
import warnings

import torch

import aiprof._native
import aiprof.profiler as aiprof_profiler
from torch_models import profile_marked_mlp_window

KINETO_KEYS = ["schemaVersion", "deviceProperties", "displayTimeUnit", "baseTimeNanoseconds",
               "traceEvents", "traceName"]


class ExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")
        torch.set_num_threads(1)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = cls.tmp.name
        cls.handler = aiprof_profiler.tensorboard_trace_handler(cls.out, worker_name="worker0")
        prof = profile_marked_mlp_window(cls.handler, {"run": "export-test"},
                                         metadata_json={"sizes": '{"batch": 16}'})
        cls.prof = prof
        cls.trace_path = cls.handler.kineto_traces[0]
        with open(cls.trace_path) as handle:
            cls.trace = json.load(handle)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def events(self, cat=None, name=None):
        return [e for e in self.trace["traceEvents"]
                if (cat is None or e.get("cat") == cat) and (name is None or e.get("name") == name)]

    def test_handler_directory(self):
        self.assertEqual(len(self.handler.trace_dirs), 1)
        directory = self.handler.trace_dirs[0]
        self.assertRegex(os.path.basename(directory), r"^worker0_\d{17}_aiprof_pt$")
        with open(os.path.join(directory, "profiler_info.json")) as handle:
            info = json.load(handle)
        self.assertTrue(info["config"]["common_config"]["record_shapes"])
        self.assertEqual(info["config"]["experimental_config"]["_gc_detect_threshold"], 0)
        with open(os.path.join(directory, "profiler_metadata.json")) as handle:
            metadata = json.load(handle)
        self.assertEqual(metadata["run"], "export-test")
        self.assertEqual(metadata["sizes"], {"batch": 16})
        self.assertIn("ENV_VARIABLES", metadata)
        prof_dirs = glob.glob(os.path.join(directory, "PROF_*"))
        self.assertEqual(len(prof_dirs), 1)
        self.assertTrue(glob.glob(os.path.join(prof_dirs[0], "host", "data", "aiprof.*.data")))
        output = os.path.join(directory, "aiprof_output")
        self.assertTrue(os.path.isdir(output))
        # The build's CLI is found (AIPROF_LIB_DIR/../bin), so `aiprof export` ran.
        self.assertIsNotNone(aiprof._native.find_cli())
        files = os.listdir(output)
        self.assertFalse([f for f in files if f.startswith("EXPORT_")], files)
        for name in ("operator_details.csv", "operator_memory.csv", "memory_record.csv"):
            self.assertIn(name, files)
        self.assertIn("trace_view.json", files)  # torch_npu's fixed names in *_aiprof_pt
        with open(os.path.join(output, "operator_memory.csv")) as handle:
            header = handle.readline().strip()
        self.assertTrue(header.startswith("Name,Size(KB),Allocation Time(us),Release Time(us)"))

    def test_kineto_trace(self):
        self.assertRegex(os.path.basename(self.trace_path), r"^worker0\.\d+\.pt\.trace\.json$")
        for key in KINETO_KEYS:
            self.assertIn(key, self.trace)
        self.assertEqual(self.trace["run"], "export-test")
        self.assertEqual(self.trace["record_shapes"], 1)
        steps = sorted(e["name"] for e in self.events("user_annotation")
                       if e["name"].startswith("ProfilerStep#"))
        self.assertEqual(steps, ["ProfilerStep#1", "ProfilerStep#2"])
        addmm = self.events("cpu_op", "aten::addmm")
        self.assertTrue(addmm)
        args = addmm[0]["args"]
        for key in ("External id", "Record function id", "Input Dims", "Input type",
                    "Call stack", "Module Hierarchy"):
            self.assertIn(key, args)
        self.assertEqual(args["Input Dims"][:3], [[64], [16, 32], [32, 64]])
        self.assertEqual(args["Input type"][:3], ["float", "float", "float"])
        self.assertIn("Linear_0", args["Module Hierarchy"])
        backward = [e for e in self.events("cpu_op") if "Sequence number" in e["args"]]
        self.assertTrue(backward)
        starts = {e["id"] for e in self.events("fwdbwd") if e["ph"] == "s"}
        finishes = {e["id"] for e in self.events("fwdbwd") if e["ph"] == "f"}
        self.assertTrue(starts)
        self.assertEqual(starts, finishes)
        self.assertTrue(self.events(name="[memory]"))
        self.assertTrue(self.events("python_function"))
        self.assertTrue(self.events("gc", "GC"))
        self.assertEqual(len([e for e in self.events(name="step begins") if e["ph"] == "i"]), 2)
        self.assertEqual(len(self.events("user_annotation", "train step")), 2)

    def test_export_stacks_is_folded_format(self):
        path = os.path.join(self.out, "stacks.txt")
        self.prof.export_stacks(path, "self_cpu_time_total")
        with open(path) as handle:
            lines = handle.read().splitlines()
        self.assertTrue(lines)
        folded = re.compile(r"^[^ ;\t]+(;[^ ;\t]+)* [1-9]\d*$")
        for line in lines:
            self.assertRegex(line, folded)
        self.assertTrue(any(".py(" in line for line in lines))  # with_stack frames
        table = str.maketrans(" ;\t\n", "____")
        operators = {e.name.translate(table) for e in self.prof.events()}
        for line in lines:
            self.assertIn(line.rsplit(" ", 1)[0].split(";")[-1], operators)

    def test_memory_timeline_matches_allocator(self):
        timeline = self.prof.memory_timeline("cpu")
        self.assertTrue(timeline.allocator_totals)
        running, by_time = 0, {}
        for ts, _action, size, _category in timeline.events:
            running += size
            by_time[ts] = running
        for ts, total_allocated in timeline.allocator_totals:
            self.assertEqual(by_time[ts], total_allocated)
        for suffix in (".json", ".raw.json.gz", ".html"):
            path = os.path.join(self.out, "memory" + suffix)
            self.prof.export_memory_timeline(path, device="cpu")
            self.assertGreater(os.path.getsize(path), 0)
        with open(os.path.join(self.out, "memory.json")) as handle:
            times, sizes = json.load(handle)
        self.assertEqual(len(times), len(sizes))
        self.assertTrue(all(len(row) == 9 and row[0] == 0 for row in sizes))
        self.assertEqual(sum(sizes[-1]), timeline.allocator_totals[-1][1])
        with gzip.open(os.path.join(self.out, "memory.raw.json.gz"), "rt") as handle:
            raw = json.load(handle)
        self.assertEqual(sum(event[2] for event in raw), timeline.allocator_totals[-1][1])

    def test_memory_timeline_categories_are_the_analysis_categories(self):
        """One classification: the timeline's per-category peaks are the memory analysis'
        category tracks that the trace shows as "Memory <category> (CPU)" counters. (The
        parameters, gradients and Adam's state exist before this window: PREEXISTING.)"""
        names = {"PARAMETER": "Parameter", "OPTIMIZER_STATE": "Optimizer state",
                 "INPUT": "Input", "TEMPORARY": "Temporary", "ACTIVATION": "Activation",
                 "GRADIENT": "Gradient", "AUTOGRAD_DETAIL": "Autograd", "UNKNOWN": "Unknown"}
        from aiprof.profiler._memory_timeline import CATEGORIES
        counter_peaks = {}
        for event in self.events():
            name = event.get("name", "")
            if event.get("ph") == "C" and name.startswith("Memory ") and name.endswith(" (CPU)"):
                value = max(event["args"].values())
                counter_peaks[name] = max(counter_peaks.get(name, 0), value)
        timeline = self.prof.memory_timeline("cpu")
        current = [0] * len(CATEGORIES)
        peaks = [0] * len(CATEGORIES)
        for _ts, action, size, category in timeline.events:
            if action == 1:  # PREEXISTING: allocated before the window, not a block
                continue
            current[category] += size
            peaks[category] = max(peaks[category], current[category])
        for index, category in enumerate(CATEGORIES):
            counter = "Memory %s (CPU)" % names[category]
            self.assertEqual(peaks[index], counter_peaks.get(counter, 0), category)
        self.assertGreater(peaks[CATEGORIES.index("ACTIVATION")], 0)

    def test_memory_timeline_of_a_model_built_in_the_window(self):
        """Parameters, gradients and Adam's state allocated inside the window get their
        categories (the roles recorded at stop and the analysis' rules), as torch's does."""
        from aiprof.profiler._memory_timeline import CATEGORIES
        with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU],
                                     profile_memory=True) as prof:
            step = None
            with aiprof_profiler.record_function("build"):
                from torch_models import mlp_step
                step = mlp_step()
            for _ in range(2):
                step()
                prof.step()
        timeline = prof.memory_timeline("cpu")
        current = [0] * len(CATEGORIES)
        for _ts, action, size, category in timeline.events:
            if action != 1:
                current[category] += size
        for category in ("PARAMETER", "GRADIENT", "OPTIMIZER_STATE"):
            self.assertGreater(current[CATEGORIES.index(category)], 0, category)

    def test_cpu_only_activities_trace_neither_cuda_api(self):
        """activities=[CPU]: the window's options turn off both CUDA APIs, the runtime API
        ("ascendcl", on unless set) as well as the driver API ("runtime_api")."""
        directory = os.path.join(self.out, "cpu_only")
        with aiprof_profiler.profile(
                activities=[aiprof_profiler.ProfilerActivity.CPU],
                on_trace_ready=aiprof_profiler.tensorboard_trace_handler(directory)):
            torch.mm(torch.randn(4, 4), torch.randn(4, 4))
        infos = glob.glob(os.path.join(directory, "*", "PROF_*", "info.json"))
        self.assertEqual(len(infos), 1)
        with open(infos[0]) as handle:
            options = json.load(handle)["options"]
        self.assertIs(options["ascendcl"], False)
        self.assertIs(options["runtime_api"], False)

    def test_kinetoprofile_export_chrome_trace(self):
        prof = aiprof_profiler._KinetoProfile(activities=[aiprof_profiler.ProfilerActivity.CPU])
        x = torch.randn(8, 8)
        prof.start()
        torch.mm(x, x)
        prof.stop()
        path = os.path.join(self.out, "kineto_profile.json")
        prof.export_chrome_trace(path)
        with open(path) as handle:
            trace = json.load(handle)
        self.assertIn("aten::mm", {e["name"] for e in trace["traceEvents"]})


if __name__ == "__main__":
    unittest.main()
