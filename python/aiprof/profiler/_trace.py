"""Assembles what one collection window recorded (read from its PROF_* directory by the
native reader) into operators with self time, call stacks and module hierarchy, and
writes the Kineto-shaped Chrome trace and folded stacks from it."""

import bisect
import gzip
import json
import os
import socket

_USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function / ProfilerStep#N


class Event:
    """One operator, shaped like torch.autograd.profiler_util.FunctionEvent (times in us)."""

    __slots__ = (
        "id", "name", "pid", "tid", "start_ns", "end_ns", "scope", "record_id",
        "sequence_nr", "fwd_thread", "thread", "input_shapes", "input_types",
        "concrete_inputs", "stack", "module_hierarchy", "self_ns", "parent", "closed",
        "flops",
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

    @property
    def is_user_annotation(self):
        return self.scope == _USER_SCOPE

    def __repr__(self):
        return "<Event %s %.3fus>" % (self.name, self.cpu_time_total)


class TraceData:
    def __init__(self, raw, prof_dir):
        self.prof_dir = prof_dir
        self.raw = raw
        self.dropped = raw["dropped"]
        self.problems = raw["problems"]
        self.thread_names = raw["thread_names"]
        self.pid = raw["ops"][0][0] if raw["ops"] else os.getpid()
        self.events = []
        for index, op in enumerate(raw["ops"]):
            event = Event()
            (event.pid, event.tid, event.start_ns, event.end_ns, event.name, event.scope,
             event.record_id, event.sequence_nr, event.fwd_thread, event.thread,
             event.input_shapes, event.input_types, event.concrete_inputs, event.closed,
             event.flops) = op
            event.id = index
            event.stack = []
            event.module_hierarchy = ""
            event.self_ns = event.end_ns - event.start_ns
            event.parent = None
            self.events.append(event)
        self._nest_operators()
        self._attach_spans(raw["python_calls"], "stack")
        self._attach_spans(raw["modules"], "module_hierarchy")

    @classmethod
    def read(cls, prof_dir):
        from .. import _native

        return cls(_native._aiprof.read_prof_dir(prof_dir), prof_dir)

    # ---- structure ------------------------------------------------------------------

    def _by_thread(self, items, tid_of):
        threads = {}
        for item in items:
            threads.setdefault(tid_of(item), []).append(item)
        return threads

    def _nest_operators(self):
        for events in self._by_thread(self.events, lambda e: (e.pid, e.tid)).values():
            events.sort(key=lambda e: (e.start_ns, -e.end_ns, e.record_id))
            stack = []
            for event in events:
                while stack and stack[-1].end_ns <= event.start_ns and stack[-1] is not event:
                    stack.pop()
                if stack:
                    event.parent = stack[-1]
                    stack[-1].self_ns -= event.end_ns - event.start_ns
                stack.append(event)

    def _attach_spans(self, spans, attribute):
        """Python frames (innermost first) or the module path enclosing each operator."""
        if not spans:
            return
        spans_by_thread = self._by_thread(spans, lambda s: (s[0], s[1]))
        for key, events in self._by_thread(self.events, lambda e: (e.pid, e.tid)).items():
            thread_spans = sorted(spans_by_thread.get(key, []), key=lambda s: (s[2], -s[3]))
            if not thread_spans:
                continue
            starts = [s[2] for s in thread_spans]
            stack = []
            position = 0
            for event in sorted(events, key=lambda e: e.start_ns):
                limit = bisect.bisect_right(starts, event.start_ns)
                while position < limit:
                    span = thread_spans[position]
                    while stack and stack[-1][3] <= span[2]:
                        stack.pop()
                    stack.append(span)
                    position += 1
                while stack and stack[-1][3] < event.start_ns:
                    stack.pop()
                if attribute == "stack":
                    event.stack = [s[4] for s in reversed(stack)]
                else:
                    event.module_hierarchy = ".".join(s[4].replace("nn.Module: ", "") for s in stack)

    # ---- queries --------------------------------------------------------------------

    def operators(self, include_user_annotations=False):
        return [e for e in self.events if include_user_annotations or e.scope != _USER_SCOPE]

    def steps(self):
        """ProfilerStep#N user annotations as (step, start_ns, end_ns)."""
        steps = []
        for event in self.events:
            if event.scope == _USER_SCOPE and event.name.startswith("ProfilerStep#"):
                steps.append((int(event.name.split("#", 1)[1]), event.start_ns, event.end_ns))
        return sorted(steps)

    # ---- exports --------------------------------------------------------------------

    def chrome_trace(self, metadata=None, trace_name=""):
        events = []
        base_ns = min((e.start_ns for e in self.events), default=0)
        for span in self.raw["python_calls"] + self.raw["gcs"] + self.raw["ranges"]:
            base_ns = min(base_ns, span[2]) if base_ns else span[2]

        def us(ns):
            return round(max(ns - base_ns, 0) / 1000.0, 3)

        def dur(end_ns, start_ns):
            return round(max(end_ns - start_ns, 0) / 1000.0, 3)

        pids = set()
        threads = set()
        for event in self.events:
            pids.add(event.pid)
            threads.add((event.pid, event.tid))
            args = {"External id": event.record_id, "Record function id": event.record_id,
                    "Ev Idx": event.id}
            if event.sequence_nr >= 0:
                args["Fwd thread id"] = event.fwd_thread or event.thread
                args["Sequence number"] = event.sequence_nr
            if event.input_shapes is not None:
                args["Input Dims"] = event.input_shapes
                args["Input type"] = event.input_types
                if any(event.concrete_inputs):
                    args["Concrete Inputs"] = event.concrete_inputs
            if event.flops:
                args["flops"] = event.flops
            if event.stack:
                args["Call stack"] = ";".join(event.stack)
            if event.module_hierarchy:
                args["Module Hierarchy"] = event.module_hierarchy
            events.append({
                "ph": "X", "cat": "user_annotation" if event.scope == _USER_SCOPE else "cpu_op",
                "name": event.name, "pid": event.pid, "tid": event.tid,
                "ts": us(event.start_ns), "dur": dur(event.end_ns, event.start_ns),
                "args": args,
            })
        events.extend(self._fwdbwd_flows(us))
        for python_id, call in enumerate(self.raw["python_calls"]):
            events.append({"ph": "X", "cat": "python_function", "name": call[4], "pid": call[0],
                           "tid": call[1], "ts": us(call[2]), "dur": dur(call[3], call[2]),
                           "args": {"Python id": python_id}})
        for module in self.raw["modules"]:
            events.append({"ph": "X", "cat": "python_function", "name": module[4],
                           "pid": module[0], "tid": module[1], "ts": us(module[2]),
                           "dur": dur(module[3], module[2]), "args": {}})
        for gc_event in self.raw["gcs"]:
            events.append({"ph": "X", "cat": "gc", "name": "GC", "pid": gc_event[0], "tid": "GC",
                           "ts": us(gc_event[2]), "dur": dur(gc_event[3], gc_event[2]),
                           "args": {"generation": gc_event[5], "thread": gc_event[1]}})
        for range_event in self.raw["ranges"]:
            events.append({"ph": "X", "cat": "user_annotation", "name": range_event[4],
                           "pid": range_event[0], "tid": range_event[1], "ts": us(range_event[2]),
                           "dur": dur(range_event[3], range_event[2]), "args": {"mstx": 1}})
        for mark in self.raw["marks"]:
            events.append({"ph": "i", "s": "t", "cat": "user_annotation", "name": mark[3],
                           "pid": mark[0], "tid": mark[1], "ts": us(mark[2]), "args": {"mstx": 1}})
        for memory in self.raw["memory"]:
            (pid, tid, ts, address, size, allocated, reserved, device_type, device_index,
             oom) = memory
            events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event",
                           "name": "[OutOfMemory]" if oom else "[memory]", "pid": pid, "tid": tid,
                           "ts": us(ts), "args": {"Device Type": device_type,
                                                  "Device Id": device_index, "Addr": address,
                                                  "Bytes": size, "Total Allocated": allocated,
                                                  "Total Reserved": reserved}})
            events.append({"ph": "C", "name": "Memory (%s)" % _device_name(device_type, device_index),
                           "pid": pid, "ts": us(ts),
                           "args": {"Total Allocated (MB)": allocated / 1048576.0,
                                    "Total Reserved (MB)": reserved / 1048576.0}})
        for pid in sorted(pids):
            events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                           "args": {"name": "python3" if pid == os.getpid() else str(pid)}})
            events.append({"ph": "M", "name": "process_labels", "pid": pid, "tid": 0,
                           "args": {"labels": "CPU"}})
            events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                           "args": {"sort_index": pid}})
        for pid, tid in sorted(threads):
            name = self.thread_names.get(tid, "")
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": "thread %d (%s)" % (tid, name or "python3")}})
        end_ns = max((e.end_ns for e in self.events), default=base_ns)
        events.append({"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "",
                       "ts": us(end_ns)})
        trace = {"schemaVersion": 1, "deviceProperties": []}
        trace.update(metadata or {})
        trace["aiprof"] = {"prof_dir": self.prof_dir, "dropped_records": self.dropped,
                           "skipped_data": self.problems, "host_name": socket.gethostname()}
        trace.update({"displayTimeUnit": "ms", "baseTimeNanoseconds": base_ns,
                      "traceEvents": events, "traceName": trace_name})
        return trace

    def _fwdbwd_flows(self, us):
        forward = {}
        for event in self.events:
            if event.sequence_nr >= 0 and event.fwd_thread == 0:
                key = (event.sequence_nr, event.thread)
                if key not in forward:
                    forward[key] = event
        flows = []
        linked = set()
        for event in self.events:
            if event.sequence_nr < 0 or event.fwd_thread == 0:
                continue
            key = (event.sequence_nr, event.fwd_thread)
            if key in linked or key not in forward:
                continue
            linked.add(key)
            start = forward[key]
            flow_id = len(flows) // 2 + 1
            flows.append({"ph": "s", "id": flow_id, "pid": start.pid, "tid": start.tid,
                          "ts": us(start.start_ns), "cat": "fwdbwd", "name": "fwdbwd"})
            flows.append({"ph": "f", "id": flow_id, "pid": event.pid, "tid": event.tid,
                          "ts": us(event.start_ns), "cat": "fwdbwd", "name": "fwdbwd",
                          "bp": "e"})
        return flows

    def write_chrome_trace(self, path, metadata=None):
        trace = self.chrome_trace(metadata, trace_name=os.path.abspath(path))
        opener = gzip.open if path.endswith(".gz") else open
        temporary = path + ".tmp"
        with opener(temporary, "wt") as handle:
            json.dump(trace, handle)
        os.replace(temporary, path)

    def folded_stacks(self, metric="self_cpu_time_total"):
        """FlameGraph folded lines: root frame first, ';' between frames, then the value
        in us, as torch.profiler writes them (Python frames with with_stack, else the
        enclosing operators), with the operator itself as the leaf frame."""
        if metric not in ("self_cpu_time_total", "self_cuda_time_total", "self_device_time_total"):
            raise ValueError("metric must be self_cpu_time_total or self_cuda_time_total")
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


def _device_name(device_type, device_index):
    name = {0: "CPU", 1: "CUDA"}.get(device_type, "device%d" % device_type)
    return name if device_index < 0 else "%s:%d" % (name, device_index)
