#!/usr/bin/env bash
# Benchmark: `pmukit script` against `perf script` on the same recordings of
# several kinds: wall time, CPU time (user+sys) and peak RSS of each, RUNS
# runs per tool (default 3, interleaved), medians and the perf/pmukit ratios.
#   bench/script/run.sh [PMUKIT] [KIND...]          (RUNS=5 bench/script/run.sh ...)
# Kinds (default: all), each recorded once by perf into $PK_BENCH_DIR (default
# /tmp/pmukit-bench-script) and kept for reruns:
#   sys-200, sys-400  system-wide cpu-clock at 20 kHz per CPU with call chains
#                     while two busy loops run, until 200 / 400 MB; default fields
#   many-200          system-wide as sys-200 while many short processes run
#                     (two shells spawning find, sha1sum, gzip, sort, python3
#                     and sh in turn: thousands of pids, comms, execs, mmaps),
#                     until 200 MB; default fields
#   proc-48, proc-96  one process (python3 walking /usr, hashing, compressing)
#                     with call chains, cpu-clock at 50 kHz, until 48 / 96 MB;
#                     -F tid,time,ip,sym
#   sched             sched:sched_switch -a while `perf bench sched pipe` runs,
#                     until 48 MB
#   read              syscalls:sys_enter_read on `dd bs=1` (one read per byte),
#                     until 48 MB
#   sched-trace, read-trace  the sched and read recordings with the default
#                     fields: each tracepoint's payload in its print format
# sched and read print -F comm,tid,cpu,time,event,ip,sym,dso (the fields
# before pmukit printed payloads); the -trace kinds print perf's default
# tracepoint line. Output goes to a file once per kind and is compared with
# perf's (cmp), then to /dev/null.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmukit=${1:-$here/../../build/tools/pmukit/pmukit}
shift || true
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(sys-200 sys-400 many-200 proc-48 proc-96 sched read sched-trace read-trace)
runs=${RUNS:-3}
dir=${PK_BENCH_DIR:-/tmp/pmukit-bench-script}
mkdir -p "$dir"
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }
pmukit=$(realpath "$pmukit")

# record_until MB FILE WORKLOAD-CMD -- PERF-RECORD-ARGS...: runs the workload
# in the background (killed at the end) and perf record until FILE has MB.
record_until() {
	local mb=$1 f=$2 work=$3
	shift 4
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -ge $((mb * 1000000)) ] && return
	echo "recording $f (>= $mb MB) ..." >&2
	rm -f "$f"
	setsid bash -c "$work" >/dev/null 2>&1 &
	local busy=$!
	perf record -q -o "$f" "$@" >/dev/null 2>&1 &
	local rec=$!
	while [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -lt $((mb * 1000000)) ]; do
		kill -0 $rec 2>/dev/null || break
		sleep 0.5
	done
	kill -INT $rec 2>/dev/null || true
	wait $rec || true
	kill -- -$busy 2>/dev/null || true
	wait $busy 2>/dev/null || true
}

busy_loops='for _ in 1 2; do (while :; do :; done) & done; wait'
# many short processes in two shells: each round execs a dozen programs
many_procs='for _ in 1 2; do (while :; do find /usr/share -maxdepth 3 -type f 2>/dev/null | head -400 |
	xargs -n 25 sha1sum | sort | gzip -1 | wc -c; python3 -c "import json; json.dumps(list(range(5000)))";
	sh -c "ls /usr/bin | grep -c a"; done) & done; wait'
# one process, deep user stacks and system calls: python over /usr, forever
py_walk="import os, hashlib, zlib, json, re
while True:
    for root, dirs, files in os.walk('/usr'):
        for f in files:
            try:
                b = open(os.path.join(root, f), 'rb').read(65536)
            except OSError:
                continue
            s = json.dumps({'h': hashlib.sha1(b).hexdigest(), 'n': len(zlib.compress(b, 1))})
            re.findall(r'[a-z]+', s)"

record_kind() { # kind file -> records it; sets fields
	local kind=$1 f=$2
	case $kind in
	sys-*)
		fields=()
		record_until "${kind#sys-}" "$f" "$busy_loops" -- -a -g -e cpu-clock -c 50000 -m 1024 ;;
	many-*)
		fields=()
		record_until "${kind#many-}" "$f" "$many_procs" -- -a -g -e cpu-clock -c 50000 -m 1024 ;;
	proc-*)
		fields=(-F tid,time,ip,sym)
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -ge $((${kind#proc-} * 1000000)) ] && return
		printf '%s\n' "$py_walk" >"$dir/walk.py"
		record_until "${kind#proc-}" "$f" true -- -g -e cpu-clock -c 20000 -- python3 "$dir/walk.py" ;;
	sched)
		fields=(-F comm,tid,cpu,time,event,ip,sym,dso)
		record_until 48 "$f" 'perf bench sched pipe -l 100000000' -- -a -e sched:sched_switch -m 1024 ;;
	*-trace) # the recording of the kind without -trace, default fields
		record_kind "${kind%-trace}" "$f"
		fields=() ;;
	read)
		fields=(-F comm,tid,cpu,time,event,ip,sym,dso)
		record_until 48 "$f" true -- -e syscalls:sys_enter_read -m 1024 -- \
			dd if=/dev/zero of=/dev/null bs=1 count=100000000 ;;
	*) echo "unknown kind $kind" >&2; exit 2 ;;
	esac
}

