#!/usr/bin/env bash
# Wall time of `aiprof export --type=db` on a marker run of RANGES ranges (bench_export's
# data set: 4 threads of nested push/pop ranges, 2 records per range, zstd chunks as the
# runtime writes them), this build against a reference aiprof (the current main's) in the
# same run: the two alternate, RUNS exports each after one warm-up each, every export into a
# fresh copy of the data. Prints each run and the medians of wall time, CPU time (user +
# sys) and ranges per wall second, with the load average before and after.
#   bench/export/db_export_wall.sh <reference_aiprof> [build_dir] [runs] [ranges]
# REALTIME=1 runs each export under SCHED_FIFO (chrt -f 10, root only): on a machine shared
# with builds it then has both cores nearly to itself, as on a quiet machine (the kernel
# keeps 5% for the rest); it stalls the other processes for the seconds an export takes.
set -euo pipefail
reference=${1:?usage: bench/export/db_export_wall.sh <reference_aiprof> [build_dir] [runs] [ranges]}
build_dir=${2:-build}
runs=${3:-5}
ranges=${4:-4000000}
candidate="$build_dir/bin/aiprof"
generator="$build_dir/bin/bench_export"
for tool in "$reference" "$candidate" "$generator"; do
  [[ -x $tool ]] || { echo "db_export_wall: $tool is not built" >&2; exit 1; }
done
priority=()
[[ ${REALTIME:-0} == 1 ]] && priority=(chrt -f 10)
work=$(mktemp -d /tmp/aiprof_db_export_bench_XXXXXX)
trap 'rm -rf "$work"' EXIT
"$generator" --generate-only --events=$((ranges * 2)) --dir="$work/data" >/dev/null
prof=$(find "$work/data" -maxdepth 1 -name 'PROF_*' | head -1)

one_export() {  # aiprof → "wall cpu"
  rm -rf "$work/copy"
  mkdir "$work/copy"
  cp -a "$prof" "$work/copy/"
  if ! ${priority[@]+"${priority[@]}"} /usr/bin/time -f "%e %U %S" -o "$work/time" "$1" export \
    --output="$work/copy" --type=db \
    >"$work/log" 2>&1; then
    echo "db_export_wall: $1 export failed:" >&2
    cat "$work/log" >&2
    exit 1
  fi
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $ranges ranges${priority[*]:+; ${priority[*]}}"
one_export "$reference" >/dev/null
one_export "$candidate" >/dev/null
: >"$work/reference" && : >"$work/candidate"
for ((i = 1; i <= runs; ++i)); do
  one_export "$reference" | tee -a "$work/reference" | sed "s/^/run $i reference: wall, cpu s: /"
  one_export "$candidate" | tee -a "$work/candidate" | sed "s/^/run $i candidate: wall, cpu s: /"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for side in reference candidate; do
  wall=$(cut -d' ' -f1 "$work/$side" | median)
  cpu=$(cut -d' ' -f2 "$work/$side" | median)
  awk -v s="$side" -v w="$wall" -v c="$cpu" -v n="$ranges" \
    'BEGIN { printf "%-9s median wall %.2f s (%.2f M ranges/s), median cpu %.2f s (%.2f M ranges/s)\n", s, w, n / w / 1e6, c, n / c / 1e6 }'
done
