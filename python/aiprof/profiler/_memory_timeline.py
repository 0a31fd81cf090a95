"""export_memory_timeline: allocator events of one device as a stacked timeline of memory
categories, in torch.profiler's formats (.html plot with the pool's max memory allocated and
reserved, .json [times_us, sizes], .raw.json.gz events).

PyTorch classifies tensors by data-flow analysis of the operator graph; aiprof classifies
each allocator block from what it can see without holding tensors: blocks that are the
storage of a parameter, gradient or optimizer state when the window ends (found from the
live nn.Module and Optimizer objects), and otherwise from where the block was allocated
and freed (forward pass, backward pass, optimizer step, outside any operator).
"""

import gzip
import json

CATEGORIES = ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
              "AUTOGRAD_DETAIL", "UNKNOWN"]
COLORS = ["darkgreen", "goldenrod", "black", "mediumpurple", "red", "mediumblue", "royalblue",
          "grey"]
INDEX = {name: i for i, name in enumerate(CATEGORIES)}
PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4

_FORWARD, _BACKWARD, _OPTIMIZER, _OUTSIDE = "forward", "backward", "optimizer", "outside"


def live_tensor_categories():
    """data_ptr -> category for parameters, gradients and optimizer state alive now."""
    import gc

    import torch

    hints = {}
    for obj in gc.get_objects():
        try:
            if isinstance(obj, torch.nn.Module):
                for parameter in obj.parameters(recurse=False):
                    hints[parameter.data_ptr()] = "PARAMETER"
                    if parameter.grad is not None:
                        hints[parameter.grad.data_ptr()] = "GRADIENT"
            elif isinstance(obj, torch.optim.Optimizer):
                for state in obj.state.values():
                    for value in state.values():
                        if torch.is_tensor(value) and value.numel() > 0:
                            hints.setdefault(value.data_ptr(), "OPTIMIZER_STATE")
        except Exception:  # objects mid-construction or exotic modules: skip them
            continue
    return hints


def _device_matches(memory, device):
    device_type, device_index = memory[7], memory[8]
    if device in ("cpu", "CPU"):
        return device_type == 0
    name = str(device)
    if name.startswith("cuda"):
        index = int(name.split(":", 1)[1]) if ":" in name else 0
        return device_type == 1 and device_index == index
    return False


def _pool_of(trace, device):
    """The memory analysis' framework-allocator pool of `device` ("cpu", "cuda:N")."""
    name = str(device)
    if name in ("cpu", "CPU"):
        wanted = "CPU"
    elif name.startswith("cuda"):
        wanted = "CUDA:%d" % (int(name.split(":", 1)[1]) if ":" in name else 0)
    else:
        return None
    for pool in trace.memory_pools():
        if pool["name"] == wanted and pool["source"] == "framework allocator events":
            return pool
    return None


def recorded_devices(trace):
    """Names ("cpu", "cuda:N") of the devices with allocator events in `trace`."""
    names = set()
    for memory in trace.memory_events():
        device_type, device_index = memory[7], memory[8]
        if device_type == 0:
            names.add("cpu")
        elif device_type == 1:
            names.add("cuda:%d" % device_index)
    return sorted(names)


