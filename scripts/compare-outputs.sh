#!/usr/bin/env bash
# Output equivalence check for refactors of the output layer: the same raw data exported by
# two builds must give the same files and the same databases.
#
#   scripts/compare-outputs.sh record <build_dir> <raw_dir>
#       Profiles three jobs once with <build_dir>'s aiprof and keeps their raw data in
#       <raw_dir>: `make demo`'s C++ training job, the PyTorch example (examples/pytorch/
#       train.py; once more with --task-memory=on) and a 4-rank gloo job (examples/pytorch/distributed_gloo.py).
#   scripts/compare-outputs.sh export <build_dir> <raw_dir> <out_dir>
#       Exports a copy of <raw_dir> with <build_dir>'s aiprof (export --type=text, --type=db,
#       --summary-format=json, each once more with --critical-path=on; aiprof cluster, with and
#       without --critical-path) into <out_dir>: every file with its export timestamp taken
#       out of its name, every SQLite database also as `sqlite3 .dump`.
#   scripts/compare-outputs.sh compare <reference_build> <build_dir> <raw_dir>
#       Exports with both builds and diffs the results (exit 1 on any difference).
# Jobs are timed, so their raw data differs run to run: only a re-export of one recording
# can be compared byte for byte.
set -euo pipefail

torch_python=/usr/bin/python3  # the Python with torch (python3 on PATH may lack it)
repo=$(cd "$(dirname "$0")/.." && pwd)

record() {
  local build=$1 raw=$2
  local aiprof="$build/bin/aiprof"
  rm -rf "$raw"
  mkdir -p "$raw"
  "$aiprof" --output="$raw/demo" --export=off --msproftx=on --host-sys=cpu,mem,disk \
    --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$build/bin/examples/train" --steps=200 \
    >/dev/null
  env -u PYTHONPATH "$aiprof" --output="$raw/torch" --export=off --task-time=on \
    "$torch_python" "$repo/examples/pytorch/train.py" --steps=5 --model=both >/dev/null
  env -u PYTHONPATH "$aiprof" --output="$raw/torch_memory" --export=off --task-time=on \
    --task-memory=on "$torch_python" "$repo/examples/pytorch/train.py" --steps=4 --model=mlp \
    >/dev/null
  env -u PYTHONPATH "$aiprof" --output="$raw/cluster" --export=off --task-time=on \
    "$torch_python" "$repo/examples/pytorch/distributed_gloo.py" --world-size=4 --steps=3 \
    --slow-rank=3 --extra-compute-ms=50 >/dev/null
}

# Names without the export run's timestamp (`_YYYYMMDDhhmmss` or a longer run of digits).
normalise_names() {
  local dir=$1 f new
  find "$dir" -depth -mindepth 1 | while read -r f; do
    new="$(dirname "$f")/$(basename "$f" | sed -E 's/_[0-9]{14,17}//g')"
    [[ $f == "$new" ]] || mv "$f" "$new"
  done
}

export_all() {
  local build=$1 raw=$2 out=$3
  local aiprof="$build/bin/aiprof"
  # One fixed place: outputs name the directory they were exported in.
  local work=${TMPDIR:-/tmp}/aiprof-compare-work
  rm -rf "$work"
  mkdir -p "$work"
  cp -a "$raw/." "$work/"
  local set prof
  for set in demo torch torch_memory cluster; do
    [[ -d $work/$set ]] || continue
    # One export per folder: the runs' files would share names once the timestamps go.
    local kind
    for kind in text db json critical_text critical_db critical_json; do
      case $kind in
        json) "$aiprof" export --output="$work/$set" --summary-format=json >/dev/null ;;
        critical_json)
          "$aiprof" export --output="$work/$set" --summary-format=json --critical-path=on \
            >/dev/null
          ;;
        critical_*)
          "$aiprof" export --output="$work/$set" --type="${kind#critical_}" --critical-path=on \
            >/dev/null
          ;;
        *) "$aiprof" export --output="$work/$set" --type=$kind >/dev/null ;;
      esac
      for prof in "$work/$set"/PROF_*; do
        if [[ -d $prof/aiprof_output ]]; then mv "$prof/aiprof_output" "$prof/${kind}_output"; fi
        # Each database export keeps its own name: once the timestamps go, every export's
        # aiprof_<timestamp>.db would be one aiprof.db.
        local db
        for db in "$prof"/aiprof_*.db; do
          if [[ -f $db ]]; then mv "$db" "$prof/${kind}_aiprof.db"; fi
        done
      done
    done
    "$aiprof" analyze --output="$work/$set" >"$work/$set/analyze.txt" 2>&1 || true
  done
  if [[ -d $work/cluster ]]; then
    "$aiprof" cluster -d "$work/cluster" --jobs=2 >"$work/cluster/cluster_report.txt"
    # Again with the critical rank per step (cluster_critical_path.csv, ClusterCriticalPath).
    mv "$work/cluster/cluster_analysis_output" "$work/cluster/cluster_plain_output"
    "$aiprof" cluster -d "$work/cluster" --jobs=2 --critical-path \
      >"$work/cluster/cluster_critical_report.txt"
  fi
  rm -rf "$out"
  mkdir -p "$out"
  for set in demo torch torch_memory cluster; do
    [[ -d $work/$set ]] || continue
    mkdir -p "$out/$set"
    # PROF_* names hold the recording's time, the same in both exports; keep them.
    tar -C "$work/$set" --exclude=./PROF_*/host --exclude=info.json --exclude='*.lock' \
      --exclude='.reserve*' -cf - . | tar -C "$out/$set" -xf -
  done
  rm -rf "$work"
  normalise_names "$out"
  local db
  find "$out" -name '*.db' | while read -r db; do
    # A CREATE TABLE's text as one line: a schema generated from a column description
    # differs from a hand-written one only in its line breaks.
    sqlite3 "$db" .dump | perl -0pe 's/\n[ \t]+/ /g' >"$db.dump"
    rm "$db"
  done
  # Contents that name an export run's file (traceName) or time the run (the cluster's
  # progress lines, printed as ranks finish).
  find "$out" -type f ! -name '*.dump' -exec sed -i -E 's/_20[0-9]{12}\././g' {} +
  find "$out" -type f -name '*.dump' -exec sed -i -E 's/_20[0-9]{12}\.json/.json/g' {} +
  # The rank summary cache's first line keys it to the aiprof binary that wrote it.
  find "$out" -name cluster_rank_summary.bin -exec sed -i 1d {} +
  sed -i -E '/^  rank [0-9]+: [0-9]+ events/d' "$out/cluster/cluster_report.txt" \
    "$out/cluster/cluster_critical_report.txt" 2>/dev/null || true
}

case ${1:-} in
  record) record "$2" "$3" ;;
  export) export_all "$2" "$3" "$4" ;;
  compare)
    reference=$(mktemp -d) candidate=$(mktemp -d)
    export_all "$2" "$4" "$reference/out"
    export_all "$3" "$4" "$candidate/out"
    status=0
    if diff -r "$reference/out" "$candidate/out" >"$candidate/diff.txt"; then
      echo "compare-outputs: identical ($(find "$reference/out" -type f | wc -l) files)"
    else
      status=1
      head -c 20000 "$candidate/diff.txt"
      echo "compare-outputs: DIFFERENT (full diff: $candidate/diff.txt)"
    fi
    rm -rf "$reference"
    exit $status
    ;;
  *)
    sed -n '2,17p' "$0"
    exit 2
    ;;
esac
