#!/usr/bin/env bash
# Wall time of the sample training job (examples/train) plain, under aiprof CPU sampling at
# 99 Hz and 1 kHz, and under `perf record -g` at the same rates. Runs alternate so machine
# load drifts hit every side; prints each median of RUNS.
#   bench/cpu_sampling/cpu_sampling_overhead.sh [build_dir] [runs] [steps]
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
runs=${2:-5}
steps=${3:-1500}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
out=$(mktemp -d /tmp/aiprof_cpu_overhead_XXXXXX)
trap 'rm -rf "$out"' EXIT
wall_ms() {
  local TIMEFORMAT='%R' report
  report=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d\n", $1 * 1000}' <<<"$report"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
declare -A runs_of
labels=(plain aiprof_99 aiprof_1000 perf_99 perf_1000)
for ((i = 0; i < runs; i++)); do
  runs_of[plain]+="$(wall_ms "$train" --steps="$steps") "
  for hz in 99 1000; do
    runs_of[aiprof_$hz]+="$(wall_ms "$aiprof" --output="$out" --task-time=off \
      --sys-cpu-profiling=on --sys-cpu-freq=$hz "$train" --steps="$steps") "
    rm -rf "${out:?}"/PROF_*
    runs_of[perf_$hz]+="$(wall_ms perf record -q -g -F $hz -o "$out/perf.data" "$train" \
      --steps="$steps") "
  done
done
base=$(tr ' ' '\n' <<<"${runs_of[plain]}" | grep . | median)
for label in "${labels[@]}"; do
  m=$(tr ' ' '\n' <<<"${runs_of[$label]}" | grep . | median)
  echo "$label median wall ${m} ms ($(awk "BEGIN{printf \"%+.1f\", ($m - $base) * 100 / $base}")%)"
done
