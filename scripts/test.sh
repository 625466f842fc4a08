#!/usr/bin/env bash
# Builds and runs every test: gcc, clang, and gcc with ASan+UBSan. Ends with
# one totals line over all cmocka test cases.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
logs=()
run_suite() { # name, builddir, meson setup args...
  local name=$1 dir=$2; shift 2
  echo "== $name build ($dir)"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; rc=1; logs+=("build-failed:$name"); return; }
  fi
  if ! ninja -C "$dir" >"$dir.ninja.log" 2>&1; then
    cat "$dir.ninja.log"; rc=1; logs+=("build-failed:$name"); return
  fi
  echo "== $name tests"
  meson test -C "$dir" --print-errorlogs --num-processes 2 || rc=1
  logs+=("$dir/meson-logs/testlog.json")
}
mkdir -p build-ci
CC=gcc run_suite gcc build-ci/gcc
CC=clang run_suite clang build-ci/clang
CC=gcc run_suite asan build-ci/asan -Db_sanitize=address,undefined -Db_lundef=false
# The installed library and pkg-config file work for an outside program.
install_smoke() {
  local d; d=$(mktemp -d)
  meson install -C build-ci/gcc --no-rebuild --destdir "$d" >/dev/null || return 1
  local pc; pc=$(dirname "$(find "$d" -name libpmukit.pc | head -1)")
  local flags; flags=$(PKG_CONFIG_SYSROOT_DIR="$d" PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs libpmukit) || return 1
  cc -std=c17 -Wall -Wextra -Werror examples/selfcount.c $flags \
     $(pkg-config --libs jansson libelf libzstd) -lpfm -lm -o "$d/selfcount" || return 1
  LD_LIBRARY_PATH=$(dirname "$(find "$d" -name 'libpmukit.so' | head -1)") "$d/selfcount" task-clock | grep -q task-clock || return 1
  rm -rf "$d"
}
if [ -f build-ci/gcc/build.ninja ]; then
  if install_smoke; then echo "== install smoke test: ok"; else echo "== install smoke test: FAILED"; rc=1; fi
fi
python3 scripts/test-totals.py "${logs[@]}" || rc=1
exit $rc
