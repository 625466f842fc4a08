#!/usr/bin/env python3
"""`pmukit lock` and `pmukit bench sched messaging` against perf 6.1 (test
`perfdata_lock`, issue 24):

  record    perf lock record and pmukit lock record, each of its own bench
            sched messaging: the attrs of both files (perf evlist -v) must
            be the same
  contention  perf lock contention and pmukit lock contention on both files
            with several option sets (-E, -k, -F, -q): the same text (on
            stderr, as perf prints it) and the same exit status
  bad input a file without tracepoint events and one without the lock
            ones: perf's message and status from both tools
  bench     the lines of bench sched messaging (-t, -p, -g, -l) but the time

Skipped (77) without perf 6.1 or when perf lock record cannot record the
lock tracepoints here (no root, no tracefs).

usage: pd_lock.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import command_setup, run  # noqa: E402

CONTENTION = ["", "-E 5", "-q -E 1", "-k contended", "-k wait_max -E 4",
              "-k avg_wait -F contended,wait_min", "-F wait_min,contended,contended -k wait_min",
              "-E 0", "-k nosuch", "-F nosuch", "-k nosuch -F nosuch"]
BENCH = ["-g 1 -l 5", "-g 2 -l 5 -t", "-g 1 -l 5 -p", "-g 0"]
TIME = re.compile(r"Total time: \d+\.\d{3} \[sec\]")


def compare(what, a, b, show, bad):
    """a and b: (status, text) of perf and pmukit; a difference into bad."""
    if a == b:
        return 1
    bad.append("%s: status %d vs %d%s" % (what, b[0], a[0], "\n  pmukit: %r\n  perf:   %r" % (
        b[1][:600], a[1][:600]) if show else ""))
    return 0


def record(pk, tmp, env):
    """Both tools' lock recordings, or None after saying why not."""
    rc, _, err = run("perf lock record -o perf.lock -- perf bench sched messaging -g 2 -l 20",
                     tmp, env)
    if rc:
        print("SKIP: perf lock record failed here: %s" % err.strip()[-200:])
        return None
    rc, _, err = run("%s lock record -o pk.lock -- %s bench sched messaging -g 2 -l 20" % (pk, pk),
                     tmp, env)
    if rc:
        print("pmukit lock record failed: %s" % err.strip()[-300:])
        return []
    return ["perf.lock", "pk.lock"]


def bad_files(pk, tmp, env):
    """A file without tracepoints and one without lock events (pmukit's records)."""
    out = []
    for name, ev in (("notp.data", "-e cpu-clock"), ("nolock.data", "-e sched:sched_process_exec")):
        if run("%s record -q -o %s %s -- true" % (pk, name, ev), tmp, env)[0] == 0:
            out.append(name)
    return out


def main():
    a = command_setup(__doc__, "pk-lock-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, wl, tmp, env = a
    try:
        files = record(pk, tmp, env)
        if files is None:
            return 77
        same = checked = 0
        bad = [] if files else ["pmukit lock record"]
        if files:
            ev = [run("perf evlist -v -i %s" % f, tmp, env)[:2] for f in files]
            checked += 1
            same += compare("evlist -v of the lock recordings", ev[0], ev[1], show, bad)
        for f in files + bad_files(pk, tmp, env):
            for opt in CONTENTION:
                p = run("perf lock contention -i %s %s" % (f, opt), tmp, env)
                k = run("%s lock contention -i %s %s" % (pk, f, opt), tmp, env)
                checked += 1
                same += compare("%s '%s'" % (f, opt), (p[0], p[2]), (k[0], k[2]), show, bad)
        for opt in BENCH:
            p = run("perf bench sched messaging %s" % opt, tmp, env)
            k = run("%s bench sched messaging %s" % (pk, opt), tmp, env)
            checked += 1
            same += compare("bench '%s'" % opt, (p[0], TIME.sub("T", p[1])),
                            (k[0], TIME.sub("T", k[1])), show, bad)
        for b in bad:
            print("DIFF " + b)
        print("%d/%d identical" % (same, checked))
        return 0 if not bad and checked else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
