#!/usr/bin/env bash
# Reruns the comparison of docs/analysis.md ("On imported Kineto traces and against HTA"):
# HTA's critical_path_analysis and `aiprof analyze --critical-path` on the same traces.
#   scripts/compare-hta-critical-path.sh HTA_CHECKOUT [AIPROF_BINARY]
# HTA_CHECKOUT (or $HTA_ROOT) is a HolisticTraceAnalysis checkout (the folder holding hta/);
# HTA is not part of aiprof and not installed by it. Needs /usr/bin/python3 with pandas and
# networkx (Debian: python3-pandas python3-networkx python3-yaml). Without them it skips.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hta_root=${1:-${HTA_ROOT:-}}
aiprof=${2:-$here/../build/bin/aiprof}
python=/usr/bin/python3
if [[ -z $hta_root || ! -f $hta_root/hta/analyzers/critical_path_analysis.py ]]; then
  echo "compare-hta-critical-path: skipped: no HTA checkout given (pass the folder holding hta/ or set HTA_ROOT)"
  exit 0
fi
if ! "$python" -c 'import pandas, networkx' 2>/dev/null; then
  echo "compare-hta-critical-path: skipped: $python lacks pandas/networkx (apt-get install python3-pandas python3-networkx python3-yaml)"
  exit 0
fi
if [[ ! -x $aiprof ]]; then
  echo "compare-hta-critical-path: $aiprof is not built (cmake --build build --target aiprof)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$here/hta_critical_path.py" make-inputs "$work"
echo "HTA: $hta_root ($(git -C "$hta_root" rev-parse HEAD 2>/dev/null || echo 'not a git checkout'))"
"$python" "$here/hta_critical_path.py" run "$hta_root" "$work" 2> "$work/hta.log" ||
  { cat "$work/hta.log" >&2; exit 1; }
for name in torch113 torch113-kineto stream-wait; do  # torch113-ranked: as torch113
  echo "== aiprof on $name/"
  (cd "$work/$name" && "$aiprof" analyze --critical-path . 2>&1 |
    sed -n '/critical path (/,/what if/p' | sed '$d')
  segments=$(find "$work/$name" -name critical_path_segments.csv | head -1)
  echo "  per step and category (us), from $(basename "$segments"):"
  awk -F, 'NR > 1 { t[$1 " " $4] += $3 } END { for (k in t) printf "    step %s %.0f\n", k, t[k] }' \
    "$segments" | sort
done
