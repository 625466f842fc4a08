#!/usr/bin/env bash
# Installs what pmukit needs to build and test on Debian (12 or later).
set -euo pipefail
pkgs=(build-essential meson ninja-build pkg-config clang libclang-rt-dev
      libpfm4-dev libjansson-dev libelf-dev libdw-dev libzstd-dev libtraceevent-dev libcmocka-dev
      linux-perf python3 hyperfine chromium groff-base)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
