#!/usr/bin/env bash
# GPU verification of the CUDA source (docs/cuda.md, "Verification on a GPU"). Needs an
# NVIDIA GPU, the build (make build) and, for the PyTorch part, python3 with CUDA torch.
#
#   scripts/verify-cuda.sh [build_dir] [work_dir]
#
# 1. examples/cuda/cuda_workload under aiprof: kernel count, names, streams, graph kernels
#    and copy sizes match what the program launched; kernel durations agree with CUDA
#    events within 5% (timing pass: each kernel alone between two events); each
#    iteration's mstx range given stream A has device time on stream A enclosing that
#    iteration's stream-A kernels (and msprof_tx's Device Start/End are filled).
# 2. examples/cuda/train_cuda.py three times (no profiler, torch.profiler, aiprof): every
#    kernel attributed to an operator; kernels per step equal to torch.profiler's; the
#    step-time overhead of aiprof against torch.profiler's.
#    Each iteration's cudaStreamWaitEvent of stream B on stream A's event names stream A
#    and its cudaEventRecord call (CUDA_EVENT activity: the critical path's cross-stream
#    edge), and B's kernel starts after A's ended.
# 3. cuda_workload with --ai-core=on --aic-metrics=PipeUtilization --l2=on: every kernel has
#    the group's metrics and the L2 hit rate, in range (percentages 0..100, SM throughput
#    > 0 for these compute kernels), and the window says that replay distorts timing; if
#    the driver forbids counters, the reason (NVreg_RestrictProfilingToAdminUsers) is in
#    the data and the check fails with it.
# Prints PASS/FAIL per check and writes the figures to <work_dir>/results.md; exits 1 on
# any failure.
set -euo pipefail

