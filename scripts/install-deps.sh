#!/usr/bin/env bash
# Installs the Debian packages aiprof needs to build and test. Safe to run repeatedly:
# it only calls apt-get when something is missing, and only as root.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang
  openmpi-bin libopenmpi-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libzstd-dev zstd libsqlite3-dev sqlite3
  nlohmann-json3-dev libcli11-dev libcpp-httplib-dev libfmt-dev
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-setuptools python3-pip
  python3-torch libtorch-dev
  procps tmux
  zlib1g-dev linux-perf libdw-dev libsimdjson-dev
  nodejs chromium
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# The web UI bundle (web/) needs npm; a nodejs build that bundles its own npm (NodeSource)
# conflicts with Debian's npm package, so npm is asked for only when no npm is found.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "aiprof: missing Debian packages: ${missing[*]}" >&2
  echo "aiprof: run 'sudo $0' (or install them with apt-get) and try again." >&2
  exit 1
fi

echo "aiprof: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
