#!/usr/bin/env bash
# Runs bench/torch_overhead.py against a build (scripts/bench.sh calls every bench/*.sh).
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
python=${AIPROF_PYTHON:-/usr/bin/python3}
if [[ ! -f $build_dir/lib/libaiprof_torch.so ]] || ! "$python" -c "import torch" 2>/dev/null; then
  echo "torch_overhead: skipped (needs libtorch, the torch plugin and $python with torch)"
  exit 0
fi
PYTHONPATH="$build_dir/python" AIPROF_LIB_DIR="$build_dir/lib" OMP_NUM_THREADS=1 \
  "$python" "$(dirname "$0")/torch_overhead.py" "${@:2}"
