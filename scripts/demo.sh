#!/usr/bin/env bash
# `make demo`: profiles the sample C++ training job with aiprof, exports the data when the
# exporter is part of the build, prints a short summary and the analysis report, and where
# to look.
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

echo "== aiprof --output=$out --export=off --msproftx=on --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem --host-sys-usage-freq=10 $train --steps=1000"
"$aiprof" --output="$out" --export=off --msproftx=on --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem \
  --host-sys-usage-freq=10 "$train" --steps=1000

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
"$aiprof" export --output="$prof" --type=db >/dev/null

export_dir=$(find "$prof" -maxdepth 1 -type d -name 'aiprof_output*' | sort | tail -1)
if [[ -z $export_dir ]]; then
  echo "demo: the export wrote no aiprof_output directory in $prof" >&2
  exit 1
fi
latest() { find "$export_dir" -maxdepth 1 -name "$1" | sort | tail -1; }
tx_csv=$(latest 'msprof_tx_*.csv')
if [[ -n $tx_csv ]]; then
  echo
  echo "== Top ranges by total time (from $(basename "$tx_csv"))"
  awk -F, 'NR > 1 && $5 != "marker" {
             d = $9 - $8; total[$11] += d; count[$11]++
           }
           END {
             for (name in total) printf "%-14s %8d %12.1f %10.1f\n", name, count[name], total[name] / 1000, total[name] / count[name]
           }' "$tx_csv" | sort -k3 -n -r | head -n 8 |
    awk 'BEGIN { printf "%-14s %8s %12s %10s\n", "range", "count", "total(ms)", "avg(us)" } { print }'
fi
step_csv=$(latest 'step_trace_*.csv')
if [[ -n $step_csv ]]; then
  echo
  echo "== Step times (from $(basename "$step_csv"))"
  awk -F, 'NR > 1 && $6 != "N/A" { print $6 }' "$step_csv" | sort -n |
    awk '{ t[++n] = $1; sum += $1 }
         END {
           if (n > 0) printf "%d steps: mean %.1f us, median %.1f us, min %.1f us, max %.1f us\n", n, sum / n, t[int((n + 1) / 2)], t[1], t[n]
         }'
fi
if "$aiprof" analyze --help >/dev/null 2>&1; then
  echo
  echo "== aiprof analyze --output=$prof"
  "$aiprof" analyze --output="$prof"
fi
if "$aiprof" advise --help >/dev/null 2>&1; then
  echo
  echo "== aiprof advise --output=$prof (tuning advice, most important first)"
  "$aiprof" advise --output="$prof"
fi
counter_csv=$(latest 'counters_*.csv')
if [[ -n $counter_csv ]]; then
  echo
  echo "== Resource usage (from $(basename "$counter_csv"))"
  awk -F, 'NR > 1 && ($3 ~ /proc\.cpu$|proc\.rss|proc\.threads|host\.cpu\.(user|sys|idle)$|host\.mem\.free/) {
             key = ($4 == "" ? $3 : $3 " (" $4 ")"); sum[key] += $6; n[key]++; if (!(key in max) || $6 > max[key]) max[key] = $6
           }
           END { for (k in sum) printf "  %-40s mean %12.1f  max %12.1f\n", k, sum[k] / n[k], max[k] }' "$counter_csv" | sort
fi
echo
echo "== Where to look"
echo "  exported files:  $export_dir (summaries: CSV with msprof column names)"
db=$(find "$prof" -maxdepth 1 -name 'aiprof_*.db' | sort | tail -1)
[[ -n $db ]] && echo "  SQLite database: $db"
timeline=$(find "$export_dir" -maxdepth 1 \( -name '*.json' -o -name '*.pftrace' \) | sort | head -1)
if [[ -n $timeline ]]; then
  echo "  timeline:        $timeline"
  echo "                   open https://ui.perfetto.dev (or chrome://tracing) and drop that file on it"
fi
[[ -d $export_dir/analysis ]] &&
  echo "  analyses:        $export_dir/analysis (step_trace_time.csv, overlap_analysis.csv; docs/analysis.md)"
[[ -f $export_dir/analysis/advice.html ]] &&
  echo "  tuning advice:   $export_dir/analysis/advice.html (advice.json; rules and thresholds: docs/advice.md)"
echo "  raw data:        $prof/host/data"
if "$aiprof" ui --help >/dev/null 2>&1; then
  echo
  echo "== Look at it in the web UI (overview, timeline, operators, resources)"
  echo "  $aiprof ui $out"
  echo "  (on a remote machine: add --no-browser, then ssh -L 8737:127.0.0.1:8737 <host> and open the printed URL)"
fi