class MemoryTimeline:
    def __init__(self, trace, device, hints):
        self.device = device
        memory = sorted((m for m in trace.memory_events()
                         if _device_matches(m, device) and not m[9]), key=lambda m: m[2])
        phases = _PhaseLookup(trace)
        self.allocator_totals = [(m[2], m[5]) for m in memory]  # what the allocator reported
        # The pool's peaks as the memory analysis found them (src/analysis/memory.h).
        pool = _pool_of(trace, device)
        self.max_allocated = pool["peak_allocated"] if pool else 0
        self.max_reserved = pool["peak_reserved"] if pool else -1
        # The first event tells how much was allocated before the window: PREEXISTING.
        self.baseline = memory[0][5] - memory[0][4] if memory else 0
        events = []  # [t_ns, action, bytes, category name or None, block key]
        if self.baseline > 0:
            events.append([memory[0][2], PREEXISTING, self.baseline, "UNKNOWN", None])
        open_blocks = {}  # address -> (block key, size, allocation phase)
        category_of = {}  # block key -> category, decided once the block's life is known
        for m in memory:
            tid, ts, address, size = m[1], m[2], m[3], m[4]
            if size > 0:
                key = (ts, address)
                open_blocks[address] = (key, size, phases.at(tid, ts))
                events.append([ts, CREATE, size, None, key])
                continue
            block = open_blocks.pop(address, None)
            if block is None:  # allocated before the window
                events.append([ts, DESTROY, size, "UNKNOWN", None])
                continue
            key, block_size, alloc_phase = block
            category_of[key] = _classify(alloc_phase, phases.at(tid, ts), hints.get(address))
            events.append([ts, DESTROY, -block_size, None, key])
        for address, (key, _size, alloc_phase) in open_blocks.items():
            category_of[key] = _classify(alloc_phase, None, hints.get(address))
        self.events = [(ts, action, size, INDEX[category or category_of.get(key, "UNKNOWN")])
                       for ts, action, size, category, key in events]

    def series(self):
        """(times_us, sizes): sizes[i] = [0, bytes per category...] after events at times[i]."""
        times, sizes = [], []
        current = [0] * (len(CATEGORIES) + 1)
        for ts, _action, size, category in self.events:
            current[category + 1] += size
            if times and times[-1] == ts / 1000.0:
                sizes[-1] = list(current)
            else:
                times.append(ts / 1000.0)
                sizes.append(list(current))
        return times, sizes

    def export(self, path):
        if path.endswith(".raw.json.gz"):
            with gzip.open(path, "wt") as handle:
                json.dump([list(e) for e in self.events], handle)
        elif path.endswith(".json.gz"):
            with gzip.open(path, "wt") as handle:
                json.dump(list(self.series()), handle)
        elif path.endswith(".json"):
            with open(path, "w") as handle:
                json.dump(list(self.series()), handle)
        elif path.endswith(".html"):
            with open(path, "w") as handle:
                handle.write(self._html())
        else:
            raise ValueError("memory timeline path must end in .html, .json, .json.gz or "
                             ".raw.json.gz: %s" % path)

    def _html(self, width=1000, height=460):
        times, sizes = self.series()
        title = "Memory timeline (%s)" % self.device
        if not times:
            return "<html><body><h3>%s</h3><p>No allocator events.</p></body></html>" % title
        t0, t1 = times[0], max(times[-1], times[0] + 1e-3)
        stacked_peak = max(sum(row) for row in sizes)
        allocated, reserved = self.max_allocated, self.max_reserved
        # One unit for the axis and the maxima, chosen so a small model reads in KB, not
        # "0.000 GB".
        divisor, unit = _unit_for(max(stacked_peak, allocated, reserved, 1))
        top = max(stacked_peak, 1)
        left, bottom, upper = 90, 50, 20

        def x(t):
            return left + (t - t0) / (t1 - t0) * (width - left - 20)

        def y(value):
            return height - bottom - value / top * (height - bottom - upper)

        layers = []
        lower = [0] * len(times)
        for category in range(len(CATEGORIES)):
            upper_values = [lower[i] + sizes[i][category + 1] for i in range(len(times))]
            if any(upper_values[i] != lower[i] for i in range(len(times))):
                edge = " ".join("%.1f,%.1f" % (x(t), y(u)) for t, u in zip(times, upper_values))
                base = " ".join("%.1f,%.1f" % (x(t), y(v)) for t, v in
                                reversed(list(zip(times, lower))))
                layers.append('<polygon points="%s %s" fill="%s" opacity="0.85">'
                              '<title>%s</title></polygon>' % (edge, base, COLORS[category],
                                                             CATEGORIES[category]))
            lower = upper_values
        ticks = []
        for i in range(5):
            value = top * i / 4
            ticks.append("<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
                         "<text x='5' y='%.1f'>%s</text>" % (
                             left, width - 20, y(value), y(value), y(value) + 4,
                             _format(value, divisor, unit)))
        legend = "".join('<span style="color:%s">&#9632; %s</span> ' % (c, n)
                         for n, c in zip(CATEGORIES, COLORS))
        maxima = "Max memory allocated: %s<br>Max memory reserved: %s" % (
            _format(allocated, divisor, unit),
            _format(reserved, divisor, unit) if reserved >= 0 else "not reported")
        return ("<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
                "<h3>{title}</h3><p>{maxima}</p>"
                "<svg width='{w}' height='{h}' style='border:1px solid #ccc'>{ticks}{layers}"
                "<text x='5' y='14'>Memory ({unit})</text>"
                "<text x='{xm}' y='{ht}'>Time (ms), {span:.3f} ms</text></svg>"
                "<p>{legend}</p></body></html>").format(
                    title=title, maxima=maxima, w=width, h=height, ticks="".join(ticks),
                    layers="".join(layers), unit=unit, xm=width // 2 - 60, ht=height - 10,
                    span=(t1 - t0) / 1000.0, legend=legend)


