#!/usr/bin/env bash
# Benchmark (issue 22): CPU cost of `stat -M GROUP -a -I 100` on a machine we
# do not have, pmukit against perf 6.1, in the same run:
#   pmukit stat -M GROUP -a -I 100 -- sleep SECS   against   perf stat ...
# Both run in tests/oracle/perf-ns.sh's mount namespace over a fixture PMU
# tree (PERF_CPUID names its CPU), with tests/oracle/peo_stub.c preloaded:
# every perf_event_open succeeds and read() serves counts from a file, so
# each interval reads, evaluates and prints the group's metrics as on the
# real machine. The counts: every (type, config) either tool opened gets a
# value derived from its config (a first run with zeros finds them).
# Measured: user+sys CPU seconds of the whole command (bash's `times`:
# getrusage of the waited-for children, to the ms; the namespace's sh,
# unshare and mount cost the same for both), rounds interleaved, the median
# and the spread printed. Output goes to /dev/null. Target: pmukit below perf.
#   bench/stat/metrics.sh [PMUKIT] [ROUNDS] [SECS] [MACHINE] [GROUP]
# Defaults: build/tools/pmukit/pmukit, 5 rounds, 10 s, skylake, TopdownL1.
# Needs root (unshare -m), perf 6.1 and cc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
pmukit=${1:-$src/build/tools/pmukit/pmukit}
rounds=${2:-5}
secs=${3:-10}
machine=${4:-skylake}
group=${5:-TopdownL1}
declare -A cpuid=([skylake]=GenuineIntel-6-5E-3 [icelake]=GenuineIntel-6-7E-5
	[sapphirerapids]=GenuineIntel-6-8F-4 [alderlake]=GenuineIntel-6-97-2)
[ -n "${cpuid[$machine]:-}" ] || { echo "machine: one of ${!cpuid[*]}" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
perf --version | grep -q "perf version 6\.1" || { echo "the reference is perf 6.1" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }
pmukit=$(realpath "$pmukit")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O1 -o "$tmp/stub.so" "$src/tests/oracle/peo_stub.c" -ldl
devices=$src/tests/data/sysfs/$machine/bus/event_source/devices
export PERF_CPUID=${cpuid[$machine]}
unset PMUKIT_CPUID

run() { # counts log tool: one run of the command
	PK_PEO_COUNTS=$1 PK_PEO_LOG=$2 sh "$src/tests/oracle/perf-ns.sh" -p "$tmp/stub.so" \
		"$devices" "$3" stat -M "$group" -a -I 100 -o /dev/null -- sleep "$secs"
}

cpu() { # counts tool: user+sys CPU seconds of one run
	local t
	t=$( ( run "$1" /dev/null "$2" >/dev/null 2>&1; times ) | tail -1)
	awk '{ split($1, u, "[ms]"); split($2, s, "[ms]");
	       printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' <<<"$t"
}

# the counts both tools read: found with zeros in a short run of each
printf 'times enabled=1000000 running=1000000\n' >"$tmp/zero"
secs_main=$secs
secs=0.3
run "$tmp/zero" "$tmp/perf.log" perf >/dev/null 2>&1 || { echo "perf cannot run in the namespace (root?)" >&2; exit 2; }
run "$tmp/zero" "$tmp/pmukit.log" "$pmukit" >/dev/null 2>&1 || { echo "pmukit failed on $group" >&2; exit 1; }
secs=$secs_main
{
	printf 'times enabled=1000000 running=1000000\n'
	grep -ho 'open fd=[0-9]* type=[0-9]* config=[^ ]* config1=[^ ]*' "$tmp/perf.log" "$tmp/pmukit.log" |
		sed 's/^open fd=[0-9]* //' | sort -u |
		while read -r t c c1; do
			v=$(( (0x$(printf '%s' "${c#config=}" | md5sum | cut -c1-6) % 90000) + 10000 ))
			printf '%s %s %s value=%d\n' "$t" "$c" "$c1" "$v"
		done
} >"$tmp/counts"

declare -a pk pf
for _ in $(seq "$rounds"); do
	pk+=("$(cpu "$tmp/counts" "$pmukit")")
	pf+=("$(cpu "$tmp/counts" perf)")
done
stats() { # values...: median min max
	printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
		m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
		printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}
read -r pkm pkl pkh <<<"$(stats "${pk[@]}")"
read -r pfm pfl pfh <<<"$(stats "${pf[@]}")"
echo "stat -M $group -a -I 100 -- sleep $secs on $machine ($PERF_CPUID), $rounds interleaved rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  pmukit  user+sys CPU s: median %s (min %s, max %s)\n' "$pkm" "$pkl" "$pkh"
printf '  perf    user+sys CPU s: median %s (min %s, max %s)\n' "$pfm" "$pfl" "$pfh"
awk -v a="$pkm" -v b="$pfm" 'BEGIN { if (a > 0) printf "  pmukit costs %.2fx perf'"'"'s CPU (%s)\n", a / b, a < b ? "met: below perf" : "not met" }'