BUILD=$(realpath "${1:-build}")
WORK=$(realpath -m "${2:-/tmp/aiprof-verify-cuda}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "verify-cuda: no NVIDIA GPU (nvidia-smi -L failed); run this on a GPU machine" >&2
  exit 2
fi
for needed in "$BUILD/lib/libaiprof.so" "$BUILD/lib/libaiprof_cuda.so" \
              "$BUILD/bin/aiprof_cuda_report" "$BUILD/bin/cuda_workload"; do
  [[ -e $needed ]] || { echo "verify-cuda: $needed is missing; run make build (with nvcc)" >&2; exit 2; }
done

# Runs "$@" under aiprof with per-kernel counters on, writing PROF_* directories into $1.
# The range profiler is opt-in (it crashed the exiting job on an H200; docs/cuda.md).
profile_metrics() {
  local output=$1; shift
  local -x AIPROF_CUDA_RANGE_PROFILER=1
  if [[ -x $BUILD/bin/aiprof ]]; then
    "$BUILD/bin/aiprof" collect --output="$output" --task-time=l1 --ai-core=on \
      --aic-metrics=PipeUtilization --l2=on "$@"
  else
    LD_PRELOAD="$BUILD/lib/libaiprof.so${LD_PRELOAD:+:$LD_PRELOAD}" \
    CUDA_INJECTION64_PATH="$BUILD/lib/libaiprof_cuda.so" \
    AIPROF_OPTIONS="{\"output\":\"$output\",\"mode\":\"launch\",\"task_time\":\"l1\",\"ai_core\":true,\"aic_metrics\":\"PipeUtilization\",\"l2\":true}" \
      "$@"
  fi
}

# Runs "$@" under aiprof, writing PROF_* directories into $1.
profile() {
  local output=$1; shift
  if [[ -x $BUILD/bin/aiprof ]]; then
    "$BUILD/bin/aiprof" collect --output="$output" --runtime-api=on --task-time=l1 \
      --msproftx=on "$@"
  else
    # The launcher's environment (docs/cli.md), for builds without the CLI.
    LD_PRELOAD="$BUILD/lib/libaiprof.so${LD_PRELOAD:+:$LD_PRELOAD}" \
    CUDA_INJECTION64_PATH="$BUILD/lib/libaiprof_cuda.so" \
    AIPROF_OPTIONS="{\"output\":\"$output\",\"mode\":\"launch\",\"runtime_api\":true,\"task_time\":\"l1\",\"msproftx\":true}" \
      "$@"
  fi
}

echo "== 1. cuda_workload"
profile "$WORK/workload" "$BUILD/bin/cuda_workload" --iterations 5 --report "$WORK/workload_launched.json"
"$BUILD/bin/aiprof_cuda_report" "$WORK/workload" --csv-dir "$WORK/workload" > "$WORK/workload_aiprof.json"

# msprof_tx (Device Start/End of the stream ranges) comes from the CLI's export.
[[ -x $BUILD/bin/aiprof ]] && "$BUILD/bin/aiprof" export --output="$WORK/workload" >/dev/null

echo "== 2. train_cuda.py"
python3 "$ROOT/examples/cuda/train_cuda.py" --report "$WORK/train_baseline.json" >/dev/null
python3 "$ROOT/examples/cuda/train_cuda.py" --profiler torch --trace "$WORK/torch_trace.json" \
  --report "$WORK/train_torch.json" >/dev/null
profile "$WORK/train" python3 "$ROOT/examples/cuda/train_cuda.py" --report "$WORK/train_aiprof.json" >/dev/null
"$BUILD/bin/aiprof_cuda_report" "$WORK/train" --csv-dir "$WORK/train" > "$WORK/train_aiprof_data.json"

echo "== 3. cuda_workload with per-kernel counters"
profile_metrics "$WORK/metrics" "$BUILD/bin/cuda_workload" --iterations 2 \
  --report "$WORK/metrics_launched.json" 2> "$WORK/metrics_stderr.txt" || true
"$BUILD/bin/aiprof_cuda_report" "$WORK/metrics" > "$WORK/metrics_aiprof.json"

python3 - "$WORK" <<'PY'
import collections, glob, json, re, statistics, subprocess, sys
work = sys.argv[1]
load = lambda name: json.load(open(f"{work}/{name}"))
failures, lines = [], []

def kernel_name(kernel):
    """The function's bare name: cuda_workload's kernels are in an anonymous namespace."""
    return re.sub(r"^\(anonymous namespace\)::", "", kernel["name"]).split("(")[0]


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    lines.append(f"| {'pass' if ok else 'FAIL'} | {what} |")
    if not ok:
        failures.append(what)

launched, data = load("workload_launched.json"), load("workload_aiprof.json")
check(not data["problems"], f"workload raw data intact {data['problems']}")
n = launched["iterations"]
per = launched["per_iteration"]
timed = launched["timed_kernels"]
kernels = sorted(data["kernels"], key=lambda k: k["start_ns"])
expected = n * per["kernels"] + len(timed)
check(len(kernels) == expected, f"kernel count {len(kernels)} == launched {expected}")
names = collections.Counter(kernel_name(k) for k in kernels)
check(names == {"scale": 2 * n + 3, "add": 2 * n + 3, "reduce": n + 3},
      f"kernel names {dict(names)}")
graph = [k for k in kernels if k["graph_node"]]
check(len(graph) == n * per["graph_kernels"], f"graph kernels {len(graph)} == {n * per['graph_kernels']}")
# CUPTI numbers streams itself (the ids Kineto and nsys show), not as cudaStreamGetId does,
# so the two streams are recognised by what runs on them: scale and reduce on A, add on B.
plain = [k for k in kernels[:len(kernels) - len(timed)] if not k["graph_node"]]
streams_of = lambda name: {k["stream"] for k in plain if kernel_name(k) == name}
stream_a, stream_b = streams_of("scale"), streams_of("add")
check(len(stream_a) == 1 and len(stream_b) == 1 and stream_a != stream_b
      and streams_of("reduce") == stream_a and {k["stream"] for k in kernels} <= stream_a | stream_b,
      f"kernel streams: scale/reduce on {sorted(stream_a)}, add on {sorted(stream_b)}, all kernels "
      f"on those two (CUPTI ids; cudaStreamGetId gave {launched['streams']})")
stream_a = min(stream_a) if stream_a else None
stream_b = min(stream_b) if stream_b else None
copies = data["copies"]
htod = [c for c in copies if "HtoD" in c["name"]]
dtoh = [c for c in copies if "DtoH" in c["name"]]
check(len(htod) == n * per["htod"] and len(dtoh) == n * per["dtoh"],
      f"copies HtoD {len(htod)} DtoH {len(dtoh)} == {n * per['htod']} / {n * per['dtoh']}")
check(all(c["bytes"] == launched["copy_bytes"] for c in copies), f"copy sizes all {launched['copy_bytes']} B")
# Every kernel lies inside its event pair; the long ones (scale, add: about a millisecond)
# match it within 5%. reduce runs for a few microseconds, less than the events' own overhead.
worst, inside = 0.0, True
for event, kernel in zip(timed, kernels[-len(timed):]):
    if kernel_name(kernel) != event["name"]:
        check(False, f"timing pass order: {kernel['name']} where {event['name']} was launched")
        break
    inside &= kernel["dur_ns"] / 1e6 <= event["event_ms"] + 0.001
    if event["event_ms"] >= 0.5:
        worst = max(worst, abs(kernel["dur_ns"] / 1e6 - event["event_ms"]) / event["event_ms"])
long_kernels = sum(1 for event in timed if event["event_ms"] >= 0.5)
check(inside and long_kernels >= 6 and worst <= 0.05,
      f"kernel durations vs CUDA events: every kernel within its events; {long_kernels} long "
      f"ones (>= 0.5 ms) worst difference {worst * 100:.2f}% (<= 5%)")
check(data["ac2g_flows"] >= len(kernels), f"ac2g flows {data['ac2g_flows']} >= kernels {len(kernels)}")

# mstx ranges given stream A: device time on stream A around each iteration's A kernels.
marked = launched["stream_range"]
if marked["marked"]:
    ranges = [r for r in data["mstx_ranges"] if r["name"] == marked["name"]]
    with_device = [r for r in ranges if r["device"]]
    check(len(ranges) == n and len(with_device) == n,
          f"mstx ranges on stream A: {len(with_device)}/{len(ranges)} with device time, {n} expected")
    a_kernels = [k for k in kernels[:len(kernels) - len(timed)] if k["stream"] == stream_a]
    enclosed_ok = True
    for r in with_device:
        d = r["device"]
        inside = [k for k in a_kernels
                  if d["start_ns"] <= k["start_ns"] and k["start_ns"] + k["dur_ns"] <= d["end_ns"]]
        enclosed_ok &= d["stream"] == stream_a and len(inside) == per["stream_a_kernels"]
        enclosed_ok &= d["start_ns"] >= r["start_ns"]  # the GPU reaches the event after the call
    covered = sum(1 for k in a_kernels if any(
        r["device"]["start_ns"] <= k["start_ns"] <= r["device"]["end_ns"] for r in with_device))
    check(enclosed_ok and covered == len(a_kernels),
          f"device ranges enclose their iteration's stream-A kernels ({covered}/{len(a_kernels)} covered)")
    tx = glob.glob(f"{work}/workload/PROF_*/aiprof_output/msprof_tx_*.csv")
    if tx:
        rows = [l for l in open(tx[0]) if marked["name"] in l]
        check(rows and all(not l.rstrip().endswith("N/A,N/A") for l in rows),
              f"msprof_tx Device Start/End filled for {len(rows)} ranges")
else:
    check(False, "cuda_workload did not find mstxRangeStartA (libaiprof.so not preloaded?)")

# cudaStreamWaitEvent (stream B on stream A's event, each iteration): the sync record names
# the recording stream and the cudaEventRecord call (CUDA_EVENT activity, the critical
# path's cross-stream edge), and B's add starts after A's scale has ended.
waits = [w for w in data.get("event_waits", []) if w["stream"] == stream_b]
named = [w for w in waits if w["wait_on_stream"] == stream_a and w["record_call_found"]]
check(len(waits) == n * per.get("event_waits", 0) and len(named) == len(waits),
      f"stream waits on stream A's event: {len(named)}/{len(waits)} name stream A and their "
      f"cudaEventRecord call, {n * per.get('event_waits', 0)} expected")
scales = [k for k in plain if kernel_name(k) == "scale"]
adds = [k for k in plain if kernel_name(k) == "add"]
check(len(scales) == len(adds) == n and all(
          a["start_ns"] >= s["start_ns"] + s["dur_ns"] for s, a in zip(scales, adds)),
      "each iteration's add on stream B starts after its scale on stream A ended")

base, torch_run, aiprof_run = load("train_baseline.json"), load("train_torch.json"), load("train_aiprof.json")
train = load("train_aiprof_data.json")
check(not train["problems"], f"training raw data intact {train['problems']}")
steps = train["steps"]
check(len(steps) == aiprof_run["steps"], f"aiprof steps {len(steps)} == {aiprof_run['steps']}")
in_steps = [k for k in train["kernels"] if any(s["start_ns"] <= k["start_ns"] <= s["end_ns"] for s in steps)]
attributed = sum(1 for k in in_steps if k["operator_found"])
check(in_steps and attributed == len(in_steps),
      f"kernels attributed to an operator: {attributed}/{len(in_steps)}")
trace = json.load(open(torch_run["trace"]))["traceEvents"]
torch_steps = [e for e in trace if e.get("name", "").startswith("ProfilerStep#")]
torch_kernels = [e for e in trace if e.get("cat") == "kernel"]
# torch 2.x writes no ProfilerStep# range without a schedule; it profiled every step then.
torch_per_step = len(torch_kernels) / (len(torch_steps) or torch_run["steps"])
aiprof_per_step = len(in_steps) / max(1, len(steps))
check(abs(aiprof_per_step - torch_per_step) < 1e-9,
      f"kernels per step: aiprof {aiprof_per_step:.2f}, torch.profiler {torch_per_step:.2f}")
b, t, a = base["median_step_ms"], torch_run["median_step_ms"], aiprof_run["median_step_ms"]
over_t, over_a = (t / b - 1) * 100, (a / b - 1) * 100
check(over_a <= over_t, f"step-time overhead: aiprof {over_a:+.2f}%, torch.profiler {over_t:+.2f}% (median of {base['steps']} steps; baseline {b:.3f} ms)")

# Per-kernel counters: every profiled kernel has the group's metrics, in range.
mdata = load("metrics_aiprof.json")
status = mdata["metrics_status"]
denied = [s for s in status if s["status"] == 1]
if denied:
    check(False, "counters denied by the driver: " + denied[0]["message"])
else:
    mkernels = mdata["kernels"]
    with_metrics = [k for k in mkernels if k["metrics"]]
    check(mkernels and len(with_metrics) == len(mkernels),
          f"kernels with counters: {len(with_metrics)}/{len(mkernels)}")
    expected_columns = {"sm_throughput(%)", "tensor_pipe_ratio(%)", "fma_pipe_ratio(%)",
                        "achieved_occupancy(%)", "l2_hit_rate(%)"}
    have = set().union(*(k["metrics"].keys() for k in with_metrics)) if with_metrics else set()
    check(expected_columns <= have, f"metric columns present: {sorted(have)}")
    pct_ok = all(0.0 <= v <= 100.0 + 1e-6 for k in with_metrics for c, v in k["metrics"].items()
                 if c.endswith("(%)"))
    busy = [k["metrics"].get("sm_throughput(%)", 0) for k in with_metrics
            if kernel_name(k) in ("scale", "add")]
    check(pct_ok and busy and min(busy) > 0,
          f"percentages within 0..100; scale/add SM throughput min {min(busy) if busy else 0:.1f}%")
    check(any("distorted" in s["message"] for s in status),
          "the window says replay distorts timing: " + (status[0]["message"] if status else "no status"))

gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip()
with open(f"{work}/results.md", "w") as out:
    out.write(f"GPU: {gpu}\n\n| result | check |\n|---|---|\n" + "\n".join(lines) + "\n")
    out.write(f"\nstep ms median: baseline {b:.3f}, torch.profiler {t:.3f}, aiprof {a:.3f}\n")
print(f"results: {work}/results.md")
sys.exit(1 if failures else 0)
PY
