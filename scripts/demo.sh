#!/usr/bin/env bash
# `make demo`: runs the mstx sample under the runtime (AIPROF_OPTIONS, as the launcher will
# pass it) and the NVTX sample with LD_PRELOAD, then dumps what the runtime recorded.
set -euo pipefail
build_dir=${1:-build}
out=${DEMO_OUT:-demo_out}
rm -rf "$out"
mkdir -p "$out"
AIPROF_OPTIONS="{\"output\":\"$out\",\"mode\":\"launch\"}" "$build_dir/bin/mstx_sample" 50 2
if [[ -x $build_dir/bin/nvtx_sample ]]; then
  LD_PRELOAD="$PWD/$build_dir/lib/libaiprof.so" AIPROF_OPTIONS="{\"output\":\"$out\",\"mode\":\"launch\"}" \
    "$build_dir/bin/nvtx_sample" 20 2
fi
for dir in "$out"/PROF_*; do
  echo "== $dir"
  "$build_dir/bin/aiprof-dump" --summary "$dir" | grep -v '^  metadata'
done
# Export every PROF_* directory: timeline, summaries and a short summary on the terminal.
cli="$build_dir/bin/aiprof"
[[ -x $cli ]] || cli="$build_dir/bin/aiprof-export-testcli"
"$cli" export --output="$out"
