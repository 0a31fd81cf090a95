"""tensorboard_trace_handler: each recorded cycle becomes a
`{worker}_{YYYYmmddHHMMSSfff}_aiprof_pt/` directory (profiler_info.json,
profiler_metadata.json, the PROF_* raw data, aiprof_output/ from `aiprof export`) plus a
Kineto-named `{worker}.{time_ns}.pt.trace.json` beside it for TensorBoard and HTA, and with
record_op_args a `..._aiprof_pt_op_args/` folder beside the directory."""

import datetime
import json
import os
import socket
import subprocess
import sys
import time

from .. import __version__, _native

class tensorboard_trace_handler:
    def __init__(self, dir_name, worker_name=None, analyse_flag=True, async_mode=False,
                 use_gzip=False):
        self.dir_name = os.path.abspath(dir_name)
        self.worker_name = worker_name or "%s_%d" % (socket.gethostname(), os.getpid())
        self.analyse_flag = analyse_flag
        self.use_gzip = use_gzip
        self.trace_dirs = []
        self.kineto_traces = []
        self._current = None

    def _aiprof_prepare(self, _prof):
        stamp = datetime.datetime.now().strftime("%Y%m%d%H%M%S%f")[:-3]
        directory = os.path.join(self.dir_name, "%s_%s_aiprof_pt" % (self.worker_name, stamp))
        suffix = 1
        while os.path.exists(directory):
            directory = os.path.join(self.dir_name, "%s_%s_%d_aiprof_pt" % (
                self.worker_name, stamp, suffix))
            suffix += 1
        os.makedirs(directory)
        self._current = directory
        return directory

    def __call__(self, prof):
        directory = self._current or self._aiprof_prepare(prof)
        self._current = None
        self.trace_dirs.append(directory)
        _write_json(os.path.join(directory, "profiler_info.json"), _profiler_info(prof))
        suffix = ".pt.trace.json.gz" if self.use_gzip else ".pt.trace.json"
        kineto = os.path.join(self.dir_name, "%s.%d%s" % (self.worker_name, time.time_ns(),
                                                          suffix))
        metadata = dict(prof.metadata())
        # The variables the runtime sampled for this window, as the database's META_DATA
        # holds them (one list, one record: src/runtime/metadata.cc).
        metadata["ENV_VARIABLES"] = prof._trace_data().environment() if prof.prof_dir else {}
        _write_json(os.path.join(directory, "profiler_metadata.json"), metadata)
        if prof.prof_dir:
            # Called through a wrapper (on_trace_ready=lambda p: handler(p)), the handler could
            # not open the window in its folder: the data moves there now, before any export.
            prof_dir = prof._adopt_window(directory)
            prof.export_chrome_trace(kineto)
            self.kineto_traces.append(kineto)
            if prof.experimental_config.record_op_args:
                write_operator_arguments(prof._trace_data(), directory + "_op_args")
            if self.analyse_flag:
                exported = _run_exporter(prof_dir, os.path.join(directory, "aiprof_output"),
                                         prof.experimental_config.export_type)
                if exported and prof.experimental_config.data_simplification:
                    simplify_prof_dir(prof_dir)


def write_operator_arguments(trace, directory):
    """record_op_args: torch_npu's `{worker}_{timestamp}_ascend_pt_op_args` folder, here
    `..._aiprof_pt_op_args/operator_args.csv`: each framework operator with each distinct
    set of arguments it was called with (Input Dims, Input type, Concrete Inputs, as the
    trace records them) and how often and how long."""
    import csv

    calls = {}
    for event in trace.operators():
        key = (event.name, event._input_dims or "", event._input_types or "",
               event._concrete_inputs or "")
        count, total_ns = calls.get(key, (0, 0))
        calls[key] = (count + 1, total_ns + event.end_ns - event.start_ns)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "operator_args.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Name", "Input Dims", "Input type", "Concrete Inputs", "Calls",
                         "Total Duration(us)"])
        for (name, dims, types, concrete), (count, total_ns) in sorted(calls.items()):
            writer.writerow([name, dims, types, concrete, count, "%.3f" % (total_ns / 1000.0)])
    return path


