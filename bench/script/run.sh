#!/usr/bin/env bash
# Benchmark: `pmukit script` against `perf script` on the same recordings,
# two sizes (default 200 and 400 MB): wall time and peak RSS of each, RUNS
# runs per tool (default 3, interleaved), medians and the perf/pmukit ratio.
#   bench/script/run.sh [PMUKIT] [SIZE_MB...]      (RUNS=5 bench/script/run.sh ...)
# Recordings are made by perf (system-wide cpu-clock at 20 kHz per CPU with
# call chains, while two busy loops run) into $PK_BENCH_DIR (default
# /tmp/pmukit-bench-script) and kept for reruns. Output goes to /dev/null.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmukit=${1:-$here/../../build/tools/pmukit/pmukit}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200 400)
runs=${RUNS:-3}
dir=${PK_BENCH_DIR:-/tmp/pmukit-bench-script}
mkdir -p "$dir"
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }

record() { # size_mb file
	local mb=$1 f=$2
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -ge $((mb * 1000000)) ] && return
	echo "recording $f (>= $mb MB) ..." >&2
	( for _ in 1 2; do (while :; do :; done) & done; wait ) &
	local busy=$!
	perf record -q -a -g -e cpu-clock -c 50000 -m 1024 -o "$f" 2>/dev/null &
	local rec=$!
	while [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -lt $((mb * 1000000)) ]; do sleep 1; done
	kill -INT $rec; wait $rec || true
	pkill -P $busy || true; kill $busy 2>/dev/null || true; wait $busy 2>/dev/null || true
}

measure() { # cmd... -> "seconds peak_rss_kB"
	local t
	t=$(mktemp)
	/usr/bin/time -f "%e %M" -o "$t" "$@" >/dev/null 2>/dev/null || true
	tail -1 "$t"
	rm -f "$t"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf "%-7s %-7s %-26s %8s %14s %10s\n" size tool "seconds (runs)" median "peak_rss_MB" samples
for mb in "${sizes[@]}"; do
	f=$dir/rec-$mb.data
	record "$mb" "$f"
	real=$(( $(stat -c %s "$f") / 1000000 ))
	n=$("$pmukit" script -G -F tid -i "$f" | wc -l)
	declare -A secs=() rss=()
	for ((i = 0; i < runs; i++)); do
		for tool in pmukit perf; do
			if [ $tool = pmukit ]; then cmd=("$pmukit" script -i "$f"); else cmd=(perf script -i "$f"); fi
			read -r s r < <(measure "${cmd[@]}")
			secs[$tool]+="$s "
			rss[$tool]+="$r "
		done
	done
	for tool in pmukit perf; do
		med=$(tr ' ' '\n' <<<"${secs[$tool]}" | grep . | median)
		maxrss=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | sort -n | tail -1)
		eval "med_$tool=$med"
		printf "%-7s %-7s %-26s %8s %14s %10s\n" "${real}MB" $tool "${secs[$tool]}" "$med" \
			$((maxrss / 1024)) "$n"
	done
	awk -v a="$med_perf" -v b="$med_pmukit" -v s="${real}MB" \
		'BEGIN {printf "%-7s ratio   perf/pmukit median wall time: %.1fx\n", s, a / b}'
done
