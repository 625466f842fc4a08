#!/usr/bin/env python3
"""`pmukit diff` against `perf diff` 6.1 (test `perfdata_cmd_diff`, issue 24):
standard output byte for byte and the exit status, over every option diff
takes (-c delta|delta-abs|ratio|wdiff:W1,W2, -s, -p, -F, -o, -b, -q,
--percentage) on

  recorded  files the test records of the examples' workload with cpu-clock:
            two by perf record, two by pmukit record; pairs of each tool's,
            mixed pairs and three files (perf prints /N columns and the list)
  corpus    pairs of tests/data/perfdata-real files both tools read
            (quipper's busy, callgraph, forkexit, systemwide, singleprocess
            recordings of 3.4 and 3.8 kernels, two events against two, a
            process against several; perfparser's vector programs; hotspot's
            true: a baseline without samples). Not pipe-mode files: perf
            6.1's diff refuses them (status 234)

A check is `diff:SET:OPTIONS`; a difference must be listed with its reason in
docs/perfdata-differences.md as pd_diff.py's are. Both tools run with HOME and
PERF_BUILDID_DIR in the temporary folder. Skipped (77) without perf 6.1.

usage: pd_cmd_diff.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import lzma
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import allowed_list, command_setup, is_listed, run  # noqa: E402

OPTIONS = ["", "-c delta", "-c delta-abs", "-c ratio", "-c wdiff:1,2", "-c wdiff:3,-2 -F -p",
           "-p", "-F", "-c ratio -F -p", "-b", "-b -F -p", "-c ratio -b", "-o 0",
           "-o 0 -c ratio", "-o 2", "-q", "-q -F", "-s comm", "-s dso", "-s comm,dso,sym",
           "-s sym", "--percentage relative", "--percentage absolute -F"]

CORPUS = [("quipper/perf.data.busy.0-3.4", "quipper/perf.data.busy.1-3.4"),
          ("quipper/perf.data.busy.0-3.8", "quipper/perf.data.busy.1-3.8"),
          ("quipper/perf.data.callgraph-3.4", "quipper/perf.data.callgraph-3.8"),
          ("quipper/perf.data.forkexit-3.4", "quipper/perf.data.forkexit-3.8"),
          ("perfparser/vector_static_gcc_perf.data", "perfparser/vector_static_clang_perf.data"),
          ("hotspot/perf.data.true.v1", "hotspot/perf.data.true.v2"),
          ("quipper/multi-event-single-process.perf.data", "quipper/perf.data.hw_and_sw-3.4"),
          ("quipper/perf.data.systemwide.0-3.8", "quipper/perf.data.systemwide.1-3.8"),
          ("quipper/perf.data.singleprocess-3.4", "quipper/perf.data.singleprocess-3.8"),
          ("quipper/single-event-multi-process.perf.data",
           "quipper/single-event-single-process.perf.data")]
CORPUS_OPTIONS = ["", "-c ratio -F -p", "-c wdiff:2,1 -b", "-s comm,dso"]


def record(tool, out, wl, args, tmp, env):
    rc, _, err = run("%s record -e cpu-clock -c 250000 -o %s -- %s %s" % (tool, out, wl, args),
                     tmp, env)
    if rc:
        raise RuntimeError("%s record failed: %s" % (tool, err.strip()[-300:]))


def unpack(srcdir, name, tmp):
    dst = os.path.join(tmp, name.replace("/", "_"))
    if not os.path.exists(dst):
        with lzma.open(os.path.join(srcdir, "tests", "data", "perfdata-real", name + ".xz")) as s, \
                open(dst, "wb") as d:
            shutil.copyfileobj(s, d)
    return dst


def compare(pk, cid, opts, files, tmp, env, show):
    """None when both tools print the same; else the first differing line."""
    args = "-f %s %s" % (opts, " ".join(files))
    rp, op, _ = run("perf diff %s" % args, tmp, env)
    rk, ok, ek = run("%s diff %s" % (pk, args), tmp, env)
    if rp == rk and op == ok:
        return None
    pl, kl = op.splitlines(), ok.splitlines()
    i = next((i for i in range(max(len(pl), len(kl)))
              if i >= len(pl) or i >= len(kl) or pl[i] != kl[i]), 0)
    why = "status %d/%d; line %d: perf %r pmukit %r" % (
        rp, rk, i + 1, pl[i] if i < len(pl) else None, kl[i] if i < len(kl) else None)
    if show:
        why += "\n" + ek[-500:]
    return why


def main():
    a = command_setup(__doc__, "pk-cmd-diff-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, wl, tmp, env = a
    try:
        record("perf", "perf1.data", wl, "200 2000000", tmp, env)
        record("perf", "perf2.data", wl, "600 3000000", tmp, env)
        record(pk, "pk1.data", wl, "200 2000000", tmp, env)
        record(pk, "pk2.data", wl, "600 3000000", tmp, env)
        sets = [("perf", ["perf1.data", "perf2.data"]), ("pmukit", ["pk1.data", "pk2.data"]),
                ("mixed", ["perf1.data", "pk2.data"]),
                ("three", ["pk1.data", "perf2.data", "perf1.data"])]
        checks = [("diff:%s:%s" % (n, o), o, f) for n, f in sets for o in OPTIONS]
        for old, new in CORPUS:
            files = [unpack(srcdir, old, tmp), unpack(srcdir, new, tmp)]
            checks += [("diff:%s+%s:%s" % (old, new, o), o, files) for o in CORPUS_OPTIONS]
        allowed = allowed_list(srcdir)
        same = failed = 0
        for cid, opts, files in checks:
            why = compare(pk, cid, opts, files, tmp, env, show)
            listed = is_listed(cid, allowed, False)
            if why is None:
                same += 1
                if listed:
                    print("listed but identical now: %s" % cid)
            elif listed:
                print("listed: %s: %s" % (cid, why))
            else:
                failed += 1
                print("FAIL %s: %s" % (cid, why))
        print("%d/%d identical, %d unlisted differences" % (same, len(checks), failed))
        return 1 if failed else 0
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
