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

# Runs "$@" with output discarded; prints "wall_ms cpu_ms" (cpu = user + sys of the
# command and its children: the app, and with aiprof also the launcher and its sampler).
measure() {
  local TIMEFORMAT='%R %U %S' report
  report=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$report"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

plain_wall=() plain_cpu=() profiled_wall=() profiled_cpu=()
measure "$train" --steps="$steps" >/dev/null  # warm the page cache
for ((i = 0; i < runs; i++)); do
  read -r wall cpu < <(measure "$train" --steps="$steps")
  plain_wall+=("$wall") plain_cpu+=("$cpu")
  read -r wall cpu < <(measure "$aiprof" --output="$out" --export=off --msproftx=on --host-sys=cpu,mem,disk \
    --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps="$steps")
  profiled_wall+=("$wall") profiled_cpu+=("$cpu")
  rm -rf "${out:?}"/PROF_*
done
report() {  # label, plain values..., --, profiled values...
  local label=$1 a b
  shift
  local -a left=() right=()
  while [[ $1 != -- ]]; do left+=("$1"); shift; done
  shift
  right=("$@")
  a=$(printf '%s\n' "${left[@]}" | median)
  b=$(printf '%s\n' "${right[@]}" | median)
  echo "$label without aiprof: ${left[*]} ms, median $a ms"
  echo "$label with aiprof:    ${right[*]} ms, median $b ms"
  awk -v a="$a" -v b="$b" -v l="$label" 'BEGIN {printf "%s overhead: %.2f%%\n", l, (b - a) * 100 / a}'
}
echo "train --steps=$steps, $runs alternating runs each, $(nproc) CPUs"
report wall "${plain_wall[@]}" -- "${profiled_wall[@]}"
report cpu "${plain_cpu[@]}" -- "${profiled_cpu[@]}"
