#!/usr/bin/env bash
# Packs what scripts/verify-cuda-on-device.sh needs into <dir> (default .gpu, which
# .gitignore names): the build's binaries and libraries (debug info stripped),
# the static libraries the Python extension links, the shared libraries they need, the
# launch hook and the Python package, and nlohmann/json for the plugin builds. A GPU machine
# with another OS image and Python (Ubuntu 24.04, Python 3.12, PyTorch 2.x) then needs no
# dependency installed: the torch plugin and the Python extension are built there against
# its own PyTorch and Python. About 25 MiB.
#
#   scripts/package-for-device.sh [build_dir] [dir]
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-.gpu}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$OUT" && mkdir -p "$OUT"/{bin,lib,deps,include,a,python/aiprof}
for f in aiprof aiprof_cuda_report cuda_workload; do strip -o "$OUT/bin/$f" "$BUILD/bin/$f"; done
for f in libaiprof.so libaiprof_cuda.so libaiprof_osrt.so libaiprof_cpusampling.so; do
  strip --strip-debug -o "$OUT/lib/$f" "$BUILD/lib/$f"
done
for l in export model format advice analysis export_cuda summary_writer; do
  strip --strip-debug -o "$OUT/a/libaiprof_$l.a" "$BUILD/lib/libaiprof_$l.a"
done
# Every shared library the CLI and the runtime load, except the C and C++ runtimes: the
# device keeps its own where it has them (verify-cuda-on-device.sh drops the rest).
ldd "$BUILD/bin/aiprof" "$BUILD/lib/libaiprof.so" | awk '/=> \//{print $3}' | sort -u |
  grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$OUT/deps/"; done
cp -r /usr/include/nlohmann "$OUT/include/"
cp -r "$BUILD/python/aiprof_launch_hook" "$OUT/python/"
cp "$ROOT"/python/aiprof/*.py "$OUT/python/aiprof/"
cp -r "$ROOT"/python/aiprof/profiler "$OUT/python/aiprof/"
find "$OUT/python" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$OUT"
