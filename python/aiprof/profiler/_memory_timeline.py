"""export_memory_timeline: allocator events of one device as a stacked timeline of memory
categories, in torch.profiler's formats (.html plot with the pool's max memory allocated and
reserved, .json [times_us, sizes], .raw.json.gz events).

PyTorch classifies tensors by data-flow analysis of the operator graph; aiprof's memory
analysis (src/analysis/memory.h, the one classification every output reads) classifies each
allocator block from what it can see without holding tensors: blocks that are the storage of
a parameter, gradient or optimizer state when the window stops (found here from the live
nn.Module and Optimizer objects and recorded in the window's metadata as "memory_roles"),
and otherwise from where the block was allocated and freed (input wait, forward pass,
backward pass, optimizer step, outside every step).
"""

import gzip
import json

# torch's category names, in analysis::MemoryCategory's order (the memory_events() category).
CATEGORIES = ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
              "AUTOGRAD_DETAIL", "UNKNOWN"]
COLORS = ["darkgreen", "goldenrod", "black", "mediumpurple", "red", "mediumblue", "royalblue",
          "grey"]
INDEX = {name: i for i, name in enumerate(CATEGORIES)}
PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4


def live_tensor_roles():
    """The storages of parameters, gradients and optimizer state alive now, as the window's
    "memory_roles" metadata: {"parameter": [data_ptr...], "gradient": [...],
    "optimizer_state": [...]} (model/recorded_metadata.h reads it)."""
    import gc

    import torch

    roles = {"parameter": set(), "gradient": set(), "optimizer_state": set()}
    for obj in gc.get_objects():
        try:
            if isinstance(obj, torch.nn.Module):
                for parameter in obj.parameters(recurse=False):
                    roles["parameter"].add(parameter.data_ptr())
                    if parameter.grad is not None:
                        roles["gradient"].add(parameter.grad.data_ptr())
            elif isinstance(obj, torch.optim.Optimizer):
                for state in obj.state.values():
                    for value in state.values():
                        if torch.is_tensor(value) and value.numel() > 0:
                            roles["optimizer_state"].add(value.data_ptr())
        except Exception:  # objects mid-construction or exotic modules: skip them
            continue
    return {role: sorted(p for p in pointers if p) for role, pointers in roles.items()}


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
    def __init__(self, trace, device):
        self.device = device
        memory = sorted((m for m in trace.memory_events()
                         if _device_matches(m, device) and not m[9]), key=lambda m: m[2])
        self.allocator_totals = [(m[2], m[5]) for m in memory]  # what the allocator reported
        # The pool's peaks as the memory analysis found them (src/analysis/memory.h).
        pool = _pool_of(trace, device)
        self.max_allocated = pool["peak_allocated"] if pool else 0
        reserved = pool["peak_reserved"] if pool else None  # None: not reported
        self.max_reserved = reserved if reserved is not None else -1
        # The first event tells how much was allocated before the window: PREEXISTING.
        self.baseline = memory[0][5] - memory[0][4] if memory else 0
        self.events = []  # (t_ns, action, bytes, category index)
        if self.baseline > 0:
            self.events.append((memory[0][2], PREEXISTING, self.baseline, INDEX["UNKNOWN"]))
        for m in memory:
            ts, size, category = m[2], m[4], m[11]
            if category < 0:  # a free of a block allocated before the window
                category = INDEX["UNKNOWN"]
            self.events.append((ts, CREATE if size > 0 else DESTROY, size, category))

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
