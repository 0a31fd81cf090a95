#!/usr/bin/env bash
# Time of `aiprof compare` on the demo's data: the sample training job profiled as
# `make demo` does (1000 steps, markers, host resource sampling at 10 Hz), once as is and
# once with one phase slowed (--slow-op=optimizer:200), then compared RUNS times. Prints
# the median wall and CPU time (user + sys) in ms.
#   bench/compare_demo.sh [build_dir] [runs] [steps]
set -euo pipefail
build_dir=${1:-build}
runs=${2:-7}
steps=${3:-1000}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  [[ -x $tool ]] || { echo "compare_demo: $tool is not built (make build)" >&2; exit 1; }
done
out=$(mktemp -d /tmp/aiprof_compare_bench_XXXXXX)
trap 'rm -rf "$out"' EXIT

collect() {  # output dir, extra train arguments...
  local dir=$1
  shift
  "$aiprof" --output="$out/$dir" --export=off --msproftx=on --host-sys=cpu,mem,disk \
    --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps="$steps" "$@" >/dev/null 2>&1
}
collect base
collect slow --slow-op=optimizer:200

# Prints "wall_ms cpu_ms" of one compare.
measure() {
  local TIMEFORMAT='%R %U %S' report
  report=$({ time "$aiprof" compare "$out/base" "$out/slow" -o "$out/compare" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$report"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

walls=() cpus=()
measure >/dev/null  # warm the page cache
for ((i = 0; i < runs; i++)); do
  read -r wall cpu < <(measure)
  walls+=("$wall") cpus+=("$cpu")
done
slices=$(awk -F, 'NR > 1 {n += $5 + $11} END {print n}' "$out/compare/compare_operators.csv")
echo "aiprof compare, demo data ($steps steps, $slices operator calls on both sides): median of $runs:" \
  "$(printf '%s\n' "${walls[@]}" | median) ms wall, $(printf '%s\n' "${cpus[@]}" | median) ms CPU" \
  "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