def _unit_for(peak):
    """(divisor, name) of the largest binary unit the peak reaches at least once."""
    for divisor, name in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if peak >= divisor:
            return divisor, name
    return 1, "B"


def _format(value, divisor, unit):
    return ("%d %s" % (value, unit)) if divisor == 1 else ("%.2f %s" % (value / divisor, unit))


def _classify(alloc_phase, free_phase, hint):
    if hint is not None and free_phase is None:
        return hint
    if alloc_phase == _OUTSIDE:
        return "INPUT"
    if alloc_phase == _OPTIMIZER:
        return "OPTIMIZER_STATE" if free_phase is None else "TEMPORARY"
    if alloc_phase == _BACKWARD:
        if free_phase is None or free_phase == _OPTIMIZER:
            return "GRADIENT"
        return "AUTOGRAD_DETAIL"
    if alloc_phase == _FORWARD:
        if free_phase == _BACKWARD:
            return "ACTIVATION"
        if free_phase in (_FORWARD, _OUTSIDE):
            return "TEMPORARY"
        return "UNKNOWN"
    return "UNKNOWN"


class _PhaseLookup:
    """Which part of a training step a thread is in at a time, from its outermost ops."""

    def __init__(self, trace):
        self._threads = {}
        # The step ranges of the model's steps are containers, not phases.
        step_ranges = {(s["tid"], s["start_ns"], s["end_ns"]) for s in trace.steps()
                       if s["has_range"]}

        def is_step(event):
            return (event.tid, event.start_ns, event.end_ns) in step_ranges

        for event in trace.events:
            if event.parent is not None:
                continue
            if is_step(event):
                continue
            self._threads.setdefault(event.tid, []).append(event)
        for event in trace.events:
            if event.parent is not None and is_step(event.parent):
                self._threads.setdefault(event.tid, []).append(event)
        for events in self._threads.values():
            events.sort(key=lambda e: e.start_ns)
        self._starts = {tid: [e.start_ns for e in events] for tid, events in self._threads.items()}

    def at(self, tid, ts):
        import bisect

        events = self._threads.get(tid)
        if not events:
            return _OUTSIDE
        i = bisect.bisect_right(self._starts[tid], ts) - 1
        if i < 0 or events[i].end_ns < ts:
            return _OUTSIDE
        event = events[i]
        if event.name.startswith("Optimizer."):
            return _OPTIMIZER
        if event.backward or event.name.startswith("autograd::engine") or \
                "backward" in event.name.lower():
            return _BACKWARD
        return _FORWARD
