#!/usr/bin/env bash
# Benchmark: start-up cost of counting a trivial command,
#   pmukit stat -e task-clock -- true   against   perf stat -e task-clock -- true
# (wall time per run, hyperfine, no shell in between). Target: pmukit at most
# half of perf's time.
#   bench/stat/startup.sh [PMUKIT] [RUNS]
# Extra rows: the default event set (no -e) for both tools.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmukit=${1:-$here/../../build/tools/pmukit/pmukit}
runs=${2:-200}
command -v hyperfine >/dev/null || { echo "hyperfine not found" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf not found" >&2; exit 2; }
[ -x "$pmukit" ] || { echo "no pmukit at $pmukit" >&2; exit 2; }
out=${PK_BENCH_OUT:-/tmp/pmukit-bench-stat-startup.json}
hyperfine -N --warmup 20 --runs "$runs" --export-json "$out" \
	-n "pmukit stat -e task-clock -- true" "$pmukit stat -e task-clock -- true" \
	-n "perf stat -e task-clock -- true" "perf stat -e task-clock -- true" \
	-n "pmukit stat -- true (default events)" "$pmukit stat -- true" \
	-n "perf stat -- true (default events)" "perf stat -- true"
python3 - "$out" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
pairs = [("-e task-clock", "pmukit stat -e task-clock -- true", "perf stat -e task-clock -- true"),
         ("default events", "pmukit stat -- true (default events)", "perf stat -- true (default events)")]
for label, a, b in pairs:
    ra, rb = r[a], r[b]
    print(f"{label}: pmukit/perf wall time mean {ra['mean']/rb['mean']:.2f}, "
          f"median {ra['median']/rb['median']:.2f}, min {ra['min']/rb['min']:.2f} (target <= 0.50); "
          f"pmukit {ra['mean']*1e3:.1f} ms, perf {rb['mean']*1e3:.1f} ms mean")
PY
