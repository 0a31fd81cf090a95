"""_KinetoProfile and profile: the torch.profiler / torch_npu.profiler classes on top of
the aiprof runtime. Each recorded cycle is one runtime window (one PROF_* directory);
exports read that directory back through the C++ model (RecordedWindow)."""

import atexit
import functools
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings

from .. import _native
from ._config import (
    ProfilerActivity,
    _ExperimentalConfig,
    gpu_activity_unavailable_reason,
    supported_activities,
)
from ._distributed import watch_process_group
from ._event_list import event_list, key_averages
from ._memory_timeline import MemoryTimeline, live_tensor_roles, recorded_devices
from ._python_hooks import GcDetector, ModuleHooks
from ._schedule import ProfilerAction, _default_schedule_fn
from ._recorded import RecordedWindow

# Windows recorded without an output folder go to a temporary directory. Such a window's
# raw data is deleted at exit only once its results were read (an export, key_averages(),
# events()) or a handler took it into its folder: data nobody read is kept, and said where.
_temporary_dirs = []
_unread_windows = {}  # PROF_* directory in a temporary directory -> its temporary directory


def _python_tracer_hook(frame, event, arg):
    _native.runtime().set_python_tracer_on_this_thread(True)


def _window_read(prof_dir):
    _unread_windows.pop(prof_dir, None)


@atexit.register
def _remove_temporary_dirs():
    kept = {}
    for prof_dir, directory in _unread_windows.items():
        if os.path.isdir(prof_dir):
            kept.setdefault(directory, []).append(prof_dir)
    for directory in _temporary_dirs:
        if directory in kept:
            sys.stderr.write(
                "aiprof: the raw data of %d profiling window(s) whose results were never read "
                "is kept in %s; `aiprof export --output=%s` writes the timeline and summaries "
                "(delete the folder when it is not needed)\n"
                % (len(kept[directory]), directory, directory))
            continue
        shutil.rmtree(directory, ignore_errors=True)


