#!/usr/bin/env bash
# Wall time of the sample training job with and without `aiprof` (markers on, host
# resource sampling of the whole machine and the app at 10 Hz). Runs alternate so drift in
# machine load hits both sides; prints each median of RUNS and the overhead.
#   bench/launch_overhead.sh [build_dir] [runs] [steps]
set -euo pipefail
build_dir=${1:-build}
runs=${2:-7}
steps=${3:-1500}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  [[ -x $tool ]] || { echo "launch_overhead: $tool is not built (make build)" >&2; exit 1; }
done
out=$(mktemp -d /tmp/aiprof_overhead_XXXXXX)
trap 'rm -rf "$out"' EXIT

elapsed_ms() {  # runs "$@" with output discarded, prints wall milliseconds
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

plain=() profiled=()
elapsed_ms "$train" --steps="$steps" >/dev/null  # warm the page cache
for ((i = 0; i < runs; i++)); do
  plain+=("$(elapsed_ms "$train" --steps="$steps")")
  profiled+=("$(elapsed_ms "$aiprof" --output="$out" --msproftx=on --host-sys=cpu,mem,disk \
    --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps="$steps")")
  rm -rf "${out:?}"/PROF_*
done
plain_median=$(printf '%s\n' "${plain[@]}" | median)
profiled_median=$(printf '%s\n' "${profiled[@]}" | median)
echo "train --steps=$steps, $runs runs each, $(nproc) CPUs"
echo "without aiprof: ${plain[*]} ms, median $plain_median ms"
echo "with aiprof:    ${profiled[*]} ms, median $profiled_median ms"
awk -v a="$plain_median" -v b="$profiled_median" 'BEGIN {printf "overhead: %.2f%%\n", (b - a) * 100 / a}'
