#!/usr/bin/env bash
# `aiprof advise` on the demo's data (docs/PERFORMANCE.md, "Advice"): profiles the demo job
# as scripts/demo.sh does (examples/train --steps=1000 with mstx ranges and host sampling),
# then times `aiprof advise` end to end (parse, analyses, rules, report, advice.json and
# advice.html) RUNS times and prints each wall time and the median. Target: under 1 s.
#   bench/advise_demo.sh [build_dir] [runs]
set -euo pipefail
build_dir=${1:-build}
runs=${2:-5}
aiprof="$build_dir/bin/aiprof"
train="$build_dir/bin/examples/train"
for tool in "$aiprof" "$train"; do
  [[ -x $tool ]] || { echo "advise_demo: $tool is missing; run 'make build' first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/aiprof_advise_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$aiprof" --output="$work" --export=off --msproftx=on --host-sys=cpu,mem,disk \
  --host-sys-usage=cpu,mem --host-sys-usage-freq=10 "$train" --steps=1000 >/dev/null 2>&1
prof=$(find "$work" -maxdepth 1 -name 'PROF_*' | head -1)
echo "data: $(du -sb "$prof/host/data" | cut -f1) bytes of raw data; load average $(cut -d' ' -f1-3 /proc/loadavg)"
times=()
for ((i = 0; i < runs; ++i)); do
  start=$(date +%s.%N)
  "$aiprof" advise --output="$prof" >/dev/null
  end=$(date +%s.%N)
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
  echo "run $((i + 1)): ${times[-1]} s"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }')
echo "median of $runs: $median s wall (target < 1 s); load average $(cut -d' ' -f1-3 /proc/loadavg)"
