#!/usr/bin/env python3
"""stat -a --per-thread (issue 24: perf's stat+csv_output.sh and
stat+json_output.sh run it) against perf 6.1: both count every thread of
the system while a command runs, so the threads and counts differ between
the two runs, but the form must not: the same events (the default set's
cpu-clock, not task-clock, as system-wide), the same fields per CSV line and
keys per JSON line, each event's rows sorted by value, largest first, and
no row of count 0 (perf drops them: every thread of the system has one;
a CSV cpu-clock below 5 us prints as 0.00 and is kept).
A busy loop runs beside, so both see threads that ran.

  stat_per_thread_perf61.py PMUKIT      exit 77 without perf 6.1"""
import json
import subprocess
import sys

import oracle61

EVENTS = "cpu-clock,context-switches,page-faults"


def run(tool, args):
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        p = subprocess.run([tool, "stat", "--per-thread", "-a"] + args + ["sleep", "0.3"],
                           capture_output=True, text=True)
    finally:
        busy.kill()
        busy.wait()
    if p.returncode:
        return None, f"exit {p.returncode}: {p.stderr[-300:]}"
    # pmukit's notes on a PMU-less machine; perf's word on a thread that
    # exited before it read its name
    return [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("note:")
            and not l.startswith("Couldn't resolve comm name")], ""


def shape(lines, fmt):
    """(events in order of first row, the set of field counts or key sets,
    a row out of order or of value 0, or '')"""
    events, forms, last, bad = [], set(), {}, ""
    for line in lines:
        if fmt == "csv":
            f = line.split(",")
            if len(f) < 4:
                return events, forms, f"not a CSV row: {line!r}"
            ev, val = f[3], f[1]
            forms.add(len(f))
        else:
            d = json.loads(line)
            ev, val = d["event"], d["counter-value"]
            forms.add(tuple(sorted(d)))
        if ev not in events:
            events.append(ev)
        v = float(val) if val[0].isdigit() else -1
        # a count of 0 is dropped; a CSV msec value rounds to "0.00" below
        # 5 us of a count perf keeps (printed with two decimals)
        zero = v == 0 and not (fmt == "csv" and "." in val)
        if zero or v > last.get(ev, float("inf")):
            bad = bad or f"{line!r} after {last.get(ev)}"
        last[ev] = v
    return events, forms, bad


def main(argv):
    if not oracle61.have_perf61():
        return 77
    bad = 0
    for fmt, args in [("csv", ["-x,", "-e", EVENTS]), ("json", ["-j", "-e", EVENTS]),
                      ("csv", ["-x,"])]:
        # perf 6.1 itself fails now and then when a thread exits as it
        # starts ("failed to parse CPUs map"): up to three tries
        want = None
        for _ in range(3):
            if want is None:
                want, why = run("perf", args)
        if want is None:
            print(f"perf 6.1 failed three times ({why}): skipped")
            return 77
        got, why = run(argv[1], args)
        ok = got is not None
        if ok:
            w, g = shape(want, fmt), shape(got, fmt)
            # the default set: perf's events that some thread counted
            ok = (g[0] == w[0] if "-e" in args else "cpu-clock" in g[0] and set(w[0]) <= set(g[0]))
            ok = ok and g[1] == w[1] and not g[2]
            why = f"perf 6.1 {w}, pmukit {g}"
        bad += not ok
        print(("ok  " if ok else "BAD ") + " ".join(args) + ("" if ok else "\n  " + why))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
