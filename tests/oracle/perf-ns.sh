#!/bin/sh
# perf-ns.sh [-p PRELOAD] [-f PATH=TEXT]... DEVICES CMD [ARG...]
#
# Runs CMD (normally perf) in a private mount namespace in which the PMU
# directory DEVICES (a fixture's <machine>/bus/event_source/devices) is shown
# at /sys/bus/event_source/devices, so perf sees the PMUs of a machine we do
# not have. With -p, PRELOAD is set as LD_PRELOAD for CMD only (e.g. the
# perf_event_open stub, peo_stub.c). Each -f shows a file holding TEXT (and a
# newline) at PATH, an existing file, for CMD only: a host fact perf reads
# outside the PMU tree, e.g. SMT on with
#   -f /sys/devices/system/cpu/smt/active=1
#   -f /sys/devices/system/cpu/cpu0/topology/core_cpus_list=0-1
#
# The directory is a copy on a tmpfs so that its readdir order is ours: perf
# 6.1 lists PMUs in readdir order, and on a hybrid machine cpu_core comes
# before cpu_atom. The order made here is cpu_core first, then every other
# PMU by name; it is checked after copying (tmpfs lists in creation order on
# recent kernels, newest first on older ones) and the copy redone in reverse
# when the kernel lists the other way round.
#
# Needs root (or CAP_SYS_ADMIN) for unshare -m and mount. Exits 2 when the
# namespace or the copy cannot be made, else with CMD's status.
set -eu
mnt=/sys/bus/event_source/devices

preload=
overlays=
while [ $# -ge 2 ]; do
	case $1 in
	-p) preload=$2 ;;
	-f) overlays="$overlays
$2" ;;
	*) break ;;
	esac
	shift 2
done
[ $# -ge 2 ] || { echo "usage: perf-ns.sh [-p PRELOAD] [-f PATH=TEXT]... DEVICES CMD [ARG...]" >&2; exit 2; }
devices=$1
shift
[ -d "$devices" ] || { echo "perf-ns.sh: $devices: not a directory" >&2; exit 2; }

if [ "${PK_PERF_NS_INNER:-}" != 1 ]; then
	PK_PERF_NS_OVERLAYS=$overlays PK_PERF_NS_INNER=1 exec unshare -m --propagation private \
		sh "$0" ${preload:+-p "$preload"} "$devices" "$@"
fi
unset PK_PERF_NS_INNER
overlays=${PK_PERF_NS_OVERLAYS:-}
unset PK_PERF_NS_OVERLAYS

# The wanted order, one name a line.
wanted() {
	ls "$devices" | grep -x cpu_core || true
	ls "$devices" | LC_ALL=C sort | grep -vx cpu_core || true
}

# Mounts a fresh tmpfs and copies the PMU directories in the order read
# from stdin.
fill() {
	if mountpoint -q "$mnt"; then
		umount "$mnt" || return 1
	fi
	mount -t tmpfs -o mode=0755 pk-pmus "$mnt" || return 1
	while read -r name; do
		cp -r "$devices/$name" "$mnt/$name" || return 1
	done
}

want=$(wanted)
printf '%s\n' "$want" | fill || exit 2
if [ "$(ls -U "$mnt")" != "$want" ]; then
	printf '%s\n' "$want" | tac | fill || exit 2
	if [ "$(ls -U "$mnt")" != "$want" ]; then
		echo "perf-ns.sh: cannot order $mnt: the kernel lists it as" $(ls -U "$mnt") >&2
		exit 2
	fi
fi
# The -f files: each a regular file bound over its path. CMD then runs as
# a child so that the files can be removed after it.
if [ -z "$overlays" ]; then
	[ -z "$preload" ] || exec env LD_PRELOAD="$preload" "$@"
	exec "$@"
fi
otmp=$(mktemp -d) || exit 2
i=0
printf '%s\n' "$overlays" | while IFS= read -r o; do
	[ -n "$o" ] || continue
	i=$((i + 1))
	printf '%s\n' "${o#*=}" > "$otmp/$i" && mount --bind "$otmp/$i" "${o%%=*}" || {
		echo "perf-ns.sh: cannot show ${o#*=} at ${o%%=*}" >&2
		exit 2
	}
done
ok=$?
rc=2
if [ $ok -eq 0 ]; then
	if [ -n "$preload" ]; then
		env LD_PRELOAD="$preload" "$@"
	else
		"$@"
	fi
	rc=$?
fi
printf '%s\n' "$overlays" | while IFS= read -r o; do
	[ -z "$o" ] || umount "${o%%=*}" 2>/dev/null
done
rm -rf "$otmp"
exit $rc
