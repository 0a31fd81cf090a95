"""What one or more collection windows recorded, as the C++ model holds it (src/model,
through the extension's RecordedModel): the Kineto trace written by the exporter that
`aiprof export` uses, and the model's operators and allocator events for key_averages(),
events(), export_stacks() and the memory timeline. Nothing here decodes raw records."""

import gzip
import json
import os
import shutil


class Event:
    """One operator, shaped like torch.autograd.profiler_util.FunctionEvent (times in us)."""

    __slots__ = (
        "id", "name", "pid", "tid", "start_ns", "end_ns", "self_ns", "is_user_annotation",
        "closed", "backward", "record_id", "sequence_nr", "fwd_thread", "flops",
        "_input_dims", "_input_types", "_concrete_inputs", "stack", "module_hierarchy",
        "parent", "self_cpu_memory", "cpu_memory", "self_device_memory", "device_memory",
    )

    @property
    def time_range_us(self):
        return (self.start_ns / 1000.0, self.end_ns / 1000.0)

    @property
    def cpu_time_total(self):
        return (self.end_ns - self.start_ns) / 1000.0

    @property
    def self_cpu_time_total(self):
        return self.self_ns / 1000.0

    # Inputs (record_shapes) stay the model's JSON text until asked for: most exports never
    # read them.
    @property
    def input_shapes(self):
        return json.loads(self._input_dims) if self._input_dims else None

    @property
    def input_types(self):
        return json.loads(self._input_types) if self._input_types else None

    @property
    def concrete_inputs(self):
        return json.loads(self._concrete_inputs) if self._concrete_inputs else None

    def __repr__(self):
        return "<Event %s %.3fus>" % (self.name, self.cpu_time_total)


class RecordedWindow:
    def __init__(self, prof_dirs):
        from .. import _native

        self.prof_dirs = list(prof_dirs)
        self._model = _native._aiprof.RecordedModel(self.prof_dirs)
        self.dropped = self._model.dropped
        self.problems = self._model.problems
        self._events = None
        self._memory_events = None
        self._steps = None

    @property
    def events(self):
        """Every operator and record_function range, by start time (outer first)."""
        if self._events is None:
            self._events = _events_from_columns(self._model.operators())
        return self._events

    def operators(self, include_user_annotations=False):
        return [e for e in self.events if include_user_annotations or not e.is_user_annotation]

    def steps(self):
        """The model's steps (src/model/steps.h: the one place steps are found), by step
        id, as dicts: id, step (the user's number), loop, label, pid, tid, start_ns,
        end_ns, has_range."""
        if self._steps is None:
            c = self._model.steps()
            keys = ("id", "step", "loop", "label", "pid", "tid", "start_ns", "end_ns",
                    "has_range")
            self._steps = [dict(zip(keys, row)) for row in zip(*(c[k] for k in keys))]
        return self._steps

    def memory_events(self):
        """Allocator events as (pid, tid, ts_ns, address, bytes, total_allocated,
        total_reserved, device_type, device_index, out_of_memory, outside_operators,
        category) tuples; outside_operators: the memory analysis found no operator around it
        on its thread; category: the memory analysis' category of the event's block (index
        into torch's memory timeline categories; -1: none, a block allocated earlier)."""
        if self._memory_events is None:
            c = self._model.memory()
            self._memory_events = list(zip(
                c["pid"], c["tid"], c["ts_ns"], c["address"], c["bytes"], c["total_allocated"],
                c["total_reserved"], c["device_type"], c["device_index"], c["out_of_memory"],
                c["outside_operators"], c["category"]))
        return self._memory_events

    def memory_pools(self):
        """The memory analysis' pools: dicts of device_index and the pool's described columns
        (src/analysis/memory.h, kMemoryPoolColumns): name ("CPU", "CUDA:0", ...), source,
        samples, peak_allocated, peak_allocated_ts (ns), peak_reserved (bytes; None: not
        reported) and capacity (bytes; 0: not recorded)."""
        return self._model.memory_pools()

    def environment(self):
        """The environment variables the runtime sampled for the window, name -> value."""
        return self._model.environment()

    @property
    def start_ns(self):
        """When the first window of the data started (realtime ns), else its first event."""
        return self._model.start_ns

    def write_chrome_trace(self, path):
        """The Kineto JSON trace; gzip-compressed when `path` ends in .gz."""
        trace_name = os.path.abspath(path)
        if not path.endswith(".gz"):
            self._model.write_chrome_trace(path, trace_name)
            return
        plain = path + ".json.tmp"
        try:
            self._model.write_chrome_trace(plain, trace_name)
            temporary = path + ".tmp"
            with open(plain, "rb") as source, gzip.open(temporary, "wb") as target:
                shutil.copyfileobj(source, target, 1 << 20)
            os.replace(temporary, path)
        finally:
            if os.path.exists(plain):
                os.remove(plain)

    def folded_stacks(self, metric="self_cpu_time_total"):
        """FlameGraph folded lines: root frame first, ';' between frames, then the value
        in us, as torch.profiler writes them (Python frames with with_stack, else the
        enclosing operators), with the operator itself as the leaf frame."""
        # torch_npu names the device metric self_npu_time_total (seed 002's export_stacks).
        if metric not in ("self_cpu_time_total", "self_cuda_time_total", "self_device_time_total",
                          "self_npu_time_total"):
            raise ValueError("metric must be self_cpu_time_total, self_cuda_time_total or "
                             "self_npu_time_total")
        if metric != "self_cpu_time_total":
            return []  # no device time on CPU-only data
        table = str.maketrans(" ;\t\n", "____")
        lines = []
        for event in self.operators():
            value = int(event.self_ns / 1000)
            if value <= 0:
                continue
            if event.stack:
                frames = [frame.translate(table) for frame in reversed(event.stack)]
            else:  # without with_stack the enclosing operators are the frames
                frames = []
                parent = event.parent
                while parent is not None:
                    frames.append(parent.name.translate(table))
                    parent = parent.parent
                frames.reverse()
            frames.append(event.name.translate(table))
            lines.append("%s %d" % (";".join(frames), value))
        return lines


def _events_from_columns(c):
    events = []
    columns = zip(c["pid"], c["tid"], c["start_ns"], c["end_ns"], c["self_ns"], c["name"],
                  c["user_annotation"], c["closed"], c["backward"], c["record_id"],
                  c["sequence_nr"], c["fwd_thread"], c["flops"], c["input_dims"],
                  c["input_types"], c["concrete_inputs"], c["call_stack"],
                  c["module_hierarchy"], c["self_cpu_memory"], c["cpu_memory"],
                  c["self_device_memory"], c["device_memory"])
    for index, row in enumerate(columns):
        event = Event()
        (event.pid, event.tid, event.start_ns, event.end_ns, event.self_ns, event.name,
         event.is_user_annotation, event.closed, event.backward, event.record_id,
         event.sequence_nr, event.fwd_thread, event.flops, event._input_dims,
         event._input_types, event._concrete_inputs, stack, event.module_hierarchy,
         event.self_cpu_memory, event.cpu_memory, event.self_device_memory,
         event.device_memory) = row
        event.id = index
        event.stack = stack.split(";") if stack else []
        events.append(event)
    for event, parent in zip(events, c["parent"]):
        event.parent = events[parent] if parent >= 0 else None
    return events
