#!/usr/bin/env python3
"""Intel PT's synthesized events against perf 6.1 (test `intelpt_diff`) on
the corpus file quipper/perf.data.intel_pt-4.14 (tests/data/perfdata-real,
xz, decompressed into a temporary folder), whose traced binaries are not on
this machine: every walk over code fails, in perf as in pmukit.

  identical   views whose standard output and status must be perf's (report's
              random tip cut off): the psb and cbr samples (`--itrace=p`,
              with their payloads, times, tasks and CPUs), nothing
              synthesized (`--itrace=`), every branch (`b`: the asynchronous
              ones, trace ends and the trace begins where the decoder found
              its IP again, so where perf resyncs), calls (`c`), report's
              default (psb, cbr, their call chains from the thread stack;
              pd_real's `report`), its comm, dso, pid view (pd_real's `dso`),
              --stats (nothing decoded).
  default     `script` as it is: every line of perf's but its instruction
              trace errors is pmukit's (psb, cbr, branches, the file's
              samples), and at least 110 of perf's 114 error lines are
              (docs/intelpt.md says which second failures in a dso perf
              reports and pmukit not).

Skipped (77) without perf 6.1.

usage: ipt_diff.py [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree)
"""
import lzma
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perfdata"))
from pd_diff import drop_tip, no_perf61, test_args  # noqa: E402

FILE = "quipper/perf.data.intel_pt-4.14"
IDENTICAL = ["script --itrace=p", "script --ns --itrace=p", "script --itrace=",
             "script -F pid,tid,time,ip,sym,dso --itrace=p", "script --itrace=b",
             "script --itrace=c", "report --stdio --no-children",
             "report --stdio --no-children -g none",
             "report --stdio -s pid,sym --itrace=p -g none",
             "report -s comm,dso,pid --no-children -g none --stdio", "report --stats"]


def run(argv, cwd):
    env = dict(os.environ, HOME=cwd, PERF_BUILDID_DIR=os.path.join(cwd, ".debug"))
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def main():
    got = test_args(__doc__, lambda _cc: no_perf61(), "ipt_diff.")
    if isinstance(got, int):
        return got
    show, keep, srcdir, pmukit, _cc, tmp = got
    try:
        path = os.path.join(tmp, "intel_pt.data")
        with lzma.open(os.path.join(srcdir, "tests", "data", "perfdata-real", FILE + ".xz")) as src, \
             open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        bad = 0
        for view in IDENTICAL:
            args = view.split() + ["-f", "-i", path]
            theirs, ours = run(["perf"] + args, tmp), run([pmukit] + args, tmp)
            theirs = (theirs[0], drop_tip(theirs[1]))
            if theirs != ours:
                bad += 1
                print("DIFFERS %s (status %d vs perf's %d)" % (view, ours[0], theirs[0]))
                if show:
                    print(ours[1][:3000] + "\n---- perf:\n" + theirs[1][:3000])
        theirs, ours = run(["perf", "script", "-f", "-i", path], tmp), \
            run([pmukit, "script", "-f", "-i", path], tmp)
        mine = set(ours[1].splitlines())
        missing = [line for line in theirs[1].splitlines() if line not in mine]
        errors = sum(" instruction trace error " in line for line in theirs[1].splitlines())
        not_errors = [line for line in missing if " instruction trace error " not in line]
        if theirs[0] != ours[0] or not_errors or errors - len(missing) < 110:
            bad += 1
            print("DIFFERS script: %d of perf's %d error lines made; lines missing:\n%s" %
                  (errors - len(missing), errors, "\n".join(not_errors[:20])))
        print("%d/%d views as expected" % (len(IDENTICAL) + 1 - bad, len(IDENTICAL) + 1))
        return 1 if bad else 0
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