# measure, median
. "$here/../timing.sh"

# task_clock N CMD...: the mean task clock (ms) of N runs of CMD by perf stat, output to
# /dev/null. The CPU time of a run comes in steps of 0.01 s, too coarse for a kind that
# pmukit prints in well under a second: those (pmukit's CPU median below $TC_BELOW s,
# default 0.3) are measured this way too, in $TC_ROUNDS (default 3) interleaved rounds of
# 20 pmukit runs and 5 perf runs, and their ratio is that of the rounds' medians.
task_clock() {
	local n=$1
	shift
	perf stat -r "$n" -e task-clock -x, -- "$@" 2>&1 >/dev/null | awk -F, '$3 == "task-clock" {print $1}'
}
tc_rounds=${TC_ROUNDS:-3}
tc_below=${TC_BELOW:-0.3}

printf "%-8s %-7s %-22s %7s %-22s %7s %8s %8s\n" kind tool "wall s (runs)" median "cpu s (runs)" median rss_MB lines
for kind in "${kinds[@]}"; do
	f=$dir/${kind%-trace}.data
	record_kind "$kind" "$f"
	real=$(($(stat -c %s "$f") / 1000000))
	out=$(mktemp)
	"$pmukit" script "${fields[@]}" -i "$f" >"$out.pk" 2>/dev/null || true
	perf script "${fields[@]}" -i "$f" >"$out.perf" 2>/dev/null || true
	same=identical
	cmp -s "$out.pk" "$out.perf" || same=DIFFERENT
	n=$(wc -l <"$out.pk")
	rm -f "$out" "$out.pk" "$out.perf"
	declare -A secs=() cpus=() rss=()
	for ((i = 0; i < runs; i++)); do
		for tool in pmukit perf; do
			if [ $tool = pmukit ]; then cmd=("$pmukit"); else cmd=(perf); fi
			read -r s c r < <(measure "${cmd[@]}" script "${fields[@]}" -i "$f")
			secs[$tool]+="$s "
			cpus[$tool]+="$c "
			rss[$tool]+="$r "
		done
	done
	for tool in pmukit perf; do
		med=$(tr ' ' '\n' <<<"${secs[$tool]}" | grep . | median)
		cmed=$(tr ' ' '\n' <<<"${cpus[$tool]}" | grep . | median)
		maxrss=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | sort -n | tail -1)
		eval "med_$tool=$med cmed_$tool=$cmed"
		printf "%-8s %-7s %-22s %7s %-22s %7s %8s %8s\n" "$kind" $tool "${secs[$tool]}" "$med" \
			"${cpus[$tool]}" "$cmed" $((maxrss / 1024)) "$n"
	done
	awk -v a="$med_perf" -v b="$med_pmukit" -v c="$cmed_perf" -v d="$cmed_pmukit" \
		-v k="$kind" -v s="${real}MB" -v same="$same" \
		'BEGIN {printf "%-8s %s: perf/pmukit wall %.1fx, cpu %.1fx; output %s\n", k, s, a / b, c / d, same}'
	awk -v c="$cmed_pmukit" -v t="$tc_below" 'BEGIN {exit !(c < t)}' || continue
	tc_pk="" tc_perf=""
	for ((i = 0; i < tc_rounds; i++)); do
		tc_pk+="$(task_clock 20 "$pmukit" script "${fields[@]}" -i "$f") "
		tc_perf+="$(task_clock 5 perf script "${fields[@]}" -i "$f") "
	done
	tm_pk=$(tr ' ' '\n' <<<"$tc_pk" | grep . | median)
	tm_perf=$(tr ' ' '\n' <<<"$tc_perf" | grep . | median)
	awk -v a="$tm_perf" -v b="$tm_pk" -v k="$kind" -v p="$tc_pk" -v q="$tc_perf" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
		'BEGIN {printf "%-8s task clock ms, pmukit (20 runs each) %s/ perf (5 each) %s: medians %.1f / %.1f, perf/pmukit %.1fx (load %s)\n", k, p, q, b, a, a / b, l}'
done
