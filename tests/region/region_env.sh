#!/bin/bash
# The region library's environment (issue 10) through the examples:
# PMUKIT_REGION_REPORT=FILE.json / FILE / - and PMUKIT_MODEL=SCENARIO (the
# report says modeled); on this machine's kernel, TopDown or (no PMU) the
# software-event fallback through read(2), said as such.
# usage: region_env.sh BUILDDIR SRCDIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compute=$build/examples/region_compute
chase=$build/examples/region_chase
sc=$src/examples/model/sapphirerapids.json

# JSON on the model: every region, calls, nesting counted
PMUKIT_MODEL=$sc PMUKIT_REGION_LEVEL=2 PMUKIT_REGION_REPORT=$tmp/m.json "$compute" 3 >/dev/null
python3 - "$tmp/m.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["modeled"] and r["scenario"].endswith("sapphirerapids.json") and r["level"] == 2, r
calls = {x["name"]: x["calls"] for x in r["regions"]}
assert calls == {"init": 1, "dgemm": 3, "dgemm_row": 12}, calls
d = [x for x in r["regions"] if x["name"] == "dgemm"][0]
assert d["slots"] > 0 and len(d["nodes"]) == 12, d
assert abs(d["nodes"]["tma_light_operations"] + d["nodes"]["tma_heavy_operations"]
           - d["nodes"]["tma_retiring"]) < 0.01, d
PY
# text to a file and to stderr
PMUKIT_MODEL=$sc PMUKIT_REGION_REPORT=$tmp/m.txt "$compute" 1 >/dev/null
grep -q '^# MODELED: counted on the PMU model' "$tmp/m.txt"
grep -Eq '^dgemm +1 +1 ' "$tmp/m.txt"
PMUKIT_MODEL=$sc PMUKIT_REGION_REPORT=- "$compute" 1 2>"$tmp/err" >"$tmp/out"
grep -q '^# pmukit regions: TopDown Level 1' "$tmp/err"
! grep -q 'pmukit regions' "$tmp/out"
# no variable: the library prints nothing
"$compute" 1 >"$tmp/out" 2>"$tmp/err"
test ! -s "$tmp/err"
# a bad scenario: the program runs, the report says why
PMUKIT_MODEL=$tmp/none.json PMUKIT_REGION_REPORT=$tmp/bad.json "$compute" 1 >/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert "none.json" in r["error"], r' \
	"$tmp/bad.json"

# the examples on their scenarios: the chase memory bound, the compute
# loop retiring (the scenarios' shares: docs/regions.md, modeled)
PMUKIT_MODEL=$src/examples/regions/chase.json PMUKIT_REGION_LEVEL=2 \
	PMUKIT_REGION_REPORT=$tmp/chase.json "$chase" 4 100000 >/dev/null
PMUKIT_MODEL=$src/examples/regions/compute.json PMUKIT_REGION_LEVEL=2 \
	PMUKIT_REGION_REPORT=$tmp/compute.json "$compute" 2 >/dev/null
python3 - "$tmp/chase.json" "$tmp/compute.json" <<'PY'
import json, sys
def region(f, name):
    r = json.load(open(f))
    assert r["modeled"] and r["read"] == "rdpmc", r
    return [x for x in r["regions"] if x["name"] == name][0]["nodes"]
ch, co = region(sys.argv[1], "chase"), region(sys.argv[2], "dgemm")
assert abs(ch["tma_memory_bound"] - 80) < 1 and abs(ch["tma_backend_bound"] - 85) < 1, ch
assert abs(co["tma_retiring"] - 70) < 1 and co["tma_memory_bound"] < 4, co
PY

# this machine's kernel: TopDown, or a software event through read(2)
PMUKIT_REGION_REPORT=$tmp/k.json "$chase" 4 100000 >/dev/null
python3 - "$tmp/k.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["modeled"], r
ch = [x for x in r["regions"] if x["name"] == "chase"][0]
assert ch["calls"] == 1 and ch["time_ns"] > 0, ch
if not r["topdown"]:
    assert r["read"] == "read(2)" and r["why_no_topdown"] and r["fallback_event"] == "task-clock", r
    # task-clock counts the thread's CPU time: at most the wall time
    assert 0 < ch["count"] <= ch["time_ns"] * 1.05 + 1e5, ch
PY
echo "region environment: JSON, text, stderr, model, kernel"
