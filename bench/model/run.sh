#!/usr/bin/env bash
# Benchmark: the PMU model's speed (issue 8: long -I runs on the model stay
# fast). Two measurements in one run:
#  1. build/bench/model/model-reads: reads per second of a 7-event evlist on
#     the model (1 ms of virtual time per read), against the same number of
#     task-clock events read through the real kernel (the peer);
#  2. `pmukit stat --model bench/model/long.json -I 10 --interval-count N`:
#     interval rows printed per second of wall time (hyperfine), and the CPU
#     time per row against the peer: `perf stat -I 10` counting five
#     task-clock events of `sleep 5` through the real kernel (CPU time of perf
#     itself per interval row, from getrusage of the child).
#   bench/model/run.sh [BUILD_DIR] [SECONDS] [ROWS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
secs=${2:-2}
rows=${3:-20000}
reads=$build/bench/model-reads
pmukit=$build/tools/pmukit/pmukit
[ -x "$reads" ] || { echo "no $reads: build first (bash scripts/build.sh build)" >&2; exit 2; }
echo "== model-reads ($secs s of CPU per side)"
"$reads" "$here/long.json" "$secs"
ev='{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}'
echo "== pmukit stat --model -I 10, $rows rows"
if command -v hyperfine >/dev/null; then
	out=${PK_BENCH_OUT:-/tmp/pmukit-bench-model.json}
	hyperfine -N --warmup 1 --runs 5 --export-json "$out" \
		"$pmukit stat --model $here/long.json -x, -e $ev -I 10 --interval-count $rows -o /dev/null"
	python3 - "$out" "$rows" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
n = int(sys.argv[2])
print(f"stat --model -I 10: {n} rows in {r['median']:.3f} s median: {n / r['median']:.0f} rows/s, "
      f"{n * 0.010 / r['median']:.0f} s of virtual time per wall second")
PY
else
	/usr/bin/time -f "%e s wall, %U s user" "$pmukit" stat --model "$here/long.json" -x, -e "$ev" \
		-I 10 --interval-count "$rows" -o /dev/null
fi
if command -v perf >/dev/null; then
	echo "== CPU time per -I row: pmukit stat --model against perf stat on the real kernel"
	python3 - "$pmukit" "$here/long.json" "$ev" <<'PY'
import resource, subprocess, sys
def cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
pmukit, scen, ev = sys.argv[1:4]
rows = 20000
m = cpu([pmukit, "stat", "--model", scen, "-x,", "-e", ev, "-I", "10", "--interval-count", str(rows), "-o", "/dev/null"])
p = cpu(["perf", "stat", "-x,", "-e", ",".join(["task-clock"] * 5), "-I", "10", "-o", "/dev/null", "--", "sleep", "5"])
prow = p / 500  # 5 s at 10 ms
print(f"pmukit --model: {m / rows * 1e6:.1f} us CPU per row ({rows} rows, 5 events); "
      f"perf stat -I 10 (real kernel): {prow * 1e6:.1f} us CPU per row (500 rows, 5 events); "
      f"perf/pmukit {prow / (m / rows):.1f}x")
PY
fi
echo "== multiplexed: 12 cycles events on 8 generic counters + fixed counter 1, -I 1000 over 1000 s of virtual time"
/usr/bin/time -f "%e s wall, %U s user for 1000 s of virtual time (rotation every 4 ms)" \
	"$pmukit" stat --model "$here/long.json" -x, -e "$(printf 'cycles%.0s,' {1..11})cycles" \
	-I 1000 --interval-count 1000 -o /dev/null
