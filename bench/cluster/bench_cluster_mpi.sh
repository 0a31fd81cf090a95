#!/usr/bin/env bash
# `aiprof cluster` on one data set: threads (--jobs=2) against `mpirun -n 2` (--jobs=1 in
# each process), alternating, RUNS rounds; each round runs every given aiprof build both
# ways (so a before/after comparison shares the machine's load). Prints every run (wall,
# user + system CPU of the whole run, mpirun and its processes included, peak RSS of the
# largest process, the load average) and then the medians per build and way.
#   bench_cluster_mpi.sh <data dir> [runs (default 5)] [aiprof ... (default build/bin/aiprof)]
# A data set: bench_cluster raw --ranks=64 --events=1000000 --dir=D --keep (D/data).
# MPIRUN_OPTIONS set (e.g. "--bind-to none"): every round also runs `mpirun -n 2` with them.
set -euo pipefail
data=$1 runs=${2:-5}
shift $(($# < 2 ? $# : 2))
builds=("$@")
((${#builds[@]})) || builds=(build/bin/aiprof)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
read -r -a mpirun_options <<<"${MPIRUN_OPTIONS:-}"

labels=()
# run <label> <command...>: appends "wall cpu peak_kib" to the label's results file.
run() {
  local label=$1
  shift
  local file=$work/results${#labels[@]}
  for ((l = 0; l < ${#labels[@]}; ++l)); do [[ ${labels[l]} == "$label" ]] && file=$work/results$l; done
  [[ $file == "$work/results${#labels[@]}" ]] && labels+=("$label")
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null
  read -r wall user sys peak <"$work/time"
  local cpu load
  cpu=$(echo "$user + $sys" | bc)
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "$wall $cpu $peak" >>"$file"
  printf '%-60s %6.2f s wall %6.2f s CPU  peak %6d KiB  load %s\n' "$label" "$wall" "$cpu" "$peak" "$load"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

uptime
for ((i = 0; i < runs; ++i)); do
  for aiprof in "${builds[@]}"; do
    run "$aiprof threads --jobs=2" \
      "$aiprof" cluster -d "$data" -o "$work/out" --jobs=2 --no-cache
    run "$aiprof mpirun -n 2 --jobs=1" \
      mpirun --oversubscribe --allow-run-as-root -n 2 \
      "$aiprof" cluster -d "$data" -o "$work/out" --jobs=1 --no-cache
    ((${#mpirun_options[@]})) || continue
    run "$aiprof mpirun -n 2 $MPIRUN_OPTIONS --jobs=1" \
      mpirun --oversubscribe --allow-run-as-root "${mpirun_options[@]}" -n 2 \
      "$aiprof" cluster -d "$data" -o "$work/out" --jobs=1 --no-cache
  done
done
uptime
echo "medians of $runs runs:"
for ((l = 0; l < ${#labels[@]}; ++l)); do
  label=${labels[l]} file=$work/results$l
  printf '%-60s %6.2f s wall %6.2f s CPU  peak %6d KiB\n' "$label" \
    "$(cut -d' ' -f1 "$file" | median)" "$(cut -d' ' -f2 "$file" | median)" \
    "$(cut -d' ' -f3 "$file" | sort -n | tail -1)"
done
