#!/usr/bin/env bash
# `aiprof cluster` on one data set: threads (--jobs=2) against `mpirun -n 2` (--jobs=1 in
# each process), alternating, RUNS times each; prints wall and CPU seconds and the peak RSS
# (the largest process) of every run.
#   bench_cluster_mpi.sh <aiprof> <data dir> [runs]
# A data set: bench_cluster raw --ranks=64 --events=1000000 --dir=D --keep (D/data).
set -euo pipefail
aiprof=$1 data=$2 runs=${3:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for ((i = 0; i < runs; ++i)); do
  /usr/bin/time -f "threads --jobs=2: %e s wall, %U+%S s CPU, peak %M KiB" \
    "$aiprof" cluster -d "$data" -o "$out" --jobs=2 --no-cache >/dev/null
  /usr/bin/time -f "mpirun -n 2 --jobs=1: %e s wall, %U+%S s CPU, peak %M KiB (mpirun's largest child)" \
    mpirun --oversubscribe --allow-run-as-root -n 2 \
    "$aiprof" cluster -d "$data" -o "$out" --jobs=1 --no-cache >/dev/null
done
