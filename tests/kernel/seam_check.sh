#!/bin/sh
# Nothing in lib/ goes around the kernel seam (include/pmukit/kernel.h):
# outside lib/kernel/, no C file names a /proc or /sys path in a string
# literal, calls poll/ppoll/epoll, sysconf, getpagesize, uname or syscall()
# (perf_event_open). Every such fact or call belongs in pk_kernel_ops, so the
# PMU model can stand in for all of it.
#
# Allowed exceptions, and why:
#   lib/pmu/       reads the PMU tree under the sysfs root (pk_sysfs_root:
#                  $PMUKIT_SYSFS or /sys). That tree IS the fact source the
#                  model provides, as a folder: fixtures and the model are
#                  loaded the same way.
#   lib/events/tracepoint.c  reads tracefs (event formats and ids), a file
#                  tree with its own root ($PMUKIT_TRACEFS).
#   lib/symbols/   reads the ELF files of the recorded program and, when
#                  reporting, the analysing host's kallsyms and vdso: facts
#                  of the machine that reads perf.data, not of the one that
#                  was measured.
# Usage: seam_check.sh SRCDIR
set -u
src=${1:-.}
cd "$src" || exit 2
bad=$(grep -rnE \
	-e '"/(proc|sys)(/|")' \
	-e '(^|[^_a-zA-Z0-9>.])(poll|ppoll|epoll_wait|epoll_create1?|sysconf|getpagesize|uname|syscall)[[:space:]]*\(' \
	--include='*.c' --include='*.h' lib |
	grep -v -e '^lib/kernel/' -e '^lib/pmu/' -e '^lib/events/tracepoint\.c:' -e '^lib/symbols/' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$bad" ]; then
	echo "kernel facts or calls outside the seam (route them through pk_kernel_ops):"
	echo "$bad"
	exit 1
fi
echo "ok: lib/ reaches the kernel only through lib/kernel"
