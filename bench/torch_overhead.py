"""Per-operator cost of capturing PyTorch operators, side by side in one process.

Loop (issue 5): 24 x (Linear(64) + LayerNorm + GELU), batch 32, 1 thread; by default a
training step (zero_grad, forward, backward, SGD optimizer step), --forward-only for the
forward pass alone.
Step time is the thread's CPU time (time.thread_time_ns), so waiting for a core on a
loaded machine does not count; runs alternate between modes. Reported: the median and the
minimum over runs (on a shared machine the minimum is the least disturbed run).
Modes: no profiling; an empty global RecordFunction callback (the floor every
RecordFunction-based profiler pays); torch.profiler without and with record_shapes; aiprof
without and with record_shapes. Reports the median step time of each mode and the ns
added per operator relative to no profiling.

    PYTHONPATH=build/python AIPROF_LIB_DIR=build/lib /usr/bin/python3 bench/torch_overhead.py
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch

import aiprof.profiler as aiprof_profiler
from aiprof import _native


def build_model():
    torch.manual_seed(0)
    layers = []
    for _ in range(24):
        layers += [torch.nn.Linear(64, 64), torch.nn.LayerNorm(64), torch.nn.GELU()]
    return torch.nn.Sequential(*layers)


def make_step(model, forward_only):
    x = torch.randn(32, 64)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    def train_step():
        optimizer.zero_grad(set_to_none=True)
        model(x).sum().backward()
        optimizer.step()

    def inference_step():
        with torch.no_grad():
            model(x)

    return inference_step if forward_only else train_step


def time_steps(step, steps):
    start = time.thread_time_ns()
    for _ in range(steps):
        step()
    return (time.thread_time_ns() - start) / steps


def count_ops(step):
    prof = aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU])
    with prof:
        step()
    return len(prof.events())


class Floor:
    def __init__(self, needs_inputs):
        path = _native.find_library("libaiprof_bench_torch_floor.so")
        if path is None:
            raise SystemExit("libaiprof_bench_torch_floor.so not built")
        self.lib = ctypes.CDLL(path)
        self.needs_inputs = needs_inputs

    def __enter__(self):
        self.lib.aiprof_bench_floor_enable(1 if self.needs_inputs else 0)

    def __exit__(self, *exc):
        self.lib.aiprof_bench_floor_disable()


class NoProfiler:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def modes():
    cpu = [torch.profiler.ProfilerActivity.CPU]
    acpu = [aiprof_profiler.ProfilerActivity.CPU]
    return {
        "none": NoProfiler,
        "floor (empty callback)": lambda: Floor(False),
        "floor (empty callback, inputs)": lambda: Floor(True),
        "torch.profiler": lambda: torch.profiler.profile(activities=cpu),
        "torch.profiler record_shapes": lambda: torch.profiler.profile(activities=cpu,
                                                                       record_shapes=True),
        "aiprof": lambda: aiprof_profiler.profile(activities=acpu),
        "aiprof record_shapes": lambda: aiprof_profiler.profile(activities=acpu,
                                                                record_shapes=True),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60, help="steps per timed run")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per mode (median)")
    parser.add_argument("--forward-only", action="store_true",
                        help="forward pass only instead of a training step")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = build_model()
    step = make_step(model, args.forward_only)
    for _ in range(20):
        step()
    ops = count_ops(step)
    results = {name: [] for name in modes()}
    # The whole window, start to stop, on the CPU clock of every thread of the process: what
    # the job pays in all, including a profiler's work at stop (torch.profiler turns its
    # records into events there; aiprof flushes its buffers from a writer thread).
    windows = {name: [] for name in modes()}
    # Modes alternate run by run so drifts (frequency, other load) hit all of them alike.
    for _ in range(args.runs):
        for name, make in modes().items():
            window_start = time.process_time_ns()
            with make():
                step()  # first step in a window pays one-time setup
                results[name].append(time_steps(step, args.steps))
            windows[name].append((time.process_time_ns() - window_start) / (args.steps + 1))
    base = statistics.median(results["none"])
    base_min = min(results["none"])
    rows = []
    for name, samples in results.items():
        median = statistics.median(samples)
        rows.append({"mode": name, "step_us": median / 1000.0,
                     "slower_pct": (median / base - 1) * 100,
                     "added_ns_per_op": (median - base) / ops,
                     "min_step_us": min(samples) / 1000.0,
                     "min_added_ns_per_op": (min(samples) - base_min) / ops})
    torch_added = {r["mode"]: r["added_ns_per_op"] for r in rows}
    print("torch %s, %s, %d operators per step, %d steps x %d runs, median step CPU time"
          % (torch.__version__, "forward" if args.forward_only else "training step", ops,
             args.steps, args.runs))
    print("%-32s %12s %8s %12s | %12s %12s" % ("mode", "median (us)", "slower", "added ns/op",
                                                "min (us)", "added ns/op"))
    for row in rows:
        print("%-32s %12.1f %7.1f%% %12.0f | %12.1f %12.0f" % (
            row["mode"], row["step_us"], row["slower_pct"], row["added_ns_per_op"],
            row["min_step_us"], row["min_added_ns_per_op"]))
    min_added = {r["mode"]: r["min_added_ns_per_op"] for r in rows}
    for shapes in ("", " record_shapes"):
        for label, added in (("median", torch_added), ("min", min_added)):
            ours, theirs = added["aiprof" + shapes], added["torch.profiler" + shapes]
            if theirs > 0:
                print("%s: aiprof%s adds %.2f of torch.profiler%s's cost" % (
                    label, shapes, ours / theirs, shapes))
    window_base = statistics.median(windows["none"])
    window_added = {name: (statistics.median(samples) - window_base) / ops
                    for name, samples in windows.items()}
    print("whole window (start, %d steps, stop; process CPU time of all threads), per step"
          % (args.steps + 1))
    print("%-32s %12s %12s" % ("mode", "median (us)", "added ns/op"))
    for name, samples in windows.items():
        print("%-32s %12.1f %12.0f" % (name, statistics.median(samples) / 1000.0,
                                       window_added[name]))
    for shapes in ("", " record_shapes"):
        theirs = window_added["torch.profiler" + shapes]
        if theirs > 0:
            print("whole window: aiprof%s adds %.2f of torch.profiler%s's cost" % (
                shapes, window_added["aiprof" + shapes] / theirs, shapes))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"ops_per_step": ops, "rows": rows,
                       "whole_window_added_ns_per_op": window_added}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
