#!/bin/bash
# The library never prints, never exits (docs/architecture.md): no object
# of the static archive refers to stdout, stderr, the printing or exiting
# functions of libc, except the region report's (lib/region/report.c),
# which writes the report the user asked for to the caller's FILE or, for
# "-", stderr, and the measured command's launcher (lib/counting/workload.c),
# whose forked child _exits when its exec fails (it must never return into
# the caller's code), and perf bench's messaging workload
# (lib/counting/bench_msg.c), whose forked workers _exit when done, for the
# same reason. Checked on the symbols each object needs (nm -u), so a
# print hidden in a macro or an inline is caught as well.
# usage: check_no_print.sh NM ARCHIVE
set -euo pipefail
nm=$1 archive=$2
banned='stdout|stderr|printf|vprintf|puts|putchar|perror|psignal|psiginfo|err|errx|verr|verrx|warn|warnx|vwarn|vwarnx|error|error_at_line|syslog|vsyslog|exit|_exit|_Exit|quick_exit|abort|__assert_fail|__printf_chk|__vprintf_chk'
streams='fprintf|vfprintf|fputs|fputc|putc|fwrite|__fprintf_chk|__vfprintf_chk|dprintf|__dprintf_chk'
bad=$("$nm" -A -u "$archive" | sed 's/^[^:]*://' | awk '{print $1, $NF}' | sed 's/: / /' |
	grep -E " ($banned|$streams)(@.*)?$" |
	grep -vE "^lib_region_report\.c\.o (stderr|$streams)(@.*)?$" |
	grep -vE "^lib_counting_(workload|bench_msg)\.c\.o _exit(@.*)?$" || true)
if [ -n "$bad" ]; then
	echo "the library prints or exits here (object, symbol):"
	echo "$bad"
	exit 1
fi
echo "no object of $archive prints or exits (the region report apart)"