class _KinetoProfile:
    """Low-level profiler: start()/stop() one window, then export."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None):
        self.activities = set(activities) if activities else set(supported_activities())
        unknown = [a for a in self.activities if not isinstance(a, ProfilerActivity)]
        if unknown:
            raise ValueError("activities must be ProfilerActivity values, got %r" % unknown)
        gpu = sorted(a.value for a in self.activities
                     if a in (ProfilerActivity.CUDA, ProfilerActivity.NPU))
        reason = gpu_activity_unavailable_reason() if gpu else None
        if reason is not None:
            warnings.warn("aiprof: %s activity is not collected: %s; only CPU activity is "
                          "recorded" % ("/".join(gpu), reason), stacklevel=2)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config or _ExperimentalConfig()
        self._warn_about_uncollectable(gpu, reason)
        self._metadata = {}
        self._window = None
        self._prof_dir = None
        self._trace = None
        self._event_list = None
        self._output_parent = None  # set by tensorboard_trace_handler for each cycle
        self._module_hooks = None
        self._gc_detector = None
        self._joined_launcher_window = False
        self._op_args_warned = False
        self._temporary_output = None
        self.start_time_ns = 0
        self.end_time_ns = 0

    def _warn_about_uncollectable(self, gpu_activities, gpu_reason):
        """What the experimental config asks for that this machine or setup cannot give,
        said once here rather than silently missing from the output."""
        config = self.experimental_config
        if config.l2_cache:
            reason = gpu_reason if gpu_activities else gpu_activity_unavailable_reason()
            if reason is not None:
                # The CLI's --l2 note, for the same missing device.
                warnings.warn("aiprof: l2_cache=True: %s; L2 cache metrics will not be "
                              "collected" % reason, stacklevel=3)

    # ---- window lifecycle ----------------------------------------------------------

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        _native.runtime()
        if ProfilerActivity.CPU in self.activities and self.experimental_config.task_time() != "off":
            _native.attach_torch()

    def _data_types(self, native):
        types = 0
        if ProfilerActivity.CPU in self.activities:
            types |= native.TYPE_TASK_TIME
        if self.experimental_config.msprof_tx:
            types |= native.TYPE_MSTX
        if self.profile_memory:
            types |= native.TYPE_MEMORY
        if self.record_shapes or self.experimental_config.record_op_args:
            types |= native.TYPE_SHAPES
        if self.with_stack:
            types |= native.TYPE_STACK
        if ProfilerActivity.CUDA in self.activities or ProfilerActivity.NPU in self.activities:
            types |= native.TYPE_RUNTIME_API
        return types

    def _options(self):
        config = self.experimental_config
        task_time = config.task_time() if ProfilerActivity.CPU in self.activities else "off"
        options = {
            "mode": "api",
            "task_time": task_time,
            # record_op_args writes each operator's arguments: it needs them recorded.
            "record_shapes": bool(self.record_shapes or config.record_op_args),
            "profile_memory": bool(self.profile_memory),
            "with_stack": bool(self.with_stack),
            "with_modules": bool(self.with_modules),
            "with_flops": bool(self.with_flops),
            "msproftx": config.msprof_tx,
        }
        # Both CUDA APIs follow the device activity: AIPROF_OPTIONS keeps msprof's names,
        # "ascendcl" the runtime API and "runtime_api" the driver API (docs/cli.md), and
        # each is on unless set.
        device = ProfilerActivity.CUDA in self.activities or ProfilerActivity.NPU in self.activities
        options["ascendcl"] = options["runtime_api"] = device
        if config.l2_cache and gpu_activity_unavailable_reason() is None:
            options["l2"] = True  # the CUDA source's L2 hit rates per kernel (docs/cuda.md)
        if config.mstx_domain_include:
            options["mstx_domain_include"] = config.mstx_domain_include
        if config.mstx_domain_exclude:
            options["mstx_domain_exclude"] = config.mstx_domain_exclude
        return options

    def start_trace(self):
        native = _native.runtime()
        self._trace = None
        self._event_list = None
        self._prof_dir = None
        if native.is_collecting():
            # Started by the `aiprof` launcher: its window already records everything.
            self._joined_launcher_window = True
            self.start_time_ns = time.time_ns()
            self._record_metadata(native)
            return
        output = self._output_parent
        self._temporary_output = None
        if output is None:
            output = tempfile.mkdtemp(prefix="aiprof_")
            _temporary_dirs.append(output)
            if self.experimental_config.record_op_args and not self._op_args_warned:
                self._op_args_warned = True
                warnings.warn("aiprof: record_op_args=True writes operator_args.csv into the "
                              "result folder's _op_args twin, which tensorboard_trace_handler "
                              "creates; without it, export_chrome_trace's trace holds each "
                              "operator's arguments (Input Dims, Input type, Concrete Inputs)",
                              stacklevel=3)
            self._temporary_output = output
        os.makedirs(output, exist_ok=True)
        native.init(output)
        window = native.Window(self._data_types(native))
        window.set_option("output", json.dumps(output))
        for key, value in self._options().items():
            window.set_option(key, json.dumps(value))
        self.start_time_ns = time.time_ns()
        window.start()
        self._window = window
        self._record_metadata(native)
        watch_process_group(native)
        if self.with_stack:
            # Threads that exist now get the tracer at once, threads started later at their
            # first Python call (threading's profile hook hands over to the native one).
            threading.setprofile(_python_tracer_hook)
            native.set_python_tracer(True)
        if self.with_modules:
            self._module_hooks = ModuleHooks(native)
        if self.experimental_config.gc_detect_threshold is not None:
            self._gc_detector = GcDetector(native, self.experimental_config.gc_detect_threshold)

    def stop_trace(self):
        native = _native.runtime()
        if self._joined_launcher_window:
            # The launcher's window stays open; exports read what it has flushed so far.
            self._joined_launcher_window = False
            self._record_memory_roles(native)
            self.end_time_ns = time.time_ns()
            self._prof_dir = native.current_dir() or None
            return
        if self._window is None:
            return
        if self.with_stack:
            threading.setprofile(None)
            native.set_python_tracer(False)
        for hooks in (self._module_hooks, self._gc_detector):
            if hooks is not None:
                hooks.remove()
        self._module_hooks = self._gc_detector = None
        self._record_memory_roles(native)
        try:
            self._window.stop()
        finally:
            self._window = None
        self.end_time_ns = time.time_ns()
        self._prof_dir = native.current_dir()
        if self._temporary_output is not None and self._prof_dir:
            _unread_windows[self._prof_dir] = self._temporary_output

    def _record_memory_roles(self, native):
        """Which storages are parameters, gradients and optimizer state now, in the window's
        metadata: the memory analysis categorises the blocks still allocated at the end by
        them (src/analysis/memory.h)."""
        if self.profile_memory:
            native.add_metadata("memory_roles", json.dumps(live_tensor_roles()))

    def _adopt_window(self, directory):
        """Puts the last window's PROF_* directory into `directory` (a handler's folder) when
        it was recorded elsewhere: moved out of the window's temporary directory (on_trace_ready
        wraps the handler, so the window could not be opened inside its folder), copied when
        another handler's folder already holds it (one window given to two handlers). Returns
        the path of the data for this folder; when it cannot be placed there it stays where
        it is, and a warning says where."""
        prof_dir = self._prof_dir
        if not prof_dir or self._joined_launcher_window:
            return prof_dir
        if os.path.dirname(os.path.abspath(prof_dir)) == os.path.abspath(directory):
            return prof_dir
        target = os.path.join(directory, os.path.basename(prof_dir))
        temporary = self._temporary_output is not None and \
            os.path.dirname(os.path.abspath(prof_dir)) == os.path.abspath(self._temporary_output)
        try:
            if temporary:
                shutil.move(prof_dir, target)
            else:
                shutil.copytree(prof_dir, target)
        except OSError as error:
            warnings.warn("aiprof: could not place the profiling data %s into %s (%s); it stays "
                          "in %s" % (prof_dir, directory, error, prof_dir), stacklevel=2)
            return prof_dir
        if not temporary:
            return target
        _unread_windows.pop(prof_dir, None)
        self._prof_dir = target
        if self._trace is not None:
            self._trace.prof_dirs = [target]
        return target

    # ---- results -------------------------------------------------------------------

    @property
    def prof_dir(self):
        """The PROF_* directory of the last recorded window."""
        return self._prof_dir

    def _trace_data(self):
        if self._trace is None:
            if not self._prof_dir:
                raise RuntimeError("no recorded window: call start()/stop() (or step through "
                                   "an active schedule) before exporting")
            self._trace = RecordedWindow([self._prof_dir])
            self._event_list = None
            _window_read(self._prof_dir)
        return self._trace

    def events(self):
        """torch's EventList of FunctionEvents (parents and children linked, memory
        figures from the memory analysis), built once per recorded window."""
        if self._event_list is None:
            use_cuda = ProfilerActivity.CUDA in self.activities or \
                ProfilerActivity.NPU in self.activities
            self._event_list = event_list(self._trace_data(), self.with_flops,
                                          self.profile_memory, use_cuda)
        return self._event_list

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """torch's EventList of FunctionEventAvg (``.table(sort_by=..., row_limit=...)``)."""
        return key_averages(self.events(), group_by_input_shape, group_by_stack_n)

    def _record_metadata(self, native):
        """Metadata and the profiler's flags go into the window's raw data ("user.<key>"),
        where the trace writer finds them: the trace of export_chrome_trace and of
        `aiprof export` carry them alike, as top-level keys. The runtime keeps metadata
        for the process, so a flag that is off is set to null (left out of the trace) rather
        than inherited from an earlier window."""
        metadata = dict(self._metadata)
        for flag in ("profile_memory", "with_stack", "record_shapes", "with_modules",
                     "with_flops"):
            metadata[flag] = 1 if getattr(self, flag) else None
        for key, value in metadata.items():
            native.add_metadata("user." + key, json.dumps(value))

    def export_chrome_trace(self, path):
        """The Kineto JSON trace, by the C++ writer `aiprof export` uses."""
        self._trace_data().write_chrome_trace(path)
        return path

    def export_stacks(self, path, metric="self_cpu_time_total"):
        lines = self._trace_data().folded_stacks(metric)
        with open(path, "w") as handle:
            for line in lines:
                handle.write(line + "\n")

    def export_memory_timeline(self, output_path, device=None):
        """torch's ``export_memory_timeline(output_path, device)``: the suffix of
        ``output_path`` picks the format (.html, .json, .json.gz, .raw.json.gz). ``device``
        is "cpu" or "cuda:N" ("npu:N" is read as "cuda:N"); default: the current CUDA
        device if there is one, else "cpu"."""
        if not self.profile_memory:
            raise RuntimeError("export_memory_timeline needs profile_memory=True")
        if device is None:
            import torch

            device = "cuda:0" if torch.cuda.is_available() else "cpu"
        device = str(device)
        if device.startswith("npu"):
            device = "cuda" + device[3:]
        trace = self._trace_data()
        timeline = MemoryTimeline(trace, device)
        if not timeline.allocator_totals:
            recorded = recorded_devices(trace)
            raise ValueError(
                "export_memory_timeline(device=%r): no allocator event of that device was "
                "recorded in this window (devices with events: %s); pass one of those "
                "(\"cpu\" for CPU tensors, \"cuda:N\" or \"npu:N\" for GPU N)"
                % (device, ", ".join(recorded) if recorded else "none"))
        timeline.export(output_path)

    def memory_timeline(self, device="cpu"):
        return MemoryTimeline(self._trace_data(), device)

    def add_metadata(self, key, value):
        """A string value (stored as given)."""
        self._add_metadata(key, str(value))

    def add_metadata_json(self, key, value):
        """A JSON text value (parsed, stored as JSON)."""
        self._add_metadata(key, json.loads(value))

    def _add_metadata(self, key, value):
        self._metadata[key] = value
        if self._window is not None or self._joined_launcher_window:
            _native.runtime().add_metadata("user." + key, json.dumps(value))

    def metadata(self):
        return dict(self._metadata)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()


