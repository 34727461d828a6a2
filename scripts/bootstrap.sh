#!/usr/bin/env bash
# Installs the Debian packages mdtune needs (only those missing; quiet when all are
# present), then configures and builds into ./build (or $MDT_BUILD_DIR).
# Usage: scripts/bootstrap.sh [--peers]   (--peers also installs LAMMPS for the peer benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libgtest-dev libbenchmark-dev libfftw3-dev libeigen3-dev
          libsqlite3-dev sqlite3 nlohmann-json3-dev libtomlplusplus-dev libhwloc-dev
          libopenmpi-dev openmpi-bin libcli11-dev valgrind munge slurm-wlm gromacs gromacs-data)
for arg in "$@"; do
  case "$arg" in
    --peers) packages+=(lammps) ;;
    *) echo "bootstrap.sh: unknown option '$arg' (expected --peers)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${MDT_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$jobs"
