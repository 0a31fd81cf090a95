#!/usr/bin/env bash
# Runs every benchmark binary (bin/bench_*) of a build, with repetitions so the medians in
# docs/PERFORMANCE.md can be reproduced. Extra scripted benchmarks live in bench/*.sh.
set -euo pipefail
build_dir=${1:-build}
status=0
for bench in "$build_dir"/bin/bench_*; do
  [[ -x $bench ]] || continue
  echo "== $(basename "$bench")"
  "$bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true || status=1
done
for script in bench/*.sh; do
  [[ -f $script ]] || continue
  echo "== $script"
  bash "$script" "$build_dir" || status=1
done
exit $status
