#!/usr/bin/env python3
"""Call chains of perf.data files recorded elsewhere against perf 6.1 (test
`perfdata_chain_diff`, issue 20 class 3). Each check runs `perf` and `pmukit`
with the same options on a file and wants the same standard output and the
same success.

  lbr       perfparser's `--call-graph lbr` recording (perf 5.4): the user
            chain is stitched from the LBR call stack (the newest call's
            target, then each call's site), with and without the binary
            (--symfs laid out as the recorded path). The first samples,
            which have an empty LBR stack, are left out by time: perf 6.1
            reads past the record there (docs/perfdata-differences.md).
  dwarf     perfparser's `--call-graph dwarf` recordings without their
            binaries: no user frame is invented (perf shows none where
            nothing can be unwound, the IP alone where it could have been),
            none for samples without a stack copy. The kernel's symbols are
            turned off (--kallsyms of an empty file): this host's are not
            the recorded kernel's.
  fibo      linux-perf-data's `--call-graph dwarf` pipe file of a Rust program
            (perf 6.16, COMPRESSED2: perf 6.1 reads a copy with the zstd
            payloads expanded by the `zstd` tool, skipped without it): this
            host has none of its binaries, so no frame past the IP (libdw
            alone would follow frame pointers into 0xaaaaaaaaaaaaaaa9).
  vdso      a program built here calling clock_gettime in a loop, recorded
            by perf with `--call-graph dwarf`: chains through this host's
            vdso (unwound with its CFI, as perf), and wherever else its
            samples fall (ld.so's start, the exit path). Skipped without a
            compiler.
  pipe      `perf record -g -o -` of a shell loop, made here: a pipe's call
            graph (its attrs come in the stream: perf shows the graph in
            caller order but no Children column).
  trace     `perf record -g -e sched:sched_switch` and the same by pmukit,
            made here: the tracepoints' chains printed under their payload.
            Skipped (with the reason) when perf cannot record tracepoints.

The corpus files come from tests/data/perfdata-real (xz, decompressed into a
temporary folder). The test prints each difference, then `N/M identical`,
and fails on any. Skipped (77) without perf 6.1 or xz.

usage: pd_chain_diff.py [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree)
"""
import lzma
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import drop_tip, first_difference, no_perf61, run, test_args  # noqa: E402

REAL = os.path.join("tests", "data", "perfdata-real", "perfparser")
# the LBR file's binary, at its recorded path under the --symfs folder
LBR_BIN = ("/home/dknysh/kdab-disasm-fraames/hotspot/3rdparty/perfparser/tests/auto/"
           "perfdata/vector_static_gcc/vector_static_gcc_v9.1.0")
# after the LBR file's samples with an empty stack (all before the exec)
LBR_T = "--time 7037283.2041,"
VIEWS = ["script", "script -F ip,sym", "report --stdio -q", "report --stdio -q --no-children",
         "report --stdio -q -g caller", "report --stdio -q -g folded",
         "report --stdio -q --no-children -g caller"]
# (file, options) pairs; {symfs} and {nokallsyms} are filled in
CHECKS = (
    [("lbr", v + " " + LBR_T) for v in VIEWS] +
    [("lbr", v + " " + LBR_T + " --symfs {symfs}") for v in VIEWS] +
    [("vector_dwarf", v) for v in VIEWS] +
    [("vector_zstd", v + " --kallsyms {nokallsyms}") for v in VIEWS] +
    [("parallel", v + " --kallsyms {nokallsyms}") for v in
     ["script", "script -F ip,sym", "report --stdio -q --no-children",
      "report --stdio -q --no-children -g caller"]] +
    [("fibo", v) for v in ["script", "script -F ip,sym", "script -F comm,tid,ip,sym,dso"]] +
    [("vdso", v) for v in
     ["script", "script -F ip,sym,dso", "report --stdio -q --no-children",
      "report --stdio -q --no-children -g caller"]] +
    [("pipe", v) for v in ["report --stdio -q", "report --stdio -q --children",
                           "report --stdio -q --no-children", "report --stdio -q -g callee",
                           "report --stdio -q -g folded", "report --stdio -q -s dso"]] +
    [(t, v) for t in ("trace_perf", "trace_pk") for v in
     # report with Children: rows of equal value may come in another order
     # (docs/perfdata-differences.md), which recording varies
     ["script", "script -F comm,tid,event,trace,ip,sym", "script -G",
      "report --stdio -q -s comm,dso,sym --no-children",
      "report --stdio -q -s comm,dso,sym --no-children -g caller",
      "report --stdio -q -s comm,dso,sym --no-children -g folded"]])
CORPUS = {"lbr": "vector_static_gcc_perf.lbr.data", "vector_dwarf": "vector_static_gcc_perf.data",
          "vector_zstd": "vector_static_gcc_perf.data.zstd",
          "parallel": "parallel_static_gcc_perf.data.zstd"}
WORK = "for i in 1 2 3 4 5; do sleep 0.01; done"
VDSO_PROG = """#include <time.h>
volatile long sink;
__attribute__((noinline)) void tick(void)
{
	struct timespec ts;
	for (int i = 0; i < 200000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += ts.tv_nsec;
	}
}
int main(void)
{
	for (int i = 0; i < 10; i++)
		tick();
	return 0;
}
"""


def unxz(src, dst):
    with lzma.open(src) as f, open(dst, "wb") as o:
        shutil.copyfileobj(f, o)


