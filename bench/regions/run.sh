#!/bin/bash
# bench/regions: the cost of a region reading (README.md here).
# Needs: a build (bash scripts/build.sh) and, for the PAPI_read comparison,
# Debian's libpapi-dev, which this script installs when it is missing (a
# benchmark need, not a dependency of the library); rebuilds the bench
# then, so meson finds papi.
# usage: bench/regions/run.sh [BUILD_DIR]   (build)
set -euo pipefail
build=${1:-build}
if ! pkg-config --exists papi; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y libpapi-dev >/dev/null
	else
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y libpapi-dev >/dev/null
	fi
	meson setup --reconfigure "$build" >/dev/null
fi
ninja -C "$build" bench/region-bench >/dev/null
"$build/bench/region-bench" bench/regions
