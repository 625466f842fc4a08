#!/usr/bin/env bash
# Benchmark: Arm SPE decode throughput of pmukit against Linux perf on the
# same generated perf.data of at least 200 MB (issue 11's targets: `script`
# 10x faster than perf's, a raw decode pass >= 1 GB/s on one core).
#   bench/spe/run.sh [BUILD_DIR]      (RUNS=5 D_RUNS=1 ITRACE=fl CALLGRIND=1 bench/spe/run.sh)
# Makes $PK_BENCH_DIR/spe-4-720000.data (212 MB; default /tmp/pmukit-bench-spe, kept for
# reruns; never in the repository) with build/tests/spe/spe_gen (4 CPUs,
# 720000 records each, perf61: only what perf 6.1 decodes the same way), then:
#   1. the raw decode pass: build/bench/spe-decode FILE 5 --perfdata (MB/s,
#      records/s, best of 5, one core);
#   2. `pmukit script` and `perf script` with the same options (ITRACE, if
#      set, is given to both as --itrace=ITRACE), RUNS interleaved runs each
#      with output to /dev/null: wall, CPU (user+sys) and peak RSS medians,
#      the perf/pmukit ratios from the same run. Once more each into a file:
#      lines, exit status and stderr's last line; the outputs are compared
#      (cmp) only when both printed lines and exited 0, else the script says
#      what each printed (perf 6.1 makes no samples from these files yet);
#   3. `pmukit report -D` and `perf report -D`, D_RUNS interleaved runs each
#      (default 1: perf takes minutes; 0 skips this part), then the SPE lines
#      of both (packet lines and each buffer's "ARM SPE data" line; perf also
#      dumps every other record) compared through pipes (cmp; no file
#      written; CMP_D=0 skips this: it runs both once more);
#   4. with CALLGRIND=1: instructions (valgrind --tool=callgrind, the
#      load-independent measure on a shared machine) of `pmukit script` and
#      `perf script` on two smaller files of the same kind (4 CPUs x 20000
#      and x 40000 records): totals, the ratio, and per record from the
#      difference (start-up costs cancel). perf takes minutes under valgrind.
# Records/s and MB/s of each tool are from the medians; MB is the file size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../../build}")
runs=${RUNS:-3}
d_runs=${D_RUNS:-1}
dir=${PK_BENCH_DIR:-/tmp/pmukit-bench-spe}
pmukit=$build/tools/pmukit/pmukit
gen=$build/tests/spe/spe_gen
decode=$build/bench/spe-decode
for x in "$pmukit" "$gen" "$decode"; do
	[ -x "$x" ] || { echo "no $x: build first (meson setup build && ninja -C build)" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
mkdir -p "$dir"
cpus=4 per_cpu=${PER_CPU:-720000} # PER_CPU: smaller files to try the script
f=$dir/spe-$cpus-$per_cpu.data
if [ ! -f "$f" ]; then
	echo "generating $f ..." >&2
	"$gen" "$f" 42 $per_cpu perf61 cpus=$cpus
fi
mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN {printf "%.1f", b / 1e6}')
records=$((cpus * per_cpu))
itrace=()
[ -n "${ITRACE:-}" ] && itrace=("--itrace=$ITRACE")
echo "file: $f, $mb MB, $records SPE records; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure, median
. "$here/../timing.sh"

# compare NAME RUNS PMUKIT-ARGS -- PERF-ARGS: interleaved timed runs, medians, ratios
compare() {
	local name=$1 n=$2 i tool
	shift 2
	local pk=() pf=()
	while [ "$1" != -- ]; do pk+=("$1"); shift; done
	shift
	pf=("$@")
	declare -A secs=() cpu=() rss=()
	for ((i = 0; i < n; i++)); do
		for tool in pmukit perf; do
			if [ $tool = pmukit ]; then
				read -r s c r < <(measure "$pmukit" "${pk[@]}")
			else
				read -r s c r < <(measure perf "${pf[@]}")
			fi
			secs[$tool]+="$s " cpu[$tool]+="$c " rss[$tool]+="$r "
		done
	done
	for tool in pmukit perf; do
		local m c r
		m=$(tr ' ' '\n' <<<"${secs[$tool]}" | grep . | median)
		c=$(tr ' ' '\n' <<<"${cpu[$tool]}" | grep . | median)
		r=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | median)
		eval "m_$tool=$m c_$tool=$c"
		awk -v n="$name" -v t=$tool -v runs="${secs[$tool]}" -v m="$m" -v c="$c" -v r="$r" \
			-v mb="$mb" -v rec=$records 'BEGIN {
			printf "%-10s %-7s wall %s(median %.2f s) cpu %.2f s rss %.0f MB: %.0f MB/s, %.2f M records/s\n",
				n, t, runs, m, c, r / 1024, (m > 0 ? mb / m : 0), (m > 0 ? rec / m / 1e6 : 0) }'
	done
	awk -v n="$name" -v a="$m_perf" -v b="$m_pmukit" -v c="$c_perf" -v d="$c_pmukit" \
		'BEGIN {printf "%-10s perf/pmukit: wall %.1fx, cpu %.1fx\n", n, (b > 0 ? a / b : 0), (d > 0 ? c / d : 0)}'
}

