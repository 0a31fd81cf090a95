"""Seed 002 (torch_npu profiler), each code sample with `torch_npu.profiler` ->
`aiprof.profiler`, `torch_npu.npu.mstx` -> `aiprof.mstx`, NPU -> CPU; one process (torch
imports once). The dynamic_profile samples are in test_seed_002_dynamic_profile.py."""

import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import torch

import aiprof
import aiprof.profiler
from seed_support import read_csv, slice_names

torch.manual_seed(0)
torch.set_num_threads(1)
MODEL = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
OPTIMIZER = torch.optim.SGD(MODEL.parameters(), lr=0.1)
X, Y = torch.randn(4, 8), torch.randint(0, 2, (4,))


def train_one_step(*_):
    OPTIMIZER.zero_grad()
    torch.nn.functional.cross_entropy(MODEL(X), Y).backward()
    OPTIMIZER.step()


def result_folders(parent):
    return sorted(glob.glob(os.path.join(parent, "*_aiprof_pt")))


class Seed002ProfilerTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.cwd = os.getcwd()
        os.chdir(self.tmp)

    def tearDown(self):
        os.chdir(self.cwd)
        self._tmp.cleanup()

    def experimental_config(self, **overrides):
        arguments = dict(export_type=aiprof.profiler.ExportType.Text,
                         profiler_level=aiprof.profiler.ProfilerLevel.Level0, msprof_tx=False,
                         aic_metrics=aiprof.profiler.AiCMetrics.AiCoreNone, l2_cache=False,
                         op_attr=False, data_simplification=False, record_op_args=False,
                         gc_detect_threshold=None)
        arguments.update(overrides)
        return aiprof.profiler._ExperimentalConfig(**arguments)

    def check_result_folder(self, folder, steps=None):
        """torch_npu's fixed names in the folder's output directory (seed 002 layout
        `*_ascend_pt/ASCEND_PROFILER_OUTPUT` -> `*_aiprof_pt/aiprof_output`)."""
        output = os.path.join(folder, "aiprof_output")
        files = os.listdir(output)
        for name in ("trace_view.json", "operator_details.csv", "op_statistic.csv",
                     "api_statistic.csv", "step_trace_time.csv"):
            self.assertIn(name, files)
        self.assertNotIn("step_trace_time.csv", os.listdir(os.path.join(output, "analysis")))
        self.assertFalse([f for f in files if f.startswith("EXPORT_")], files)
        self.assertTrue(os.path.isfile(os.path.join(folder, "profiler_info.json")))
        names = slice_names(os.path.join(output, "trace_view.json"))
        self.assertGreater(names["aten::addmm"], 0)
        if steps is not None:
            self.assertEqual(sorted(n for n in names if n.startswith("ProfilerStep#")), steps)
        return names

    # "Sample code" 1: the profile context manager with a schedule and the handler.
    def test_profile_with_schedule_and_handler(self):
        steps = 3
        with aiprof.profiler.profile(
                activities=[aiprof.profiler.ProfilerActivity.CPU],
                schedule=aiprof.profiler.schedule(wait=0, warmup=0, active=1, repeat=1,
                                                  skip_first=1),
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
                record_shapes=False, profile_memory=False, with_stack=False,
                with_modules=False, with_flops=False,
                experimental_config=self.experimental_config()) as prof:
            for step in range(steps):
                train_one_step(step, steps, None, MODEL, OPTIMIZER, None)
                prof.step()
        folders = result_folders("result")
        self.assertEqual(len(folders), 1)
        self.check_result_folder(folders[0], steps=["ProfilerStep#1"])

    # "Sample code" 2: start()/step()/stop() instead of with.
    def test_profile_start_step_stop(self):
        prof = aiprof.profiler.profile(
            activities=[aiprof.profiler.ProfilerActivity.CPU],
            schedule=aiprof.profiler.schedule(wait=0, warmup=0, active=1, repeat=1, skip_first=1),
            on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
            experimental_config=self.experimental_config())
        prof.start()
        for _ in range(3):
            train_one_step()
            prof.step()
        prof.stop()
        folders = result_folders("result")
        self.assertEqual(len(folders), 1)
        self.check_result_folder(folders[0], steps=["ProfilerStep#1"])

    # "Sample code" 3: export_chrome_trace without a handler.
    def test_export_chrome_trace(self):
        with aiprof.profiler.profile() as prof:
            for _ in range(2):
                train_one_step()
        prof.export_chrome_trace("./chrome_trace_14.json")
        with open("chrome_trace_14.json") as handle:
            events = json.load(handle)["traceEvents"]
        self.assertTrue(any(e.get("name") == "aten::addmm" for e in events))

    # _KinetoProfile sample: start at epoch 0, stop at epoch 1, export; also `with`.
    def test_kineto_profile(self):
        prof = aiprof.profiler._KinetoProfile(activities=None, record_shapes=False,
                                              profile_memory=False, with_stack=False,
                                              with_flops=False, with_modules=False,
                                              experimental_config=None)
        for epoch in range(3):
            train_one_step()
            if epoch == 0:
                prof.start()
            if epoch == 1:
                prof.stop()
        prof.export_chrome_trace("result_dir/trace.json".replace("result_dir/", ""))
        with open("trace.json") as handle:
            names = [e.get("name") for e in json.load(handle)["traceEvents"]]
        self.assertEqual(names.count("Optimizer.step#SGD.step"), 1)  # epoch 1 only
        with aiprof.profiler._KinetoProfile(activities=[aiprof.profiler.ProfilerActivity.CPU]) as kineto:
            train_one_step()
            kineto.add_metadata_json("sizes", json.dumps({"batch": 4}))
        self.assertEqual(kineto.metadata()["sizes"], {"batch": 4})
        self.assertGreater(sum(1 for e in kineto.events() if e.name == "aten::addmm"), 0)

    # mstx sample: ranges (stream None: host only), mark, mstx().mark; msprof_tx with
    # Level_none and the Db export; schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1).
    def test_mstx_with_db_export(self):
        range_id = aiprof.mstx.range_start("dataloader", None)
        aiprof.mstx.range_end(range_id)
        experimental_config = aiprof.profiler._ExperimentalConfig(
            profiler_level=aiprof.profiler.ProfilerLevel.Level_none, msprof_tx=True,
            export_type=aiprof.profiler.ExportType.Db)
        with aiprof.profiler.profile(
                schedule=aiprof.profiler.schedule(wait=1, warmup=1, active=2, repeat=2,
                                                  skip_first=1),
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
                experimental_config=experimental_config) as prof:
            for epoch in range(2):
                aiprof.mstx.mark("train epoch start")
                aiprof.mstx().mark("train epoch start (callable form)")
                for _ in range(5):
                    range_id = aiprof.mstx.range_start("step", None)
                    train_one_step()
                    aiprof.mstx.range_end(range_id)
                    prof.step()
        folders = result_folders("result")
        self.assertEqual(len(folders), 2)  # repeat=2
        for folder in folders:
            database = os.path.join(folder, "aiprof_output", "aiprof_pytorch_profiler.db")
            self.assertTrue(os.path.isfile(database), os.listdir(folder))
            import sqlite3

            with sqlite3.connect(database) as connection:
                tables = {row[0] for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")}
            self.assertTrue(tables)

    # The schedule sample: wait=1, warmup=1, active=2, repeat=2, skip_first=1 over 9 steps.
    def test_schedule_sample_nine_steps(self):
        with aiprof.profiler.profile(
                activities=[aiprof.profiler.ProfilerActivity.CPU],
                schedule=aiprof.profiler.schedule(wait=1, warmup=1, active=2, repeat=2,
                                                  skip_first=1),
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result")) as prof:
            for _ in range(9):
                train_one_step()
                prof.step()
        folders = result_folders("result")
        self.assertEqual(len(folders), 2)
        self.check_result_folder(folders[0], steps=["ProfilerStep#3", "ProfilerStep#4"])
        self.check_result_folder(folders[1], steps=["ProfilerStep#7", "ProfilerStep#8"])
        rows = read_csv(os.path.join(folders[0], "aiprof_output", "operator_details.csv"))
        self.assertEqual(rows[0][:2], ["Name", "Input Shapes"])

    # add_metadata / add_metadata_json land in profiler_metadata.json.
    def test_metadata(self):
        with aiprof.profiler.profile(
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result")) as prof:
            prof.add_metadata("run", "seed-002")
            prof.add_metadata_json("sizes", json.dumps({"batch": 4}))
            train_one_step()
        with open(os.path.join(result_folders("result")[0], "profiler_metadata.json")) as handle:
            metadata = json.load(handle)
        self.assertEqual(metadata["run"], "seed-002")
        self.assertEqual(metadata["sizes"], {"batch": 4})

    # export_memory_timeline sample: keyword names; device "npu:0" has no allocator events
    # on a CPU machine, which is said clearly; "cpu" writes the file.
    def test_export_memory_timeline(self):
        outcome = {}

        def trace_handler(prof):
            try:
                prof.export_memory_timeline(output_path="./memory_timeline.html", device="npu:0")
            except ValueError as error:
                outcome["npu"] = str(error)
            prof.export_memory_timeline(output_path="./memory_timeline.html", device="cpu")

        with aiprof.profiler.profile(
                activities=[aiprof.profiler.ProfilerActivity.CPU],
                schedule=aiprof.profiler.schedule(wait=0, warmup=0, active=4, repeat=1,
                                                  skip_first=0),
                on_trace_ready=trace_handler, record_shapes=True, profile_memory=True,
                with_stack=True, with_modules=True) as prof:
            for _ in range(4):
                train_one_step()
                prof.step()
        self.assertIn("no allocator event of that device", outcome["npu"])
        self.assertIn("cpu", outcome["npu"])
        self.assertTrue(os.path.getsize("memory_timeline.html") > 0)

    # The memory timeline's chart states the pool's maxima (seed 002's legend) in a unit a
    # small model reads in, and the other suffixes write torch's formats.
    def test_memory_timeline_maxima_and_units(self):
        with aiprof.profiler.profile(activities=[aiprof.profiler.ProfilerActivity.CPU],
                                     profile_memory=True, record_shapes=True) as prof:
            for _ in range(2):
                train_one_step()
        prof.export_memory_timeline("timeline.html", device="cpu")
        with open("timeline.html") as handle:
            html = handle.read()
        # This model's peak is a few hundred bytes to a few KB (the first window of a
        # process also holds one-time allocations): the chart reads in B or KB, not GB.
        pools = {p["name"]: p for p in prof._trace_data().memory_pools()}
        # The pool's dict is the memory analysis' described columns (kMemoryPoolColumns) and
        # its device: the figures memory_analysis.csv and MEMORY_POOL hold.
        self.assertEqual(set(pools["CPU"]), {"device_index", "name", "source", "samples",
                                             "peak_allocated", "peak_allocated_ts",
                                             "peak_reserved", "capacity"})
        self.assertEqual(pools["CPU"]["device_index"], -1)
        peak = pools["CPU"]["peak_allocated"]
        self.assertGreater(peak, 0)
        self.assertLess(peak, 1 << 20)
        if peak < 1024:
            self.assertIn("Max memory allocated: %d B" % peak, html)
            self.assertIn("Memory (B)", html)
        else:
            self.assertIn("Max memory allocated: %.2f KB" % (peak / 1024.0), html)
            self.assertIn("Memory (KB)", html)
        self.assertIn("Max memory reserved: ", html)
        self.assertNotIn("GB", html)
        for suffix in (".json", ".json.gz", ".raw.json.gz"):
            prof.export_memory_timeline("timeline" + suffix, device="cpu")
            opener = gzip.open if suffix.endswith(".gz") else open
            with opener("timeline" + suffix, "rt") as handle:
                self.assertTrue(json.load(handle))

    # export_stacks as the seed writes it (profiler.stacks for FlameGraph), with torch_npu's
    # device metric name too (no device time on a CPU run: an empty file).
    def test_export_stacks(self):
        with aiprof.profiler.profile(activities=[aiprof.profiler.ProfilerActivity.CPU],
                                     with_stack=True) as prof:
            train_one_step()
        prof.export_stacks("profiler.stacks", "self_cpu_time_total")
        with open("profiler.stacks") as handle:
            lines = handle.read().splitlines()
        self.assertTrue(any(line.split(" ")[0].endswith(";aten::addmm") for line in lines),
                        lines[:5])
        prof.export_stacks("npu.stacks", "self_npu_time_total")
        self.assertEqual(os.path.getsize("npu.stacks"), 0)

    # experimental_config.export_type: an invalid value is Text, with a warning (the seed:
    # "If this parameter is set to an invalid value or is not set, the default value Text
    # is used").
    def test_invalid_export_type_is_text(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            config = self.experimental_config(export_type="csv")
        self.assertEqual(config.export_type, [aiprof.profiler.ExportType.Text])
        self.assertTrue(any("export_type 'csv'" in str(w.message) for w in caught))
        self.assertEqual(self.experimental_config(export_type=None).export_type,
                         [aiprof.profiler.ExportType.Text])
        self.assertEqual(self.experimental_config(
            export_type=[aiprof.profiler.ExportType.Db, "DB"]).export_type, ["db"])
        with aiprof.profiler.profile(
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
                experimental_config=config):
            train_one_step()
        self.check_result_folder(result_folders("result")[0])

    # record_op_args: the operator-arguments file in the `_op_args` folder beside the result.
    def test_record_op_args(self):
        with aiprof.profiler.profile(
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
                experimental_config=self.experimental_config(record_op_args=True)):
            train_one_step()
        folder = result_folders("result")[0]
        rows = read_csv(os.path.join(folder + "_op_args", "operator_args.csv"))
        self.assertEqual(rows[0], ["Name", "Input Dims", "Input type", "Concrete Inputs",
                                   "Calls", "Total Duration(us)"])
        addmm = [row for row in rows[1:] if row[0] == "aten::addmm"]
        self.assertEqual(sorted(json.loads(row[1])[1] for row in addmm), [[4, 8], [4, 16]])
        self.assertEqual([row[4] for row in addmm], ["1", "1"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with aiprof.profiler.profile(
                    experimental_config=self.experimental_config(record_op_args=True)):
                train_one_step()
        self.assertTrue(any("record_op_args=True" in str(w.message) for w in caught))

    # l2_cache on a machine without the device: the CLI's --l2 note, as a warning.
    @unittest.skipIf(torch.cuda.is_available(), "the machine has a CUDA device")
    def test_l2_cache_note(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            aiprof.profiler.profile(experimental_config=self.experimental_config(l2_cache=True))
        notes = [str(w.message) for w in caught if "l2_cache=True" in str(w.message)]
        self.assertEqual(len(notes), 1, [str(w.message) for w in caught])
        self.assertIn("L2 cache metrics will not be collected", notes[0])

    # gc_detect_threshold with export_type=Db: the GC_RECORD table; META_DATA holds the
    # sampled environment variables and every add_metadata / add_metadata_json key, as
    # profiler_metadata.json does for Text.
    def test_db_gc_record_and_meta_data(self):
        import gc
        import sqlite3

        os.environ["HCCL_RDMA_TC"] = "0"  # the seed's "export HCCL_RDMA_TC=0"
        try:
            with aiprof.profiler.profile(
                    on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result"),
                    experimental_config=self.experimental_config(
                        gc_detect_threshold=0,
                        export_type=[aiprof.profiler.ExportType.Text,
                                     aiprof.profiler.ExportType.Db])) as prof:
                prof.add_metadata("run", "seed-002")
                prof.add_metadata_json("sizes", json.dumps({"batch": 4}))
                train_one_step()
                for _ in range(3):
                    gc.collect()
        finally:
            del os.environ["HCCL_RDMA_TC"]
        folder = result_folders("result")[0]
        output = os.path.join(folder, "aiprof_output")
        with sqlite3.connect(os.path.join(output, "aiprof_pytorch_profiler.db")) as db:
            gc_rows = db.execute("SELECT startNs, endNs FROM GC_RECORD").fetchall()
            meta = dict(db.execute("SELECT name, value FROM META_DATA").fetchall())
        self.assertGreaterEqual(len(gc_rows), 3)
        self.assertTrue(all(end >= start for start, end in gc_rows))
        gc_slices = slice_names(os.path.join(output, "trace_view.json"))["GC"]
        self.assertEqual(gc_slices, len(gc_rows))  # the Text export's GC layer
        self.assertEqual(meta["run"], "seed-002")
        self.assertEqual(json.loads(meta["sizes"]), {"batch": 4})
        environment = json.loads(meta["ENV_VARIABLES"])
        self.assertEqual(environment["HCCL_RDMA_TC"], "0")
        with open(os.path.join(folder, "profiler_metadata.json")) as handle:
            self.assertEqual(json.load(handle)["ENV_VARIABLES"], environment)

    # torch_npu's names after `import torch_npu` alone: aiprof.npu after `import aiprof`.
    def test_npu_names_after_package_import(self):
        code = ("import aiprof\n"
                "config = aiprof.npu.ProfileConfig(ACL_PROF_TASK_TIME=True)\n"
                "range_id = aiprof.npu.mstx.range_start('dataloader', None)\n"
                "aiprof.npu.mstx.range_end(range_id)\n"
                "aiprof.npu.mstx.mark('train epoch start')\n"
                "print(type(config).__name__, callable(aiprof.npu.prof_init),\n"
                "      callable(aiprof.dynamic_profile.init))\n")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["ProfileConfig", "True", "True"])

    # The torch.profiler idioms: key_averages().table(...), grouping by shape and stack.
    def test_key_averages_table(self):
        with aiprof.profiler.profile(record_shapes=True, with_stack=True) as prof:
            for _ in range(3):
                train_one_step()
        averages = prof.key_averages()
        table = averages.table(sort_by="self_cpu_time_total", row_limit=10)
        header = table.splitlines()[1]
        for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                       "CPU time avg", "# of Calls"):
            self.assertIn(column, header)
        self.assertIn("Self CPU time total:", table)
        rows = {row.key: row for row in averages}
        self.assertEqual(rows["aten::addmm"].count, 6)  # 3 steps x 2 Linear
        by_shape = prof.key_averages(group_by_input_shape=True)
        shapes = {str(row.input_shapes) for row in by_shape if row.key == "aten::addmm"}
        self.assertEqual(len(shapes), 2)  # the two Linear layers
        self.assertIn("Input Shapes", by_shape.table(sort_by="cpu_time_total", row_limit=5))
        by_stack = prof.key_averages(group_by_stack_n=2)
        self.assertIn("Source Location", by_stack.table(sort_by="self_cpu_time_total",
                                                        row_limit=5))

    # Offline parsing: analyse_flag=False, then profiler.analyse(profiler_path, max_process_number).
    def test_offline_analyse(self):
        with aiprof.profiler.profile(
                on_trace_ready=aiprof.profiler.tensorboard_trace_handler(
                    "./result", analyse_flag=False)):
            train_one_step()
        folder = result_folders("result")[0]
        self.assertFalse(os.path.exists(os.path.join(folder, "aiprof_output", "trace_view.json")))
        from aiprof.profiler.profiler import analyse

        self.assertEqual(analyse(profiler_path="./result", max_process_number=2),
                         [os.path.abspath(folder)])
        self.check_result_folder(folder)
        self.assertEqual(aiprof.profiler.profiler.analyse, analyse)
        with self.assertRaisesRegex(ValueError, "no \\*_aiprof_pt result folder"):
            analyse(profiler_path=self.tmp + "/nothing-here")

    # A distributed job's ranks, each with its handler: torch_npu's communication.json and
    # communication_matrix.json sit beside trace_view.json and step_trace_time.csv.
    def test_distributed_ranks_communication_files(self):
        example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                               "examples", "pytorch", "distributed_gloo.py")
        job = subprocess.run([sys.executable, example, "--world-size=2", "--steps=2",
                              "--profile-dir=" + os.path.join(self.tmp, "dist")],
                             capture_output=True, text=True, timeout=180)
        self.assertEqual(job.returncode, 0, job.stdout + job.stderr)
        folders = result_folders(os.path.join(self.tmp, "dist"))
        self.assertEqual(len(folders), 2, folders)
        for folder in folders:
            rank = 0 if os.path.basename(folder).startswith("rank0_") else 1
            output = os.path.join(folder, "aiprof_output")
            files = os.listdir(output)
            for name in ("trace_view.json", "step_trace_time.csv", "communication.json",
                         "communication_matrix.json"):
                self.assertIn(name, files)
            with open(os.path.join(output, "communication.json")) as handle:
                communication = json.load(handle)
            # The example profiles without a schedule and calls prof.step() each iteration:
            # its steps are step records (src/model/steps.h), each holding its iteration's
            # operations.
            self.assertEqual(sorted(communication), ["step0", "step1"])
            direction = "send" if rank == 0 else "recv"
            for index in (0, 1):
                step = communication["step%d" % index]
                self.assertIn("Total Op Info", step["collective"])
                self.assertEqual(list(step["p2p"]),
                                 ["gloo_%s_%d@world" % (direction, index), "Total Op Info"])
            with open(os.path.join(output, "communication_matrix.json")) as handle:
                matrix = json.load(handle)
            link = matrix[sorted(matrix)[0]]["p2p"][("send" if rank == 0 else "receive") + "-top1@world"]
            self.assertEqual(list(link), ["0-1"])

    # supported_activities() tells the truth; an activity that cannot be collected warns.
    def test_activities(self):
        supported = aiprof.profiler.supported_activities()
        self.assertIn(aiprof.profiler.ProfilerActivity.CPU, supported)
        if not torch.cuda.is_available():
            self.assertEqual(supported, [aiprof.profiler.ProfilerActivity.CPU])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                aiprof.profiler.profile(activities=[aiprof.profiler.ProfilerActivity.CPU,
                                                    aiprof.profiler.ProfilerActivity.NPU])
            self.assertTrue(any("NPU activity is not collected" in str(w.message)
                                for w in caught), [str(w.message) for w in caught])


if __name__ == "__main__":
    unittest.main()
