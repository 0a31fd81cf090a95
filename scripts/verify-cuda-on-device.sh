#!/usr/bin/env bash
# Runs scripts/verify-cuda.sh on a GPU machine from the package that
# scripts/package-for-device.sh made on the build machine: drops the packed shared libraries
# the machine already has, builds the torch plugin and the Python extension against the
# machine's own PyTorch and Python (their ABIs differ from the build machine's), runs the
# verification and packs its work folder.
#
#   scripts/verify-cuda-on-device.sh [package_dir] [results_dir]
#
# results_dir gets verify.log, results.md and v.tgz (the work folder, PROF_* data included).
set -uo pipefail
cd "$(dirname "$0")/.."
PKG=$(realpath "${1:-.gpu}")
RESULTS=$(realpath -m "${2:-${OUT:-/tmp/aiprof-device-results}}")
WORK=/tmp/aiprof-verify-cuda
mkdir -p "$RESULTS"
export PYTHONUNBUFFERED=1
echo "== machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
for f in "$PKG"/deps/*; do
  ldconfig -p | grep -q " $(basename "$f") " && rm "$f"
done
export LD_LIBRARY_PATH=$PKG/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
lib() {  # the machine's copy of a shared library, else the packed one
  local found
  found=$(ldconfig -p | awk -v n="$1" '$1 == n {print $NF; exit}')
  echo "${found:-$PKG/deps/$1}"
}

echo "== torch plugin for this PyTorch"
TORCH=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
ABI=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
g++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI="$ABI" \
  -Isrc -Iinclude -I"$PKG/include" -isystem "$TORCH/include" \
  -isystem "$TORCH/include/torch/csrc/api/include" src/sources/torch/torch_plugin.cc \
  "$PKG/a/libaiprof_format.a" -L"$TORCH/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$TORCH/lib" \
  -Wl,-z,nodelete -o "$PKG/lib/libaiprof_torch.so" || echo "torch plugin build FAILED"

echo "== Python extension for this interpreter"
INCLUDES=$(python3 -m pybind11 --includes)
SUFFIX=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
OBJECTS=$(mktemp -d)
for source in module runtime_api python_events recorded_model; do
  # shellcheck disable=SC2086  # INCLUDES is a list of flags
  g++ -std=c++20 -O2 -fPIC -fvisibility=hidden -Isrc -Iinclude -I"$PKG/include" $INCLUDES \
    -c "python/src/$source.cc" -o "$OBJECTS/$source.o" &
done
wait
A=$PKG/a
g++ -shared -o "$PKG/python/aiprof/_aiprof$SUFFIX" "$OBJECTS"/*.o "$A/libaiprof_export.a" \
  "$A/libaiprof_model.a" "$A/libaiprof_format.a" -ldl "$A/libaiprof_advice.a" \
  "$A/libaiprof_analysis.a" "$(lib libdw.so.1)" "$(lib libelf.so.1)" "$A/libaiprof_export_cuda.a" \
  "$A/libaiprof_model.a" "$A/libaiprof_format.a" "$(lib libzstd.so.1)" \
  "$A/libaiprof_summary_writer.a" "$(lib libsqlite3.so.0)" "$(lib libz.so.1)" ||
  echo "Python extension build FAILED"

echo "== verify-cuda.sh"
timeout 500 bash scripts/verify-cuda.sh "$PKG" "$WORK" > "$RESULTS/verify.log" 2>&1
rc=$?
grep -E "^(PASS|FAIL)|^step ms|aiprof: " "$RESULTS/verify.log"
cp "$WORK/results.md" "$RESULTS/" 2>/dev/null
tar czf "$RESULTS/v.tgz" -C "$(dirname "$WORK")" "$(basename "$WORK")"
echo "verify-cuda.sh exit code $rc; results in $RESULTS"
exit $rc
