"""Writes the real PyTorch traces the Kineto importer's tests read (tests/kineto/data/).

Run with the Debian PyTorch 1.13 (CPU): `/usr/bin/python3 make_torch113_traces.py`. That build
has no Kineto (torch.autograd.kineto_available() is False), so torch.profiler writes what the
legacy profiler's export_chrome_trace writes: a JSON array of "X" events with integer µs from
the profiler's start, pid "CPU functions", no categories.

  torch113_mlp_steps.pt.trace.json     an MLP trained 6 steps under
                                       schedule(wait=1, warmup=1, active=3): ProfilerStep#1..3 as this build numbers them,
                                       a "forward_pass" record_function range per step
  torch113_mlp_steps.pt.trace.json.gz  the same file, gzip-compressed
"""
import gzip
import os
import shutil

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    path = os.path.join(HERE, "torch113_mlp_steps.pt.trace.json")

    def ready(prof):
        prof.export_chrome_trace(path)

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=ready, record_shapes=True) as prof:
        for _ in range(6):
            with torch.profiler.record_function("forward_pass"):
                loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    with open(path, "rb") as plain, gzip.open(path + ".gz", "wb") as packed:
        shutil.copyfileobj(plain, packed)


if __name__ == "__main__":
    main()
