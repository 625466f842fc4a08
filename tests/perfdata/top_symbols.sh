#!/bin/bash
# examples/top_symbols.c (issue 21): a program on the public session API
# (include/pmukit/session.h), built against the library installed into a
# temporary DESTDIR with pkg-config, prints the top symbols of a perf.data
# this test records (cpu-clock over examples/workload); its shares must be
# report's --sort sym shares: pmukit report's, and perf 6.1's when perf
# can read the file.
# usage: top_symbols.sh BUILDDIR SRCDIR [SANITIZERS]
set -euo pipefail
build=$1 src=$2 san=${3:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
[ "$san" = none ] || cc="$cc -fsanitize=$san"
pmukit=$build/tools/pmukit/pmukit

DESTDIR=$tmp/root meson install -C "$build" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$tmp/root" -name libpmukit.pc | head -1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/libpmukit.pc")
pkg() { PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$tmp/root$prefix" "$@" libpmukit; }
# shellcheck disable=SC2046
$cc -Wall -Wextra -Werror "$src/examples/top_symbols.c" $(pkg --cflags --libs) \
	-Wl,-rpath,"$(pkg --variable=libdir)" -o "$tmp/top_symbols"
[ "$(wc -l <"$src/examples/top_symbols.c")" -lt 60 ]

"$pmukit" record -q -e cpu-clock -c 50000 -o "$tmp/perf.data" -- \
	"$build/examples/workload" 2000 30000000 >/dev/null 2>"$tmp/rec.err" ||
	{ cat "$tmp/rec.err"; exit 1; }
"$tmp/top_symbols" "$tmp/perf.data" 1000 >"$tmp/top.txt"
"$pmukit" report -i "$tmp/perf.data" --stdio --sort sym -q --percent-limit 0 >"$tmp/pmukit.txt"
refs=("$tmp/pmukit.txt")
if command -v perf >/dev/null &&
	perf report -i "$tmp/perf.data" --stdio --sort sym -q --percent-limit 0 \
		>"$tmp/perf.txt" 2>/dev/null; then
	refs+=("$tmp/perf.txt")
else
	echo "perf report not run: perf missing or refused the file"
fi
for ref in "${refs[@]}"; do
	python3 - "$tmp/top.txt" "$ref" <<'PY'
import re, sys
top = [l.split(None, 1) for l in open(sys.argv[1]) if l.strip()]
ref = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(.*\S)", line)
    if m and not m[2].startswith("0x"):
        ref[m[2]] = ref.get(m[2], 0.0) + float(m[1])
named = [(float(p.rstrip("%")), s.strip()) for p, s in top if s.strip() != "[unknown]"]
assert named, ("no symbol resolved", top)
assert abs(sum(float(p.rstrip("%")) for p, _ in top) - 100) < 0.005 * len(top) + 0.01, top
for pct, sym in named:
    assert sym in ref, (sym, "not in", sys.argv[2], ref)
    assert abs(ref[sym] - pct) < 0.015, (sym, pct, ref[sym], sys.argv[2])
best = max(ref, key=ref.get)
assert named[0][1] == best, (named[0], best)
print(f"{sys.argv[2]}: {len(named)} symbols agree, top {best} {ref[best]:.2f}%")
PY
done
