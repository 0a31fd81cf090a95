#!/usr/bin/env bash
# Time of `aiprof advise` or `aiprof compare` on the demo's data: the sample training job
# profiled as `make demo` does (1000 steps, markers, host resource sampling at 10 Hz), then
# the command run RUNS times after one warm-up run. Prints the median wall and CPU time
# (user + sys) in ms.
#   advise:  parse, analyses, the rules, the terminal report, advice.json and advice.html
#   compare: the job collected a second time with one phase slowed (--slow-op=optimizer:200),
#            both sides parsed, analysed and compared, report and CSV files written
#   bench/demo_command_time.sh advise|compare [build_dir] [runs] [steps]
set -euo pipefail
command=${1:?usage: bench/demo_command_time.sh advise|compare [build_dir] [runs] [steps]}
build_dir=${2:-build}
runs=${3:-7}
steps=${4:-1000}
[[ $command == advise || $command == compare ]] || {
  echo "demo_command_time: '$command' is not advise or compare" >&2
  exit 2
}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  [[ -x $tool ]] || { echo "demo_command_time: $tool is not built (make build)" >&2; exit 1; }
done
out=$(mktemp -d /tmp/aiprof_demo_command_bench_XXXXXX)
trap 'rm -rf "$out"' EXIT

collect() {  # output dir, extra train arguments...
  local dir=$1
  shift
  "$aiprof" --output="$out/$dir" --export=off --msproftx=on --host-sys=cpu,mem,disk \
    --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps="$steps" "$@" >/dev/null 2>&1
}
run_command() {
  if [[ $command == advise ]]; then
    "$aiprof" advise --output="$out/base" --report-dir="$out/report"
  else
    "$aiprof" compare "$out/base" "$out/slow" -o "$out/compare"
  fi
}
collect base
[[ $command == compare ]] && collect slow --slow-op=optimizer:200

# Prints "wall_ms cpu_ms" of one run of the command.
measure() {
  local TIMEFORMAT='%R %U %S' report
  report=$({ time run_command >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$report"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

walls=() cpus=()
measure >/dev/null  # warm the page cache
for ((i = 0; i < runs; i++)); do
  read -r wall cpu < <(measure)
  walls+=("$wall") cpus+=("$cpu")
done
what="$steps steps"
if [[ $command == compare ]]; then
  slices=$(awk -F, 'NR > 1 {n += $5 + $11} END {print n}' "$out/compare/compare_operators.csv")
  what="$what, $slices operator calls on both sides"
fi
echo "aiprof $command, demo data ($what): median of $runs:" \
  "$(printf '%s\n' "${walls[@]}" | median) ms wall, $(printf '%s\n' "${cpus[@]}" | median) ms CPU" \
  "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