def _profiler_info(prof):
    import torch

    schedule = getattr(prof, "schedule", None)
    return {
        "config": {
            "common_config": {
                "activities": sorted(a.value for a in prof.activities),
                "schedule": getattr(schedule, "__qualname__", str(schedule)),
                "record_shapes": prof.record_shapes,
                "profile_memory": prof.profile_memory,
                "with_stack": prof.with_stack,
                "with_flops": prof.with_flops,
                "with_modules": prof.with_modules,
            },
            "experimental_config": prof.experimental_config.to_dict(),
        },
        "start_info": {"collectionTimeBegin": prof.start_time_ns},
        "end_info": {"collectionTimeEnd": prof.end_time_ns},
        "prof_dir": os.path.basename(prof.prof_dir or ""),
        "step_num": getattr(prof, "step_num", None),
        "aiprof_version": __version__,
        "torch_version": torch.__version__,
        "python": sys.version.split()[0],
        "rank_id": _rank_id(),
    }


def _rank_id():
    """The default process group's rank once torch.distributed is initialised (ranks
    started by torch.multiprocessing.spawn have no RANK), else RANK, else -1."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except ImportError:
        pass
    return int(os.environ.get("RANK", "-1"))


def _run_exporter(prof_dir, output_dir, export_types):
    """`aiprof export` of a PROF_* directory inside a `*_aiprof_pt` folder writes the
    deliverables straight into the folder's aiprof_output/ with torch_npu's fixed names
    (trace_view.json, step_trace.csv, ..., aiprof_pytorch_profiler.db). A missing CLI
    or a failed export is reported in aiprof_output/ rather than failing the training job."""
    cli = _native.find_cli()
    os.makedirs(output_dir, exist_ok=True)
    if cli is None:
        with open(os.path.join(output_dir, "EXPORT_SKIPPED.txt"), "w") as handle:
            handle.write("the aiprof CLI was not found; run `aiprof export --output=%s` later\n"
                         % prof_dir)
        return False
    ok = True
    for export_type in export_types:
        command = [cli, "export", "--output=" + prof_dir, "--type=" + export_type]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            ok = False
            with open(os.path.join(output_dir, "EXPORT_FAILED.txt"), "a") as handle:
                handle.write("`%s` exited with %d:\n%s%s" % (
                    " ".join(command), result.returncode, result.stdout, result.stderr))
    return ok


def _is_raw_data(relative):
    """The raw performance data a PROF_* directory keeps: info.json and the files under
    host/data/ and device_*/data/ (what `aiprof export` reads to rebuild every output)."""
    parts = relative.split(os.sep)
    if parts == ["info.json"]:
        return True
    return len(parts) == 3 and parts[1] == "data" and (
        parts[0] == "host" or parts[0].startswith("device_"))


def simplify_prof_dir(prof_dir):
    """data_simplification, as torch_npu does it after a successful export: only the raw
    performance data stays in PROF_* (and aiprof_output/ beside it); everything else there
    (export byproducts, logs, temporary files, then empty folders) is deleted. Returns the
    deleted paths, relative to prof_dir."""
    deleted = []
    for root, dirs, files in os.walk(prof_dir, topdown=False):
        for name in files:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, prof_dir)
            if not _is_raw_data(relative):
                os.remove(path)
                deleted.append(relative)
        for name in dirs:
            path = os.path.join(root, name)
            if os.path.islink(path):
                os.remove(path)
                deleted.append(os.path.relpath(path, prof_dir))
            elif not os.listdir(path):
                os.rmdir(path)
                deleted.append(os.path.relpath(path, prof_dir))
    return sorted(deleted)


def _write_json(path, value):
    with open(path, "w") as handle:
        json.dump(value, handle, indent=2, default=str)