def corpus(srcdir, tmp):
    """The corpus files decompressed, and the --symfs folder of the LBR one."""
    files = {}
    for key, name in CORPUS.items():
        files[key] = os.path.join(tmp, name)
        unxz(os.path.join(srcdir, REAL, name + ".xz"), files[key])
    symfs = os.path.join(tmp, "symfs")
    os.makedirs(os.path.dirname(symfs + LBR_BIN), exist_ok=True)
    unxz(os.path.join(srcdir, REAL, "vector_static_gcc_vector_static_gcc_v9.1.0.xz"),
         symfs + LBR_BIN)
    fibo = os.path.join(tmp, "fibo.expanded.pipe.data")
    if expand_compressed2(os.path.join(srcdir, "tests", "data", "perfdata-real", "linux-perf-data",
                                       "fibo.compressed2.pipe.data.xz"), fibo):
        files["fibo"] = fibo
    else:
        print("note: fibo checks skipped: no zstd tool")
    empty = os.path.join(tmp, "empty.kallsyms")
    open(empty, "w").close()
    return files, {"symfs": symfs, "nokallsyms": empty}


def expand_compressed2(src, dst):
    """A pipe file's COMPRESSED2 payloads (one zstd stream) expanded in place
    of the first, the FINISHED_ROUND records between them dropped (perf 6.1
    reads no COMPRESSED2); False without the zstd tool."""
    if not shutil.which("zstd"):
        return False
    with lzma.open(src) as f:
        d = f.read()
    head, tail, z, p = bytearray(d[:16]), bytearray(), bytearray(), 16
    while p + 8 <= len(d):
        typ, _, size = struct.unpack_from("<IHH", d, p)
        if typ == 83:  # PERF_RECORD_COMPRESSED2: header, u64 data size, data
            n, = struct.unpack_from("<Q", d, p + 8)
            z += d[p + 16:p + 16 + n]
        elif not z:
            head += d[p:p + size]
        elif typ != 68:  # FINISHED_ROUND
            tail += d[p:p + size]
        p += size
    out = subprocess.run(["zstd", "-dc"], input=bytes(z), capture_output=True).stdout
    with open(dst, "wb") as o:
        o.write(head + out + tail)
    return True


def record_vdso(tmp, files):
    """The vdso program built and recorded by perf; the reason when it cannot be."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return "no C compiler"
    with open(os.path.join(tmp, "vdso.c"), "w") as f:
        f.write(VDSO_PROG)
    rc, _, err = run("%s -O1 -g -o vdso vdso.c" % cc, tmp)
    if rc:
        return "cannot build: " + err.strip()[-200:]
    rc, _, err = run("perf record -q -e cpu-clock --call-graph dwarf -o vdso.data ./vdso", tmp)
    if rc:
        return "perf cannot record: " + err.strip()[-200:]
    files["vdso"] = os.path.join(tmp, "vdso.data")
    return None


def record_traces(pmukit, tmp, files):
    """A tracepoint recording with chains by each tool; the reason when perf cannot."""
    for key, tool in (("trace_perf", "perf"), ("trace_pk", pmukit)):
        out = os.path.join(tmp, key + ".data")
        rc, _, err = run("%s record -q -g -e sched:sched_switch -o %s -- sh -c '%s'" %
                         (tool, out, WORK), tmp)
        if rc:
            return "%s cannot record sched:sched_switch: %s" % (tool, err.strip()[-200:])
        files[key] = out
    return None


def record_pipe(tmp, files):
    """perf record -g in pipe mode; the reason when perf cannot."""
    rc, _, err = run("perf record -q -g -e cpu-clock -o - -- sh -c "
                     "'for i in $(seq 1 100000); do :; done' > pipe.data", tmp)
    if rc:
        return "perf cannot record: " + err.strip()[-200:]
    files["pipe"] = os.path.join(tmp, "pipe.data")
    return None


def compare(pmukit, tmp, path, opts, show):
    cmd, rest = opts.split(" ", 1) if " " in opts else (opts, "")
    args = "%s -f -i %s %s" % (cmd, path, rest)
    rp, op, _ = run("perf " + args, tmp)
    rk, ok, ek = run(pmukit + " " + args, tmp)
    if cmd == "report":
        op = drop_tip(op)
    if rp == rk and op == ok:
        return True
    line, a, b = first_difference(op, ok) or (0, "", "")
    print("DIFF %s %s: exit %d/%d, line %d\n  perf:   %s\n  pmukit: %s" %
          (os.path.basename(path), opts, rp, rk, line, a, b))
    if show:
        print(ek[-2000:])
    return False


def main():
    got = test_args(__doc__, lambda _cc: no_perf61(), "pd_chain_diff.")
    if isinstance(got, int):
        return got
    show, keep, srcdir, pmukit, _cc, tmp = got
    try:
        files, fill = corpus(srcdir, tmp)
        why = record_traces(pmukit, tmp, files)
        if why:
            print("note: tracepoint checks skipped: " + why)
        why = record_vdso(tmp, files)
        if why:
            print("note: vdso checks skipped: " + why)
        why = record_pipe(tmp, files)
        if why:
            print("note: pipe checks skipped: " + why)
        checks = [(k, o.format(**fill)) for k, o in CHECKS if k in files]
        same = sum(compare(pmukit, tmp, files[k], o, show) for k, o in checks)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d/%d identical" % (same, len(checks)))
    return 0 if same == len(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
