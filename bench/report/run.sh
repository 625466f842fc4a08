#!/usr/bin/env bash
# Benchmark: `pmukit report --stdio` against `perf report --stdio` (perf 6.1)
# on the recordings of bench/script, view by view: CPU time (user+sys) and
# peak RSS of each tool in RUNS interleaved rounds (default 3), the median and
# spread (min-max) of each, the perf/pmukit ratio of the CPU medians, and
# whether the two outputs are byte for byte identical (cmp, one extra run each;
# perf's random closing tip cut off).
#   bench/report/run.sh [PMUKIT] [KIND...]     (RUNS=5 VIEWS="dso cds" ...)
# Kinds: those of bench/script (default: proc-48 sched), recorded once by
# bench/script/run.sh's rules into $PK_BENCH_DIR (default
# /tmp/pmukit-bench-script, shared with bench/script) and kept.
# Views (VIEWS, default all), each `report --stdio` plus:
#   default  nothing (children and call graph on -g files)
#   nochild  --no-children
#   flat     -g none --no-children
#   dso      --sort dso
#   cds      --sort comm,dso,sym
#   caller   -g caller
#   hier     --hierarchy
#   fields   -F overhead,sample,period,comm,dso,sym
# Before the views, per kind the floor: `pmukit script -F tid -i FILE` (the
# script fast path, one short field a sample) to /dev/null, RUNS times: the
# cost of reading and parsing the file, below which no view can go (the
# default fields would print call chains and tracepoint payloads, which
# report does not); each view's "over floor" column is its pmukit CPU
# median less the floor's.
# The invariant: both tools read the same file with the same options; the
# output compared is the whole stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmukit=${1:-$here/../../build/tools/pmukit/pmukit}
shift || true
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(proc-48 sched)
read -r -a views <<<"${VIEWS:-default nochild flat dso cds caller hier fields}"
runs=${RUNS:-3}
dir=${PK_BENCH_DIR:-/tmp/pmukit-bench-script}
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }
pmukit=$(realpath "$pmukit")

. "$here/../timing.sh"

view_args() { # view -> the options after `report --stdio`
	case $1 in
	default) args=() ;;
	nochild) args=(--no-children) ;;
	flat) args=(-g none --no-children) ;;
	dso) args=(--sort dso) ;;
	cds) args=(--sort comm,dso,sym) ;;
	caller) args=(-g caller) ;;
	hier) args=(--hierarchy) ;;
	fields) args=(-F overhead,sample,period,comm,dso,sym) ;;
	*) echo "unknown view $1" >&2; exit 2 ;;
	esac
}

# cut_tip: perf's closing "#", "# (Tip: ...)", "#" (chosen at random) cut off
cut_tip() { awk '{l[NR] = $0} END {n = NR; if (n >= 3 && l[n - 1] ~ /^# \(Tip/) n -= 3; for (i = 1; i <= n; i++) print l[i]}'; }

# spread: "median (min-max)" of the numbers on stdin
spread() { sort -n | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f (%.2f-%.2f)", m, v[1], v[NR]}'; }

echo "load $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds"
printf "%-8s %-8s %-24s %-24s %7s %7s %6s %-9s %s\n" kind view "pmukit cpu s" "perf cpu s" pk_MB perf_MB ratio output "over floor"
for kind in "${kinds[@]}"; do
	f=$dir/$kind.data
	if [ ! -f "$f" ]; then # bench/script records it (and prints its numbers)
		PK_BENCH_DIR=$dir RUNS=1 TC_BELOW=0 "$here/../script/run.sh" "$pmukit" "$kind" >/dev/null
	fi
	fl="" frss=""
	for ((i = 0; i < runs; i++)); do
		read -r _ c r < <(measure "$pmukit" script -F tid -i "$f")
		fl+="$c "
		frss+="$r "
	done
	floor=$(tr ' ' '\n' <<<"$fl" | grep . | spread)
	rfl=$(($(tr ' ' '\n' <<<"$frss" | grep . | sort -n | tail -1) / 1024))
	printf "%-8s %-8s %-24s %-24s %7s %7s %6s %s\n" "$kind" floor "$floor" - $rfl - - "(pmukit script -F tid -i FILE >/dev/null)"
	for view in "${views[@]}"; do
		view_args "$view"
		cmd=(report --stdio "${args[@]}" -i "$f")
		out=$(mktemp)
		"$pmukit" "${cmd[@]}" >"$out.pk" 2>/dev/null || true
		perf "${cmd[@]}" 2>/dev/null | cut_tip >"$out.perf" || true
		same=identical
		cmp -s "$out.pk" "$out.perf" || same=DIFFERENT
		rm -f "$out" "$out.pk" "$out.perf"
		declare -A cpus=() rss=()
		for ((i = 0; i < runs; i++)); do
			for tool in pmukit perf; do
				if [ $tool = pmukit ]; then t=("$pmukit"); else t=(perf); fi
				read -r _ c r < <(measure "${t[@]}" "${cmd[@]}")
				cpus[$tool]+="$c "
				rss[$tool]+="$r "
			done
		done
		pk=$(tr ' ' '\n' <<<"${cpus[pmukit]}" | grep . | spread)
		pf=$(tr ' ' '\n' <<<"${cpus[perf]}" | grep . | spread)
		rpk=$(($(tr ' ' '\n' <<<"${rss[pmukit]}" | grep . | sort -n | tail -1) / 1024))
		rpf=$(($(tr ' ' '\n' <<<"${rss[perf]}" | grep . | sort -n | tail -1) / 1024))
		ratio=$(awk -v a="${pf%% *}" -v b="${pk%% *}" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')
		over=$(awk -v a="${pk%% *}" -v b="${floor%% *}" 'BEGIN {printf "%.2f", a - b}')
		printf "%-8s %-8s %-24s %-24s %7s %7s %6s %-9s %s\n" "$kind" "$view" "$pk" "$pf" $rpk $rpf "$ratio" $same "$over"
	done
done
