#!/usr/bin/env python3
"""Symbolization against perf 6.1 (test `perfdata_sym_diff`): small programs
(tests/perfdata/sym_progs/) are compiled here, recorded by perf, and each
recording is read by `perf` and by `pmukit` with the same options; their
standard outputs and whether they succeeded must be the same.

  jit       code run from an anonymous executable page, its symbols in the
            /tmp/perf-<pid>.map the program writes (script, report)
  globals   page faults with their data addresses (-e page-faults -d):
            `-F addr,sym` names the objects the addresses lie in; the `-F`
            rules (sym and dso without ip, symoff without sym)
  lines     a loop inlined into a function, built with -g: `-F srcline`,
            `report -s srcline,srcfile` from the DWARF line tables; --inline
  nolines   the same built without -g: addr2line's answers from the
            symbol table (`lines.c:0`, `??:0`, the kernel's `sym+off`)

The test prints each difference, then `N/M identical`, and fails on any.
Skipped (77) without perf 6.1, a C compiler, or permission to record.

usage: pd_sym_diff.py [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree)
"""
import os
import platform
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import describe_difference, no_perf61, run, test_args  # noqa: E402 (one copy of each)

# name -> (program, compiler flags, record options, program arguments)
PROGRAMS = {
    "jit": ("jit.c", "-O1", "-e cpu-clock", "100000"),
    "globals": ("globals.c", "-O1", "-e page-faults -d -c 1", ""),
    "lines": ("lines.c", "-g -O2", "-e cpu-clock -g", "200000"),
    "nolines": ("lines.c", "-O2", "-e cpu-clock", "200000"),
}

# (recording, command and options) compared on perf's recording
CHECKS = [
    ("jit", "script -F ip,sym,symoff,dso"),
    ("jit", "script -F comm,sym"),
    ("jit", "report --stdio -q"),
    ("jit", "report --stdio -q -s dso,sym"),
    ("globals", "script -F addr,sym"),
    ("globals", "script -F addr,sym,symoff,dso"),
    ("globals", "script -F ip,sym,symoff,addr,dso"),
    ("globals", "script -F comm,addr,sym,dso"),
    ("globals", "script -F comm,sym"),
    ("globals", "script -F comm,sym,dso"),
    ("globals", "script -F comm,symoff"),
    ("globals", "script"),
    # the program's own rows (--dsos): glibc's dynamic loader differs (listed
    # in docs/perfdata-differences.md, binutils' file of one DWARF 5 row)
    ("lines", "script -F ip,sym,srcline --dsos lines"),
    ("lines", "script -F comm,ip,sym,dso,srcline,period -G --dsos lines"),
    ("lines", "report --stdio -q --no-children -s srcline --dsos lines"),
    ("lines", "report --stdio -q --no-children -s srcfile --dsos lines"),
    ("lines", "report --stdio -q --no-children -s srcfile,srcline,sym --dsos lines"),
    # perf 6.1 (its addr2line a program) shows no inlined frames: --inline
    # changes nothing in either tool
    ("lines", "script --inline -F ip,sym,srcline --dsos lines"),
    ("lines", "report --stdio -q --inline --no-children -g caller --dsos lines"),
    # the program's and the kernel's rows: ld.so's as above; two columns on
    # the program's only (perf sizes Source:Line from some rows, listed)
    ("nolines", "script -F ip,sym,dso,srcline --dsos nolines,[kernel.kallsyms]"),
    ("nolines", "report --stdio -q -s srcline --dsos nolines,[kernel.kallsyms]"),
    ("nolines", "report --stdio -q -s srcfile,srcline --dsos nolines"),
]


def skip_reason(cc):
    why = no_perf61()
    if why:
        return why
    if not cc:
        return "no C compiler (cc, gcc) to build the programs"
    rc, _, err = run("perf record -o /dev/null -e cpu-clock -- true", ".")
    if rc:
        return "perf cannot record here: %s" % err.strip()[-200:]
    return None


def record(name, cc, srcdir, tmp):
    """Builds and records one program with perf; the file name, or None."""
    src, cflags, opts, args = PROGRAMS[name]
    if name == "jit" and platform.machine() != "x86_64":
        return None
    exe = os.path.join(tmp, name)
    rc, _, err = run("%s %s -o %s %s" % (cc, cflags, exe,
                     os.path.join(srcdir, "tests", "perfdata", "sym_progs", src)), tmp)
    if rc:
        raise SystemExit("cannot build %s: %s" % (src, err))
    data = name + ".data"
    rc, _, err = run("perf record -o %s %s -- %s %s" % (data, opts, exe, args), tmp)
    if rc:
        raise SystemExit("perf record %s failed: %s" % (name, err))
    return data


def jit_maps(tmp, data):
    """The /tmp/perf-<pid>.map files of the recording's processes."""
    _, out, _ = run("perf script -i %s -F pid" % data, tmp)
    pids = {int(x) for x in out.split()}
    return ["/tmp/perf-%d.map" % p for p in pids if os.path.exists("/tmp/perf-%d.map" % p)]


def main():
    got = test_args(__doc__, skip_reason, "pd_sym_diff.")
    if isinstance(got, int):
        return got
    show, keep, srcdir, pmukit, cc, tmp = got
    results, maps = [], []
    try:
        files = {n: record(n, cc, srcdir, tmp) for n in PROGRAMS}
        if files.get("jit"):
            maps = jit_maps(tmp, files["jit"])
            if not maps:
                raise SystemExit("the jit program wrote no /tmp/perf-<pid>.map")
        for name, cmd in CHECKS:
            if not files.get(name):
                continue
            a = run("%s %s -i %s" % (pmukit, cmd, files[name]), tmp)
            b = run("perf %s -i %s" % (cmd, files[name]), tmp)
            ours, theirs = (a[0] == 0, a[1]), (b[0] == 0, b[1])
            detail = describe_difference(a, b, show) if ours != theirs else ""
            results.append(("%s: %s" % (name, cmd), ours == theirs, detail, len(b[1])))
    finally:
        for m in maps:
            os.unlink(m)
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    bad = 0
    for cid, same, detail, n in results:
        print("%s %s (%d bytes)%s" % ("same     " if same else "DIFFERENT", cid, n,
                                      "" if same else ": " + detail))
        bad += not same
    print("%d/%d identical" % (len(results) - bad, len(results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
