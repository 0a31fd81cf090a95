"""Shared by the seed tests: the build's runtime, CLI and a small training step, and readers
of what `aiprof export` wrote (the one exporter; no second reader here)."""

import collections
import glob
import json
import os
import subprocess
import sys

BUILD_DIR = os.environ["AIPROF_BUILD_DIR"]
RUNTIME = os.path.join(BUILD_DIR, "lib", "libaiprof.so")
CLI = os.path.join(BUILD_DIR, "bin", "aiprof")
PYTHON = sys.executable

# A training script that knows nothing of aiprof: SGD on a small MLP, one line per step.
# argv: steps [seconds between steps]; it stops early when ./stop exists.
UNCHANGED_TRAIN = """
import os, sys, time
import torch
torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
steps = int(sys.argv[1])
pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
print("ready", flush=True)
for step in range(steps):
    if os.path.exists("stop"):
        break
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
    print("step", step, flush=True)
    time.sleep(pause)
print("trained", flush=True)
"""


def job_environment(**extra):
    """The test's environment without aiprof variables, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AIPROF_MODE", "AIPROF_OPTIONS", "AIPROF_CONFIG_PATH",
                                "PROF_CONFIG_PATH", "PROFILING_"))}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def export(path, *arguments):
    """`aiprof export --output=path ...`; returns its stdout (fails the caller on error)."""
    result = subprocess.run([CLI, "export", "--output=" + path, *arguments],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError("aiprof export %s failed (%d): %s%s" % (
            path, result.returncode, result.stdout, result.stderr))
    return result.stdout


def trace_events(path):
    with open(path) as handle:
        trace = json.load(handle)
    return trace["traceEvents"] if isinstance(trace, dict) else trace


def slice_names(trace_path):
    """Counter of the complete events (ph X) of an exported trace_view JSON."""
    return collections.Counter(e["name"] for e in trace_events(trace_path) if e.get("ph") == "X")


def exported_timeline(prof_dir):
    """Exports one PROF_* directory (msprof layout) and returns its trace_view path. Earlier
    exports' outputs are cleared first: a launch has already exported once, and outputs are
    named by the second they were written in, so a re-export a second later adds a file."""
    export(prof_dir, "--clear=on")
    views = glob.glob(os.path.join(prof_dir, "aiprof_output", "trace_view_*.json"))
    if len(views) != 1:
        raise AssertionError("expected one trace_view in %s, found %s" % (prof_dir, views))
    return views[0]


def prof_dirs(parent):
    return sorted(glob.glob(os.path.join(parent, "PROF_*")))


def read_csv(path):
    import csv

    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def wait_for(predicate, timeout=60.0, what="condition"):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


def edit_profiler_config(config_dir, **fields):
    """What the user does in another shell: edits profiler_config.json (the template that
    dynamic_profile wrote) and saves it."""
    path = os.path.join(config_dir, "profiler_config.json")
    wait_for(lambda: os.path.isfile(path), what=path)
    with open(path) as handle:
        config = json.load(handle)
    config.update(fields)
    with open(path, "w") as handle:
        json.dump(config, handle)


def finished_prof_dir(parent, timeout=60.0):
    """The one PROF_* directory under `parent` once its window has been closed (info.json
    records the end)."""
    def closed():
        dirs = prof_dirs(parent)
        if len(dirs) != 1:
            return None
        try:
            with open(os.path.join(dirs[0], "info.json")) as handle:
                info = json.load(handle)
        except (OSError, ValueError):
            return None
        return dirs[0] if info.get("end_realtime_ns") else None

    return wait_for(closed, timeout, "a closed PROF_* window in %s" % parent)