echo "== raw decode (lib/spe pk_spe_next, one core, data in memory)"
"$decode" "$f" 5 --perfdata

echo "== script ${itrace[*]:-(default --itrace)}"
compare script "$runs" script "${itrace[@]}" -i "$f" -- script "${itrace[@]}" -i "$f"
out=$(mktemp -d)
rc_pk=0 rc_pf=0
"$pmukit" script "${itrace[@]}" -i "$f" >"$out/pk" 2>"$out/pk.err" || rc_pk=$?
# (in a subshell whose stderr is dropped: no shell message when perf dies)
(perf script "${itrace[@]}" -i "$f" >"$out/pf" 2>"$out/pf.err"; exit $?) 2>/dev/null || rc_pf=$?
n_pk=$(wc -l <"$out/pk") n_pf=$(wc -l <"$out/pf")
echo "script output: pmukit $n_pk lines, exit $rc_pk ($(tail -1 "$out/pk.err" | cut -c1-200))"
sig=""
[ $rc_pf -gt 128 ] && sig=", killed by signal $((rc_pf - 128))"
echo "script output: perf   $n_pf lines, exit $rc_pf$sig ($(tail -1 "$out/pf.err" | cut -c1-200))"
if [ "$n_pk" -gt 0 ] && [ "$n_pf" -gt 0 ] && [ $rc_pk = 0 ] && [ $rc_pf = 0 ]; then
	cmp -s "$out/pk" "$out/pf" && echo "script outputs: identical" || echo "script outputs: DIFFERENT"
else
	echo "script outputs: not compared (both must print samples and exit 0; times above are of what each does)"
fi
rm -rf "$out"

if [ "$d_runs" -gt 0 ]; then
echo "== report -D (packet dump)"
compare report-D "$d_runs" report -D -i "$f" -- report -D -i "$f"
# the SPE lines: packets (".  OFFSET8: ...") and each buffer's header
lines() { grep -E '^\.  [0-9a-f]{8}:|^\. \.\.\. ARM SPE data' || true; }
if [ "${CMP_D:-1}" = 0 ]; then
	echo "report -D packet lines: not compared (CMP_D=0)"
elif cmp -s <("$pmukit" report -D -i "$f" 2>/dev/null | lines) <(perf report -D -i "$f" 2>/dev/null | lines); then
	echo "report -D packet lines: identical ($("$pmukit" report -D -i "$f" 2>/dev/null | lines | wc -l) lines)"
else
	echo "report -D packet lines: DIFFERENT"
fi
fi

[ "${CALLGRIND:-0}" = 1 ] || exit 0
command -v valgrind >/dev/null || { echo "valgrind not found: no instruction counts" >&2; exit 2; }
echo "== instructions (callgrind): script ${itrace[*]:-(default --itrace)}"
# instr FILE CMD...: the instructions callgrind counts for CMD
instr() {
	local log
	log=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "${@:2}" 2>&1 >/dev/null) || true
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$log"
}
declare -A ins=()
for n in 20000 40000; do
	g=$dir/spe-$cpus-$n.data
	[ -f "$g" ] || "$gen" "$g" 9 $n perf61 cpus=$cpus
	ins[pmukit$n]=$(instr "$g" "$pmukit" script "${itrace[@]}" -i "$g")
	ins[perf$n]=$(instr "$g" perf script "${itrace[@]}" -i "$g")
	echo "$cpus x $n records: pmukit ${ins[pmukit$n]}, perf ${ins[perf$n]} instructions:" \
		"perf/pmukit $(awk -v a="${ins[perf$n]}" -v b="${ins[pmukit$n]}" 'BEGIN {printf "%.1f", a / b}')x"
done
awk -v a="${ins[pmukit20000]}" -v b="${ins[pmukit40000]}" -v c="${ins[perf20000]}" \
	-v d="${ins[perf40000]}" -v n=$((cpus * 20000)) 'BEGIN {
	printf "per record (the difference / %d records): pmukit %.0f, perf %.0f: %.1fx\n",
		n, (b - a) / n, (d - c) / n, (d - c) / (b - a) }'

