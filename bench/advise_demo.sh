#!/usr/bin/env bash
# Time of `aiprof advise` on the demo's data: the sample training job profiled as
# `make demo` does (1000 steps, markers, host resource sampling at 10 Hz), then advised on
# RUNS times after one warm-up run (parse, analyses, the rules, the terminal report,
# advice.json and advice.html). Prints the median wall and CPU time (user + sys) in ms.
#   bench/advise_demo.sh [build_dir] [runs] [steps]
set -euo pipefail
build_dir=${1:-build}
runs=${2:-7}
steps=${3:-1000}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  [[ -x $tool ]] || { echo "advise_demo: $tool is not built (make build)" >&2; exit 1; }
done
out=$(mktemp -d /tmp/aiprof_advise_bench_XXXXXX)
trap 'rm -rf "$out"' EXIT
"$aiprof" --output="$out/demo" --export=off --msproftx=on --host-sys=cpu,mem,disk \
  --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps="$steps" >/dev/null 2>&1

# Prints "wall_ms cpu_ms" of one advise.
measure() {
  local TIMEFORMAT='%R %U %S' report
  report=$({ time "$aiprof" advise --output="$out/demo" --report-dir="$out/report" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$report"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

walls=() cpus=()
measure >/dev/null  # warm the page cache
for ((i = 0; i < runs; i++)); do
  read -r wall cpu < <(measure)
  walls+=("$wall") cpus+=("$cpu")
done
echo "aiprof advise, demo data ($steps steps): median of $runs:" \
  "$(printf '%s\n' "${walls[@]}" | median) ms wall, $(printf '%s\n' "${cpus[@]}" | median) ms CPU" \
  "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
