#!/usr/bin/env bash
# `make demo`: profiles the sample C++ training job with aiprof, exports the data when the
# exporter is part of the build, and prints a short summary and where to look.
#   scripts/demo.sh [build_dir]
set -euo pipefail
build_dir=${1:-build}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  if [[ ! -x $tool ]]; then
    echo "demo: $tool is missing; run 'make build' first (the sample needs the runtime, libaiprof.so)" >&2
    exit 1
  fi
done
out=demo_out
rm -rf "$out"  # the demo's own output only

echo "== aiprof --output=$out --msproftx=on --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem --host-sys-usage-freq=10 $train --steps=400"
"$aiprof" --output="$out" --msproftx=on --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem \
  --host-sys-usage-freq=10 "$train" --steps=400

prof_dirs=("$out"/PROF_*)
if [[ ! -d ${prof_dirs[0]} ]]; then
  echo "demo: no PROF_* directory was written to $out" >&2
  exit 1
fi
prof=${prof_dirs[0]}
echo
echo "== Raw data"
find "$prof" -type f -printf '  %p (%s bytes)\n' | sort

if ! "$aiprof" export --help >/dev/null 2>&1; then
  echo
  echo "The exporter is not part of this build, so there is no timeline or summary yet."
  echo "Raw data is in $prof (format: docs/raw-format.md)."
  exit 0
fi

echo
echo "== aiprof export --output=$prof"
"$aiprof" export --output="$prof"

export_dir=$(find "$prof" -maxdepth 1 -type d -name 'aiprof_output*' | sort | tail -1)
if [[ -z $export_dir ]]; then
  echo "demo: the export wrote no aiprof_output directory in $prof" >&2
  exit 1
fi
echo
echo "== Summary (first rows of each summary table)"
for csv in "$export_dir"/*.csv; do
  [[ -f $csv ]] || continue
  echo "-- $(basename "$csv")"
  head -n 8 "$csv" | column -s, -t | cut -c1-160
done
echo
echo "== Where to look"
echo "  exported files:  $export_dir"
timeline=$(find "$export_dir" -maxdepth 1 \( -name '*.json' -o -name '*.pftrace' \) | sort | head -1)
if [[ -n $timeline ]]; then
  echo "  timeline:        $timeline"
  echo "                   open https://ui.perfetto.dev (or chrome://tracing) and drop that file on it"
fi
echo "  raw data:        $prof/host/data"
