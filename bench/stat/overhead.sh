#!/usr/bin/env bash
# Benchmark: CPU cost of the counting tool itself while it prints every
# 100 ms for 10 s, system-wide:
#   pmukit stat -a -I 100 [-e EVENTS] -- sleep 10   against   perf stat ...
# measured as user+sys CPU seconds of the tool process (getrusage of the
# waited-for children, via bash's `times`, to the millisecond; `sleep` adds
# ~1 ms to both). Output goes to /dev/null. Target: pmukit below perf.
#   bench/stat/overhead.sh [PMUKIT] [REPEATS] [SECONDS]
# Two event sets: task-clock alone, and the default set (no -e).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmukit=${1:-$here/../../build/tools/pmukit/pmukit}
reps=${2:-3}
secs=${3:-10}
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }

cpu() { # tool args... ; prints user+sys seconds of it and its children
	# bash's `times` in a subshell: the children's getrusage, to the ms
	local t
	t=$( ( "$@" >/dev/null 2>&1; times ) | tail -1)
	awk '{ split($1, u, "[ms]"); split($2, s, "[ms]");
	       printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' <<<"$t"
}

for events in "-e task-clock" ""; do
	label=${events:-"(default events)"}
	for tool in pmukit perf; do
		bin=$pmukit
		[ $tool = perf ] && bin=perf
		vals=()
		for _ in $(seq "$reps"); do
			vals+=("$(cpu "$bin" stat -a -I 100 $events -o /dev/null -- sleep "$secs")")
		done
		printf "%-7s -a -I 100 %-18s %ss: user+sys CPU s = %s\n" "$tool" "$label" "$secs" "${vals[*]}"
	done
done
