#!/usr/bin/env python3
"""`pmukit evlist` against `perf evlist` 6.1 (test `perfdata_evlist`, issue
24): both tools list the events of the same files with the same options
(none, -v, -F, -g, -g -F) and must print the same and exit the same.

  files    the corpus of real recordings (tests/data/perfdata-real) in file
           mode, and a group and a tracepoint recording made here by perf
  skipped  a file perf 6.1 cannot read (status != 0: newer attrs, damaged
           headers; pmukit reads them) and pipe-mode files (perf 6.1's
           evlist lists no events of most pipes: it does not read their
           ATTR records; pmukit reads through the stream)

Skipped (77) without perf 6.1.

usage: pd_evlist.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import command_setup, run  # noqa: E402
from pd_real import unpack  # noqa: E402

OPTIONS = ["", "-v", "-F", "-g", "-g -F"]


def is_pipe(path):
    with open(path, "rb") as f:
        head = f.read(16)
    return len(head) == 16 and head[:8] in (b"PERFILE2", b"2ELIFREP") and \
        int.from_bytes(head[8:16], "little" if head[:8] == b"PERFILE2" else "big") == 16


def main():
    a = command_setup(__doc__, "pk-evlist-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, wl, tmp, env = a
    try:
        files = [os.path.join(tmp, n) for n in
                 unpack(os.path.join(srcdir, "tests/data/perfdata-real"), tmp)]
        for name, ev in (("group.data", "-e {cpu-clock,task-clock} -e page-faults"),
                         ("tp.data", "-e sched:sched_process_exec -e cpu-clock")):
            rc, _, err = run("perf record -q -o %s %s -- %s 50 100000" % (name, ev, wl), tmp, env)
            if rc == 0:
                files.append(os.path.join(tmp, name))
            else:
                print("perf record %s failed here (%s): left out" % (ev, err.strip()[:80]))
        same = checked = refused = 0
        bad = []
        for path in files:
            if is_pipe(path):
                continue
            for opt in OPTIONS:
                prc, pout, _ = run("perf evlist -f -i %s %s" % (path, opt), tmp, env)
                if prc and opt != "-g -F":
                    refused += 1
                    continue
                krc, kout, kerr = run("%s evlist -i %s %s" % (pk, path, opt), tmp, env)
                checked += 1
                if (krc, kout) == (prc, pout):
                    same += 1
                else:
                    bad.append("%s '%s': status %d vs %d%s" % (
                        os.path.relpath(path, tmp), opt, krc, prc,
                        "\n  pmukit: %r\n  perf:   %r\n  %s" % (kout[:300], pout[:300], kerr)
                        if show else ""))
        for b in bad:
            print("DIFF " + b)
        print("%d/%d identical (%d views perf 6.1 cannot read left out)" % (same, checked, refused))
        return 0 if not bad and checked else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
