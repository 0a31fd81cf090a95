#!/usr/bin/env bash
# ns added by the osrt wrapper to a pthread_mutex_lock that does not block: median of RUNS
# alternating plain / preloaded (libaiprof.so + libaiprof_osrt.so, collecting) runs.
#   bench/cpu_sampling/osrt_overhead.sh [build_dir] [runs] [calls]
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
runs=${2:-7}
calls=${3:-20000000}
bench="$build_dir/bin/bench_osrt_calls"
out=$(mktemp -d /tmp/aiprof_osrt_XXXXXX)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
plain=() traced=()
for ((i = 0; i < runs; i++)); do
  plain+=("$("$bench" "$calls")")
  traced+=("$(LD_PRELOAD="$build_dir/lib/libaiprof.so $build_dir/lib/libaiprof_osrt.so" \
    AIPROF_OPTIONS="{\"output\":\"$out\",\"osrt\":{\"on\":true,\"threshold_ns\":1000}}" \
    "$bench" "$calls" 2>/dev/null)")
  rm -rf "${out:?}"/PROF_*
done
p=$(printf '%s\n' "${plain[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
echo "lock+unlock ns: plain median $p, with osrt median $t, added $(awk "BEGIN{print $t - $p}") ns"
