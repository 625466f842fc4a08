#!/bin/bash
# The library inside a privileged program (issue 26, docs/regions.md
# "Security"): every variable the library reads goes through pki_env
# (secure_getenv; no getenv elsewhere in lib/), and a setuid-root program
# embedding it (setuid_env.c), run by an unprivileged user (setpriv
# --reuid=65534) with every such variable set to things that user
# controls, writes nothing there and reads none of it: no report, no model
# (counts from the kernel, not modeled ones), /sys, no kallsyms cache, the
# bundled machines. The same program without the setuid bit, same user,
# same variables, does honour them (the test's control). Needs root to
# make the program setuid-root and a filesystem without nosuid: skipped
# (exit 77, with the reason) otherwise.
# usage: setuid_env.sh SRCDIR BUILDDIR PROGRAM
set -euo pipefail
src=$1 build=$2 prog=$3

# every read of the environment in lib/ goes through the one helper
if grep -rn --include='*.c' --include='*.h' -E '\b(secure_)?getenv\(' "$src/lib" |
	grep -v "^$src/lib/core/secure.c:"; then
	echo "FAIL: the library reads the environment outside pki_env (lib/core/secure.c)"
	exit 1
fi
mapfile -t vars < <( (grep -rhoE 'pki_env\("[A-Za-z_0-9]+"\)' "$src/lib" |
	sed -E 's/pki_env\("(.*)"\)/\1/'
	sed -n 's/^#define PK_CPUID_ENV "\(.*\)"/\1/p' "$src/include/pmukit/cpuid.h"
	grep -ohE '"PERF_CPUID"' "$src/lib/pmu/cpuid.c" | tr -d '"') | sort -u)
for v in PMUKIT_REGION_REPORT PMUKIT_MODEL PMUKIT_SYSFS PMUKIT_TRACEFS PMUKIT_MACHINES \
	PERF_BUILDID_DIR XDG_CACHE_HOME HOME PMUKIT_CPUID; do
	printf '%s\n' "${vars[@]}" | grep -qx "$v" || { echo "FAIL: $v not read through pki_env"; exit 1; }
done

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: not root: the test cannot make a setuid-root program"
	exit 77
fi
command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
# in /tmp, not the build folder: the unprivileged user must reach the
# programs, and a build inside a private folder (CI's mktemp -d) is not
# reachable by it
tmp=$(mktemp -d /tmp/pmukit-setuid-env.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
if findmnt -n -o OPTIONS -T "$tmp" | tr , '\n' | grep -qx nosuid; then
	echo "SKIP: $tmp is on a nosuid filesystem"
	exit 77
fi
install -m 4755 -o root -g root "$prog" "$tmp/suid"
install -m 0755 "$prog" "$tmp/plain"
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$tmp/plain"; then
	echo "SKIP: the unprivileged user (65534) cannot run programs in $tmp"
	exit 77
fi

# what the unprivileged user controls: its own directory
u=$tmp/user
mkdir -p "$u/cache" "$u/home" "$u/buildid" "$u/machines/sapphirerapids" "$u/tracefs/events"
cp "$src/examples/model/sapphirerapids.json" "$u/scenario.json"
cp -r "$src/tests/data/sysfs/sapphirerapids/." "$u/machines/sapphirerapids/"
chown -R 65534:65534 "$u"
run() { # PROGRAM: run as nobody with every variable set
	setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin \
		PMUKIT_REGION_REPORT="$u/report.json" PMUKIT_MODEL="$u/scenario.json" \
		PMUKIT_SYSFS="$u/machines/sapphirerapids" PMUKIT_TRACEFS="$u/tracefs" \
		PMUKIT_MACHINES="$u/machines" PERF_BUILDID_DIR="$u/buildid" \
		XDG_CACHE_HOME="$u/cache" HOME="$u/home" PMUKIT_CPUID=GenuineIntel-6-8F-8 \
		PMUKIT_REGION_LEVEL=2 PMUKIT_REGION_RESET_S=0.5 PMUKIT_REGION_CLOCK=monotonic \
		PMUKIT_KALLSYMS_CACHE="$u/cache/kallsyms" PERF_CPUID=GenuineIntel-6-8F-8 \
		DEBUGINFOD_URLS="http://127.0.0.1:9/" \
		"$1" "${vars[@]}"
}
before=$(cd "$u" && find . -printf '%p %s %T@\n' | sort)

# setuid-root, run by nobody: nothing read, nothing written
out=$(run "$tmp/suid")
if ! grep -qx 'secure 1' <<<"$out"; then
	echo "SKIP: the setuid bit did not take (AT_SECURE is 0): $tmp cannot run setuid programs"
	exit 77
fi
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
every_var() { # set|unset WHO: each variable as the program saw it
	for v in "${vars[@]}"; do
		grep -qx "env $v $1" <<<"$out" || fail "$2: $v $1 for the library"
	done
}
every_var unset privileged
grep -qx 'modeled 0' <<<"$out" || fail "privileged: modeled counts (PMUKIT_MODEL read)"
grep -qx 'sysfs /sys' <<<"$out" || fail "privileged: PMUKIT_SYSFS read"
grep -qx 'cpuid_overridden 0' <<<"$out" || fail "privileged: PMUKIT_CPUID read"
grep -qx 'kcache none' <<<"$out" || fail "privileged: a kallsyms cache in the user's directory"
! grep -q "$u" <<<"$out" || fail "privileged: a path of the user's directory was taken"
after=$(cd "$u" && find . -printf '%p %s %T@\n' | sort)
[ "$before" = "$after" ] || fail "privileged: the user's directory changed: $(diff <(echo "$before") <(echo "$after"))"

# the control: the same program unprivileged honours every variable
out=$(run "$tmp/plain")
grep -qx 'secure 0' <<<"$out" || fail "unprivileged: AT_SECURE set"
every_var set "unprivileged (is it set by run()?)"
grep -qx 'modeled 1' <<<"$out" || fail "unprivileged: PMUKIT_MODEL ignored"
grep -qx "sysfs $u/machines/sapphirerapids" <<<"$out" || fail "unprivileged: PMUKIT_SYSFS ignored"
grep -qx "kcache $u/cache/kallsyms" <<<"$out" || fail "unprivileged: the cache path"
grep -qx "machine $u/machines/sapphirerapids" <<<"$out" || fail "unprivileged: PMUKIT_MACHINES"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["modeled"] and r["regions"][0]["calls"] == 1, r' \
	"$u/report.json" || fail "unprivileged: no report"
echo "setuid program: ${#vars[@]} variables ignored, nothing written; unprivileged: all honoured"
