#!/usr/bin/env python3
"""`pmukit inject` against `perf inject` 6.1 (test `perfdata_cmd_inject`,
issue 24): both tools inject the same inputs and perf 6.1 reads both outputs;
`perf script`, `perf report --stdio` (its random tip line dropped) and
`perf buildid-list` must print the same.

  inputs   recorded here from the examples' workload with cpu-clock: by perf
           record without build ids (-B), by perf record, by pmukit record,
           and a pipe-mode stream (perf record -o -)
  options  none, -b, --buildid-all
  outputs  a file (-o FILE) and standard output (pipe mode); the stream
           through standard input to standard output (`cat | inject`)

A pipe-mode input written to a file: perf 6.1's own output cannot be read
back ("failed to process type"), so pmukit's is checked against the input
(script and report the same) and against perf's pipe output's build ids.
Checks are `inject:INPUT:OPTION:OUTPUT:VIEW`; a difference must be listed
in docs/perfdata-differences.md. Skipped (77) without perf 6.1.

usage: pd_cmd_inject.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import allowed_list, command_setup, is_listed, run  # noqa: E402

VIEWS = [("script", "script"), ("report", "report --stdio"), ("buildid-list", "buildid-list")]
OPTIONS = ["", "-b", "--buildid-all"]


def view(cmd, path, tmp, env):
    rc, out, err = run("perf %s -i %s" % (cmd, path), tmp, env)
    lines = [l for l in out.splitlines() if "(Tip:" not in l]
    return rc, "\n".join(lines)


def main():
    a = command_setup(__doc__, "pk-cmd-inject-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, wl, tmp, env = a
    rec = "record -e cpu-clock -c 250000"
    try:
        for cmd in ("perf %s -B -o nb.data -- %s 200 2000000" % (rec, wl),
                    "perf %s -o perf.data -- %s 200 2000000" % (rec, wl),
                    "%s %s -o pk.data -- %s 200 2000000" % (pk, rec, wl),
                    "perf %s -o - -- %s 100 1000000 > pipe.data" % (rec, wl)):
            rc, _, err = run(cmd, tmp, env)
            if rc:
                print("FAIL: %s: %s" % (cmd, err.strip()[-300:]))
                return 1
        checks = []  # (id, perf's text, pmukit's text)

        def both(cid, perf_cmd, pk_cmd, p_out, k_out, views=VIEWS):
            rp, _, ep = run(perf_cmd, tmp, env)
            rk, _, ek = run(pk_cmd, tmp, env)
            if rp or rk:
                checks.append((cid + ":status", "%d %s" % (rp, ep[-200:]), "%d %s" % (rk, ek[-200:])))
                return
            for name, v in views:
                checks.append(("%s:%s" % (cid, name), view(v, p_out, tmp, env),
                               view(v, k_out, tmp, env)))

        for inp in ("nb.data", "perf.data", "pk.data"):
            for o in OPTIONS:
                cid = "inject:%s:%s" % (inp, o or "plain")
                both(cid + ":file", "perf inject %s -i %s -o P.data" % (o, inp),
                     "%s inject %s -i %s -o K.data" % (pk, o, inp), "P.data", "K.data")
                both(cid + ":pipe", "perf inject %s -i %s > P.pipe" % (o, inp),
                     "%s inject %s -i %s > K.pipe" % (pk, o, inp), "P.pipe", "K.pipe")
        for o in OPTIONS:
            cid = "inject:pipe.data:%s" % (o or "plain")
            both(cid + ":stdin", "cat pipe.data | perf inject %s > P.pipe" % o,
                 "cat pipe.data | %s inject %s > K.pipe" % (pk, o), "P.pipe", "K.pipe")
            # a pipe into a file: the input's views, perf's pipe output's build ids
            rk, _, ek = run("%s inject %s -i pipe.data -o K.data" % (pk, o), tmp, env)
            for name, v in VIEWS:
                ref = "P.pipe" if name == "buildid-list" else "pipe.data"
                checks.append(("%s:file:%s" % (cid, name), view(v, ref, tmp, env),
                               view(v, "K.data", tmp, env) if not rk else (rk, ek)))
        allowed = allowed_list(srcdir)
        same = failed = 0
        for cid, p, k in checks:
            listed = is_listed(cid, allowed, False)
            if p == k:
                same += 1
                if listed:
                    print("listed but identical now: %s" % cid)
                continue
            print("%s %s" % ("listed:" if listed else "FAIL", cid))
            if show:
                print("  perf:   %r\n  pmukit: %r" % (p, k))
            failed += not listed
        print("%d/%d identical, %d unlisted differences" % (same, len(checks), failed))
        return 1 if failed else 0
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
