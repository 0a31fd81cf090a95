#!/usr/bin/env bash
# `mpirun -n 2` and `-n 3` of `aiprof cluster` against the single-process run on the same
# generated 12-rank profile: every table must be byte-identical (the text files as they
# are, cluster.db as its SQL dump).
#   cluster_mpi_test.sh <aiprof> <cluster_testdata> <mpirun>
set -euo pipefail
aiprof=$1 testdata=$2 mpirun=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# MPI stays behind the plugin: the aiprof executable itself does not load libmpi.
if ldd "$aiprof" | grep -q libmpi; then
  echo "aiprof links libmpi; only libaiprof_cluster_mpi.so may:"; ldd "$aiprof"; exit 1
fi
"$testdata" "$work/data" 12 4 50 2 >/dev/null
# CI runs as root; OpenMPI refuses that without both the flag and the variables.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$aiprof" cluster -d "$work/data" -o "$work/threads" --jobs=2 --no-cache >"$work/threads.log"
for n in 2 3; do
  "$mpirun" --oversubscribe --allow-run-as-root -n "$n" \
    "$aiprof" cluster -d "$work/data" -o "$work/mpi$n" --jobs=1 --no-cache >"$work/mpi$n.log"
  grep -q "$n MPI processes" "$work/mpi$n.log" || {
    echo "mpirun -n $n: not run as $n MPI processes:"; cat "$work/mpi$n.log"; exit 1; }
  # With no more processes than cores mpirun binds each to one; process 0 then merges and
  # writes on the launcher's CPUs (cluster_mpi.cc, TakeTheLaunchersCpus).
  if ((n == 2 && $(nproc) >= 2)); then
    grep -q "process 0 merges and writes on $(nproc) CPU(s)" "$work/mpi$n.log" || {
      echo "mpirun -n 2: process 0 did not take the launcher's $(nproc) CPUs:"; cat "$work/mpi$n.log"; exit 1; }
  fi
  for file in cluster_step_trace_time.csv cluster_communication.json \
              cluster_communication_matrix.json cluster_base_info.json; do
    cmp "$work/threads/cluster_analysis_output/$file" "$work/mpi$n/cluster_analysis_output/$file"
  done
  cmp <(sqlite3 "$work/threads/cluster_analysis_output/cluster.db" .dump) \
      <(sqlite3 "$work/mpi$n/cluster_analysis_output/cluster.db" .dump)
done
# Without its index in the environment a process waits for MPI before taking ranks (the
# other path of cluster_mpi_session.h); the tables are the same.
"$mpirun" --oversubscribe --allow-run-as-root -n 2 env -u OMPI_COMM_WORLD_RANK \
  "$aiprof" cluster -d "$work/data" -o "$work/mpi_no_index" --jobs=1 --no-cache >/dev/null
cmp "$work/threads/cluster_analysis_output/cluster_step_trace_time.csv" \
    "$work/mpi_no_index/cluster_analysis_output/cluster_step_trace_time.csv"
cmp "$work/threads/cluster_analysis_output/cluster_communication.json" \
    "$work/mpi_no_index/cluster_analysis_output/cluster_communication.json"
grep -q "rank 6 (node1): +0.525 ms per step; why: compute" "$work/threads.log" || { echo "slow rank 6 not named:"; cat "$work/threads.log"; exit 1; }
echo "mpirun -n 2 and -n 3: identical to the threaded run"
