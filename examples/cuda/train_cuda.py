#!/usr/bin/env python3
"""PyTorch CUDA training loop for checking aiprof's CUDA data against torch.profiler.

Trains a small transformer-style MLP on random data for --steps steps, synchronizing the
device at the end of each step so that step times are comparable, and writes a JSON report
(--report) with the per-step times and, with --profiler=torch, the kernel count that
torch.profiler (CUDA activities) recorded. Used by scripts/verify-cuda.sh in three runs:
no profiler (baseline), torch.profiler, and under `aiprof collect`.

When libaiprof.so is loaded (LD_PRELOAD by the launcher), steps are also marked with
aiprofStepBegin/aiprofStepEnd so aiprof's data has ProfilerStep#N ranges.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.nn as nn


def aiprof_steps():
    """The runtime's step functions when libaiprof.so is in the process, else None."""
    try:
        process = ctypes.CDLL(None)
        begin, end = process.aiprofStepBegin, process.aiprofStepEnd
    except (AttributeError, OSError):
        return None
    begin.argtypes = end.argtypes = [ctypes.c_uint64]
    return begin, end


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--profiler", choices=["none", "torch"], default="none")
    parser.add_argument("--trace", default="torch_trace.json",
                        help="where --profiler=torch writes its Chrome trace")
    parser.add_argument("--report", default=None, help="JSON report path")
    args = parser.parse_args()

    if not torch.cuda.is_available():
        print("train_cuda.py: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    device = torch.device("cuda")
    model = nn.Sequential(*[Block(args.width) for _ in range(args.layers)],
                          nn.Linear(args.width, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    inputs = torch.randn(args.batch, 128, args.width, device=device)
    labels = torch.randint(0, 10, (args.batch, 128), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = loss_fn(logits.reshape(-1, 10), labels.reshape(-1))
        loss.backward()
        optimizer.step()

    # Warm-up outside any measurement: cuBLAS handles, allocator pools, lazy module loads.
    for _ in range(3):
        step()
    torch.cuda.synchronize()

    markers = aiprof_steps()
    step_ns = []

    def timed_steps(on_step_end=None):
        for index in range(args.steps):
            if markers:
                markers[0](index)
            start = time.perf_counter_ns()
            step()
            torch.cuda.synchronize()
            step_ns.append(time.perf_counter_ns() - start)
            if markers:
                markers[1](index)
            if on_step_end:
                on_step_end()

    report = {"profiler": args.profiler, "steps": args.steps,
              "aiprof_loaded": markers is not None}
    if args.profiler == "torch":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            timed_steps(prof.step)
        prof.export_chrome_trace(args.trace)
        with open(args.trace) as trace_file:
            events = json.load(trace_file)["traceEvents"]
        report["torch_kernels"] = sum(1 for e in events if e.get("cat") == "kernel")
        report["trace"] = os.path.abspath(args.trace)
    else:
        timed_steps()

    report["step_ms"] = [ns / 1e6 for ns in step_ns]
    report["median_step_ms"] = statistics.median(report["step_ms"])
    text = json.dumps(report, indent=1)
    if args.report:
        with open(args.report, "w") as out:
            out.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