class profile(_KinetoProfile):
    """torch.profiler.profile with aiprof underneath: context manager or start/step/stop,
    an optional schedule, and on_trace_ready called after each RECORD_AND_SAVE step."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, use_cuda=None):
        if use_cuda is not None:
            activities = set(activities or [ProfilerActivity.CPU])
            if use_cuda:
                activities.add(ProfilerActivity.CUDA)
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config)
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        self._open_step_record = None
        self.traces_ready = 0
        N, W, R, S = (ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
                      ProfilerAction.RECORD_AND_SAVE)
        warn = functools.partial
        self.action_map = {
            (N, N): [], (N, W): [self.prepare_trace],
            (N, R): [self.prepare_trace, self.start_trace],
            (N, S): [self.prepare_trace, self.start_trace],
            (W, N): [warn(warnings.warn, "Incorrect schedule: WARMUP followed by NONE"),
                     self.start_trace, self.stop_trace],
            (W, W): [], (W, R): [self.start_trace], (W, S): [self.start_trace],
            (R, N): [warn(warnings.warn, "Incorrect schedule: RECORD followed by NONE"),
                     self.stop_trace],
            (R, W): [warn(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP"),
                     self.stop_trace],
            (R, R): [], (R, S): [],
            (S, N): [self.stop_trace, self._trace_ready],
            (S, W): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (S, R): [self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (S, S): [self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (W, None): [self.start_trace, self.stop_trace],
            (R, None): [self.stop_trace, self._trace_ready],
            (S, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self):
        self._exit_step()
        self._transit_action(self.current_action, None)

    def step(self):
        self._exit_step()
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        self._enter_step()

    # With a schedule each step is a "ProfilerStep#N" record_function, as torch.profiler
    # records it. Without one torch records nothing, but prof.step() still says where a step
    # ends: the step becomes a step record of this profile's own window (shown as
    # ProfilerStep#N too), so --iteration-id and the per-step analyses have it.
    def _enter_step(self):
        if self.record_steps:
            import torch

            self.step_rec_fn = torch.autograd.profiler.record_function(
                "ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()
        elif self._window is not None:
            _native.runtime().step_begin(self.step_num)
            self._open_step_record = self.step_num

    def _exit_step(self):
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        elif self._open_step_record is not None:
            if self._window is not None:
                _native.runtime().step_end(self._open_step_record)
            self._open_step_record = None

    def start_trace(self):
        prepare = getattr(self.on_trace_ready, "_aiprof_prepare", None)
        self._output_parent = prepare(self) if prepare is not None else None
        super().start_trace()

    def _trace_ready(self):
        self.traces_ready += 1
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()
