#!/usr/bin/env bash
# Benchmark: the PMU model's cost against virtual time, phases and threads
# (issue 26). Generates the scenarios of gen.py into a temporary folder and
# times `pmukit stat --model S -e cycles,instructions` on each: CPU time
# (user + system) and peak memory, each run capped at TIMEOUT seconds.
#   bench/model/cost.sh [BUILD_DIR] [TIMEOUT] [CASE...]
# Cases (gen.py): max2 ph8000 ph100000 thr200 thr400 big shared.
# The cost should grow with reads, phase changes and context switches, not
# with virtual time: max2 (20,000 s of virtual time) in milliseconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
limit=${2:-120}
shift 2 2>/dev/null || shift $# 
cases=${*:-max2 ph8000 ph100000 thr200 thr400 big shared}
pmukit=$build/tools/pmukit/pmukit
[ -x "$pmukit" ] || { echo "no $pmukit: build first (bash scripts/build.sh build)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$here/gen.py" "$dir"
printf '%-10s %12s %10s %s\n' case "CPU s" "peak MB" "virtual s"
for c in $cases; do
	virt=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
import collections; per=collections.Counter(); \
[per.update({t['cpu']: sum(p['ms'] for p in t['phases'])}) for t in d['threads']]; \
print('%g' % (max(per.values()) / 1e3))" "$dir/$c.json")
	if /usr/bin/time -o "$dir/time" -f '%U %S %M' timeout -s KILL "$limit" "$pmukit" stat --model \
		"$dir/$c.json" -e cycles,instructions -o /dev/null >/dev/null 2>&1; then
		read -r u s kb <"$dir/time"
		printf '%-10s %12.2f %10.1f %s\n' "$c" "$(echo "$u + $s" | bc)" "$(echo "$kb / 1024" | bc -l)" "$virt"
	else
		printf '%-10s %12s %10s %s\n' "$c" ">${limit}" "-" "$virt"
	fi
done
