#!/bin/bash
# bench/regions: the cost of a region reading (README.md here).
# Needs: a build (bash scripts/build.sh) and, for the PAPI_read comparison,
# Debian's libpapi-dev, which this script installs when it is missing (a
# benchmark need, not a dependency of the library; without it the bench
# says "not built" and the rest runs); rebuilds the bench then, so meson
# finds papi. With valgrind, also the user-space instructions per
# operation (callgrind, only inside the operation's loop: the difference
# of N=11000 and N=1000 runs over 10000; the system call's kernel side is
# not counted).
# usage: bench/regions/run.sh [BUILD_DIR]   (build)
set -euo pipefail
build=${1:-build}
if ! pkg-config --exists papi; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y libpapi-dev >/dev/null || true
	else
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y libpapi-dev >/dev/null || true
	fi
	pkg-config --exists papi && meson setup --reconfigure "$build" >/dev/null
fi
ninja -C "$build" bench/region-bench >/dev/null
bench="$build/bench/region-bench"
"$bench" bench/regions
command -v valgrind >/dev/null || { echo "# instructions: no valgrind"; exit 0; }
# user-space instructions of one operation
irefs() { # OP N
	local f
	f=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="op_$3" \
		"$bench" --count "$1" "$2" 2>"$f" >/dev/null || { rm -f "$f"; return 1; }
	sed -n 's/.*refs: *//p' "$f" | tr -d ,
	rm -f "$f"
}
for op in bare:read snapshot:snapshot pair:pair papi:papi; do
	name=${op%%:*} fn=${op##*:}
	if a=$(irefs "$name" 1000 "$fn") && b=$(irefs "$name" 11000 "$fn"); then
		echo "instructions-per-op $name $(( (b - a) / 10000 ))"
	else
		echo "# instructions: $name cannot run here"
	fi
done
