#!/usr/bin/env bash
# Overhead of CPU sampling on the sample training job (examples/train): wall, CPU (user +
# system of the whole process tree) and system time of the job plain, under aiprof with
# sampling off (the launcher's own cost), with sampling at 99 Hz and 1 kHz (defaults:
# frame-pointer chains, the blocking stack of every switch), at 99 Hz with blocking stacks
# at up to 1000 switches a second per thread (--sys-cpu-off-cpu-stacks=1000), at 99 Hz
# with DWARF stack copies, and under `perf record -g` at 99 Hz and 1 kHz. Every aiprof side
# runs with --task-time=off --export=off, so the difference to "aiprof off" is the sampling
# alone. Runs alternate so machine-load drifts hit every side; prints each side's medians
# of RUNS and their change against "aiprof off" (and plain for perf). On a shared machine
# system time is the steadiest of the three: the sampling's cost is kernel work.
#   bench/cpu_sampling/cpu_sampling_overhead.sh [build_dir] [runs] [steps]
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
runs=${2:-5}
steps=${3:-1500}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
out=$(mktemp -d /tmp/aiprof_cpu_overhead_XXXXXX)
trap 'rm -rf "$out"' EXIT
# "wall_ms cpu_ms sys_ms" of one run.
measure() {
  local TIMEFORMAT='%R %U %S' report
  report=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $3 * 1000}' <<<"$report"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A wall_of cpu_of sys_of
labels=(plain aiprof_off aiprof_99 aiprof_1000 aiprof_99_stacks_rate_1000 aiprof_99_dwarf)
have_perf=0
if perf record -q -o "$out/probe.data" true >/dev/null 2>&1; then
  have_perf=1
  labels+=(perf_99 perf_1000)
fi
record() {
  local label=$1 wall cpu sys
  shift
  read -r wall cpu sys <<<"$(measure "$@")"
  wall_of[$label]+="$wall "
  cpu_of[$label]+="$cpu "
  sys_of[$label]+="$sys "
  rm -rf "${out:?}"/PROF_* "$out/perf.data"
}
aiprof_run() { "$aiprof" --output="$out" --task-time=off --export=off "$@" "$train" --steps="$steps"; }
for ((i = 0; i < runs; i++)); do
  record plain "$train" --steps="$steps"
  record aiprof_off aiprof_run
  record aiprof_99 aiprof_run --sys-cpu-profiling=on --sys-cpu-freq=99
  record aiprof_1000 aiprof_run --sys-cpu-profiling=on --sys-cpu-freq=1000
  record aiprof_99_stacks_rate_1000 aiprof_run --sys-cpu-profiling=on --sys-cpu-freq=99 \
    --sys-cpu-off-cpu-stacks=1000
  record aiprof_99_dwarf aiprof_run --sys-cpu-profiling=on --sys-cpu-freq=99 \
    --sys-cpu-call-graph=dwarf
  if ((have_perf)); then
    record perf_99 perf record -q -g -F 99 -o "$out/perf.data" "$train" --steps="$steps"
    record perf_1000 perf record -q -g -F 1000 -o "$out/perf.data" "$train" --steps="$steps"
  fi
done
of() { tr ' ' '\n' <<<"$1" | grep . | median; }
change() { awk "BEGIN{printf \"%+.1f\", $2 ? ($1 - $2) * 100 / $2 : 0}"; }
base_wall=$(of "${wall_of[aiprof_off]}")
base_cpu=$(of "${cpu_of[aiprof_off]}")
base_sys=$(of "${sys_of[aiprof_off]}")
plain_wall=$(of "${wall_of[plain]}")
plain_cpu=$(of "${cpu_of[plain]}")
plain_sys=$(of "${sys_of[plain]}")
echo "medians of $runs runs, $steps steps; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %9s %9s %9s  %s\n' side wall_ms cpu_ms sys_ms "change in wall / cpu / sys"
for label in "${labels[@]}"; do
  w=$(of "${wall_of[$label]}")
  c=$(of "${cpu_of[$label]}")
  y=$(of "${sys_of[$label]}")
  if [[ $label == perf_* || $label == plain ]]; then
    vs="$(change "$w" "$plain_wall")% / $(change "$c" "$plain_cpu")% / $(change "$y" "$plain_sys")% vs plain"
  else
    vs="$(change "$w" "$base_wall")% / $(change "$c" "$base_cpu")% / $(change "$y" "$base_sys")% vs aiprof off"
  fi
  printf '%-28s %9s %9s %9s  %s\n' "$label" "$w" "$c" "$y" "$vs"
done
((have_perf)) || echo "perf record: not runnable here (linux-perf missing or refused)"
