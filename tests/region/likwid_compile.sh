#!/bin/bash
# likwid-marker.h (issue 10): a program written for likwid's marker API
# compiles unchanged with
#   cc -DLIKWID_PERFMON prog.c $(pkg-config --cflags --libs libpmukit)
# against the library installed (into a temporary DESTDIR) and against the
# build tree, and reports TopDown per tag on the PMU model; without
# -DLIKWID_PERFMON the macros vanish and nothing is reported.
# usage: likwid_compile.sh BUILDDIR SRCDIR [SANITIZERS]   (the build's b_sanitize)
set -euo pipefail
build=$1 src=$2 san=${3:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=$src/examples/regions/likwid_stream.c
scenario=$src/examples/model/sapphirerapids.json
cc=${CC:-cc}
# a sanitized library needs a sanitized program
[ "$san" = none ] || cc="$cc -fsanitize=$san"

check_report() { # report.json calls
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["modeled"] is True and r["topdown"] is True, r
assert r["read"] == "rdpmc", r
[t] = [x for x in r["regions"] if x["name"] == "triad"]
assert t["calls"] == int(sys.argv[2]), t
l1 = [v for k, v in t["nodes"].items() if k in ("tma_retiring", "tma_bad_speculation",
                                               "tma_frontend_bound", "tma_backend_bound")]
assert len(l1) == 4 and abs(sum(l1) - 100) < 0.5, t
PY
}

# installed
DESTDIR=$tmp/root meson install -C "$build" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$tmp/root" -name libpmukit.pc | head -1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/libpmukit.pc")
flags=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$tmp/root$prefix" \
	--cflags --libs libpmukit)
test -f "$tmp/root$prefix/include/pmukit/likwid/likwid-marker.h"
libdir=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$tmp/root$prefix" \
	--variable=libdir libpmukit)
# shellcheck disable=SC2086
# shellcheck disable=SC2086
$cc -DLIKWID_PERFMON "$prog" $flags -Wl,-rpath,"$libdir" -o "$tmp/installed"
PMUKIT_MODEL=$scenario PMUKIT_REGION_REPORT=$tmp/inst.json "$tmp/installed" >/dev/null
check_report "$tmp/inst.json" 5
# no PMUKIT_REGION_REPORT: likwid's markers asked, the report is on stderr
env -u PMUKIT_REGION_REPORT PMUKIT_MODEL="$scenario" "$tmp/installed" 2>"$tmp/err" >/dev/null
grep -Eq '^triad +5 +1 ' "$tmp/err"
grep -q '^# MODELED' "$tmp/err"

# uninstalled: the build tree's library and the source tree's headers
# shellcheck disable=SC2086
$cc -DLIKWID_PERFMON "$prog" -I"$src/include" -I"$src/include/pmukit/likwid" \
	-L"$build" -Wl,-rpath,"$build" -lpmukit -o "$tmp/uninstalled"
PMUKIT_MODEL=$scenario PMUKIT_REGION_REPORT=$tmp/un.json "$tmp/uninstalled" >/dev/null
check_report "$tmp/un.json" 5
# a bad scenario: likwid's INIT names the JSON error, as the begin path does
printf '{"machine": "sapphirerapids", "threads": [' >"$tmp/bad.json"
PMUKIT_MODEL=$tmp/bad.json PMUKIT_REGION_REPORT=$tmp/bad-report.json "$tmp/uninstalled" >/dev/null
python3 - "$tmp/bad-report.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert "not valid JSON" in e and "bad.json" in e and "line 1" in e, e
PY

# GET, RESET and SWITCH with likwid's meanings (the calling thread's
# results; RESET zeroes them; SWITCH with one group changes nothing): a
# likwid-style program reading its own results, unchanged, on the model
# shellcheck disable=SC2086
$cc -DLIKWID_PERFMON "$src/tests/region/likwid_markers.c" -I"$src/include" \
	-I"$src/include/pmukit/likwid" -L"$build" -Wl,-rpath,"$build" -lpmukit -o "$tmp/markers"
PMUKIT_MODEL=$scenario PMUKIT_REGION_REPORT= "$tmp/markers" >"$tmp/markers.out"
python3 - "$tmp/markers.out" <<'PY'
import re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.match(r"get (\w+) count=(-?\d+) nevents=(\d+) time=(\S+) sum=(\S+)", line)
    if m:
        got[m[1]] = (int(m[2]), int(m[3]), float(m[4]), float(m[5]))
assert got["first"][0] == 3 and got["first"][1] == 4 and got["first"][2] > 0, got
assert abs(got["first"][3] - 100) < 0.5, got          # Level 1 sums to 100%
assert got["reset"][0] == 0 and got["reset"][2] == 0, got
assert got["again"][0] == 2 and got["again"][2] > 0, got
assert abs(got["again"][3] - 100) < 0.5, got
assert got["unknown"][1] == 0 and got["unknown"][0] == -1, got
PY

# without LIKWID_PERFMON: no calls, no report
# shellcheck disable=SC2086
$cc "$prog" -I"$src/include/pmukit/likwid" -o "$tmp/plain"
PMUKIT_MODEL=$scenario PMUKIT_REGION_REPORT=$tmp/plain.json "$tmp/plain" >/dev/null
test ! -e "$tmp/plain.json"
echo "likwid-marker.h: installed and uninstalled builds report per tag"
