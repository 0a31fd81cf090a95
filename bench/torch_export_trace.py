"""Time and peak memory of export_chrome_trace on a sizeable PyTorch window.

Each run is a fresh process: it profiles `--steps` training steps of 24 x (Linear(64) +
LayerNorm + GELU), batch 32, 1 thread, with record_shapes, with_stack and profile_memory,
then times export_chrome_trace (wall clock; it parses the PROF_* directory into the model
and writes the Kineto JSON) and reads the process's peak RSS before and after it. The
parent prints each run and the median over runs.

    PYTHONPATH=build/python AIPROF_LIB_DIR=build/lib /usr/bin/python3 \
        bench/torch_export_trace.py --steps 200 --runs 5
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def child(steps, directory):
    import torch

    import aiprof.profiler as aiprof_profiler

    torch.set_num_threads(1)
    torch.manual_seed(0)
    layers = []
    for _ in range(24):
        layers += [torch.nn.Linear(64, 64), torch.nn.LayerNorm(64), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(32, 64)
    with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU],
                                 record_shapes=True, with_stack=True,
                                 profile_memory=True) as prof:
        for _ in range(steps):
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
    path = os.path.join(directory, "trace.json")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    prof.export_chrome_trace(path)
    seconds = time.perf_counter() - start
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(path) as handle:
        events = len(json.load(handle)["traceEvents"])
    print(json.dumps({"export_s": seconds, "peak_rss_before_mb": rss_before / 1024.0,
                      "peak_rss_after_mb": rss_after / 1024.0,
                      "peak_rss_added_mb": (rss_after - rss_before) / 1024.0,
                      "trace_mb": os.path.getsize(path) / 1e6, "events": events}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.steps, args.child)
        return
    results = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as directory:
            output = subprocess.run([sys.executable, __file__, "--steps", str(args.steps),
                                     "--child", directory], check=True, capture_output=True,
                                    text=True).stdout
        result = json.loads(output.strip().splitlines()[-1])
        print("run %d: %s" % (run, json.dumps(result)))
        results.append(result)
    medians = {key: statistics.median(r[key] for r in results) for key in results[0]}
    print("median: " + json.dumps(medians))


if __name__ == "__main__":
    main()
