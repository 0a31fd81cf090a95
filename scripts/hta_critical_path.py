"""HTA's lightweight critical path on the traces aiprof's tests use, for comparison with
`aiprof analyze --critical-path` (scripts/compare-hta-critical-path.sh, docs/analysis.md).

  hta_critical_path.py make-inputs DIR     writes the inputs under DIR (see below)
  hta_critical_path.py run HTA_ROOT DIR    runs HTA on each input folder of DIR

Inputs: torch113/ the MLP trace of tests/kineto/data as torch 1.13 wrote it (HTA cannot read
it: it reports why); torch113-ranked/ the same array as an object's traceEvents with
distributedInfo.rank 0, as HTA asks of such traces (still uncategorised); torch113-kineto/
the same events in the shape of a Kineto trace (an
object with traceEvents, cat cpu_op for operators and user_annotation for record_function
ranges, an integer pid, distributedInfo.rank 0: times, names and nesting untouched);
stream-wait/ the CUDA trace of tests/kineto/kineto_critical_path_test.cc (a
cudaStreamWaitEvent between two streams) plus distributedInfo.rank 0.

For each ProfilerStep instance HTA keeps it prints the path's weight (the sum of its edges'
weights, µs), the span from its first to its last node, the weight per event and bound_by,
and HTA's summary() shares. HTA's code is not part of aiprof: HTA_ROOT is a checkout of it.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH113 = os.path.join(HERE, "..", "tests", "kineto", "data", "torch113_mlp_steps.pt.trace.json")


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f)


def kineto_shaped(events):
    for e in events:
        name = e["name"]
        annotation = name.startswith(("ProfilerStep#", "Optimizer.")) or name == "forward_pass"
        e["cat"] = "user_annotation" if annotation else "cpu_op"
        e["pid"] = 1
    return {"schemaVersion": 1, "distributedInfo": {"rank": 0}, "traceEvents": events}


def stream_wait_trace():
    # Host: gemm_a launched at 2 on stream 7 [10, 60); cudaEventRecord at 5 (correlation 42);
    # cudaStreamWaitEvent at 6 makes stream 8 wait for it; gemm_b launched at 8 on stream 8
    # runs [60, 90); cudaDeviceSynchronize [10, 95); the step is [0, 100).
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100,
           "ts": 0, "dur": 100}]

    def host(name, ts, dur, corr, flow):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 100, "tid": 100,
                   "ts": ts, "dur": dur, "args": {"correlation": corr}})
        if flow:
            ev.append({"ph": "s", "id": corr, "pid": 100, "tid": 100, "ts": ts, "cat": "ac2g",
                       "name": "ac2g"})

    def kernel(name, stream, ts, dur, corr):
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts,
                   "dur": dur, "args": {"device": 0, "stream": stream, "correlation": corr}})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": stream, "ts": ts, "cat": "ac2g",
                   "name": "ac2g", "bp": "e"})

    host("cudaLaunchKernel", 2, 2, 1, True)
    host("cudaEventRecord", 5, 1, 42, False)
    host("cudaStreamWaitEvent", 6, 1, 43, False)
    host("cudaLaunchKernel", 8, 1, 2, True)
    host("cudaDeviceSynchronize", 10, 85, 44, False)
    kernel("gemm_a", 7, 10, 50, 1)
    kernel("gemm_b", 8, 60, 30, 2)
    ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 8,
               "ts": 6, "dur": 1,
               "args": {"cuda_sync_kind": "Stream Wait Event", "stream": 8, "correlation": 43,
                        "device": 0, "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 42,
                        "wait_on_cuda_event_id": 3}})
    ev.append({"name": "process_labels", "ph": "M", "pid": 0, "tid": 0,
               "args": {"labels": "GPU 0"}})
    return {"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,
            "distributedInfo": {"rank": 0}, "traceEvents": ev}


def make_inputs(out):
    os.makedirs(os.path.join(out, "torch113"), exist_ok=True)
    shutil.copy(TORCH113, os.path.join(out, "torch113"))
    with open(TORCH113) as f:
        events = json.load(f)
    write_json(os.path.join(out, "torch113-ranked", "mlp.pt.trace.json"),
               {"distributedInfo": {"rank": 0}, "traceEvents": events})
    write_json(os.path.join(out, "torch113-kineto", "mlp.pt.trace.json"),
               kineto_shaped(json.loads(json.dumps(events))))
    write_json(os.path.join(out, "stream-wait", "wait.pt.trace.json"), stream_wait_trace())


def empty_queue_on_cpu_only_traces(pd):
    # HTA's critical path joins the CUDA launch-queue series, which is None on a trace without
    # GPU kernels (TypeError: 'NoneType' object is not subscriptable): given an empty series
    # instead, the CPU part of its graph is built as on any trace.
    from hta.analyzers.trace_counters import TraceCounters

    original = TraceCounters._get_queue_length_time_series_for_rank.__func__

    def queue_or_empty(cls, t, rank):
        q = original(cls, t, rank)
        if q is not None:
            return q
        print("  (no GPU kernels: HTA's queue-length series is None, on which its critical path "
              "fails with TypeError; an empty series is given instead)")
        return pd.DataFrame({"queue_length": pd.Series(dtype="int64")})

    TraceCounters._get_queue_length_time_series_for_rank = classmethod(queue_or_empty)


def print_path(analyzer, instance):
    g, ok = analyzer.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=instance)
    sym = analyzer.t.symbol_table.get_sym_table()
    nodes = [g.node_list[n] for n in g.critical_path_nodes]
    pairs = list(zip(g.critical_path_nodes, g.critical_path_nodes[1:]))
    weight = sum(g.edges[u, v]["weight"] for u, v in pairs)
    print(f"  ProfilerStep instance {instance}: ok={ok}, path weight {weight:g} us, "
          f"span {nodes[0].ts:g}..{nodes[-1].ts:g} us ({nodes[-1].ts - nodes[0].ts:g} us), "
          f"{len(nodes)} nodes")
    gaps, count = 0, 0
    for u, v in pairs:
        e = g.edges[u, v]["object"]
        if e.type.value == "critical_path_dependency":
            gaps, count = gaps + g.node_list[v].ts - g.node_list[u].ts, count + 1
        elif e.type.value != "critical_path_operator":
            print(f"    {g.node_list[u].ts:g}->{g.node_list[v].ts:g} us: {e.type.value}, "
                  f"weight {g.edges[u, v]['weight']:g}")
    if count:
        print(f"    {count} dependency edges (weight 0) across {gaps:g} us between operators")
    breakdown = g.get_critical_path_breakdown()
    weighted = breakdown[breakdown.duration > 0]
    per_event = weighted.groupby(["s_name", "bound_by"]).duration.sum()
    print("    weight per event (top 8):")
    for (name, bound), us in per_event.sort_values(ascending=False).head(8).items():
        print(f"      {us:8g} us  {bound:<28} {name}")
    shares = breakdown.groupby("bound_by").duration.sum() / breakdown.duration.sum() * 100
    print("    bound_by: " + ", ".join(f"{k} {v:.1f}%" for k, v in shares.items() if k))


def run(hta_root, inputs):
    sys.path.insert(0, hta_root)
    import pandas as pd
    from hta.trace_analysis import TraceAnalysis

    empty_queue_on_cpu_only_traces(pd)
    for name in ("torch113", "torch113-ranked", "torch113-kineto", "stream-wait"):
        folder = os.path.join(inputs, name)
        print(f"== HTA on {name}/")
        try:
            analyzer = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
            steps = analyzer.t.get_trace(0)
            count = steps.name.isin(analyzer.t.symbol_table.get_profiler_step_ids()).sum()
            for instance in range(count):
                print_path(analyzer, instance)
        except Exception as error:  # HTA's own failure on this input is the answer
            print(f"  HTA failed: {type(error).__name__}: {error}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make-inputs":
        make_inputs(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
