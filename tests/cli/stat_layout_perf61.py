#!/usr/bin/env python3
"""stat --per-core, --per-die, --per-socket, --per-node and -d, -dd, -ddd
against Linux perf 6.1 (issue 22): both run system-wide (-a) in a mount namespace
(perf-ns.sh) on the Skylake fixture's PMU tree, with counts served from
read() by tests/oracle/peo_stub.c, on this machine's CPUs and on topologies
made by showing other ids in devices/system/cpu/cpu1/topology (one core of
two threads, two sockets, two dies). Software events and -M metrics, in
text (LC_ALL=C: no thousands separators in perf), -x, and -j, with -I and
--metric-only, print the same lines; the wall-clock values (CPUs utilized,
times) are masked. -d, -dd, -ddd add perf's detailed HW_CACHE events:
compared on the fixture with served counts (their miss ratios) and on this
machine, where without a PMU both print <not supported> for them.

  stat_layout_perf61.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1, a mount namespace or two CPUs."""
import os
import re
import subprocess
import sys

import metrics_perf61
import oracle61

TOPO = "/sys/devices/system/cpu/cpu1/topology/"
TOPOLOGIES = {"host": [], "smt": [TOPO + "core_id=0"],
              "sockets": [TOPO + "physical_package_id=1"], "dies": [TOPO + "die_id=1"]}
MODES = ["--per-core", "--per-die", "--per-socket", "--per-node"]
SW = "task-clock,page-faults,context-switches"
L1 = "tma_retiring,tma_frontend_bound,tma_bad_speculation,tma_backend_bound"
CASES = [["-x,", "-e", SW], ["-j", "-e", SW], ["--no-big-num", "-e", SW],
         ["-x,", "-I", "100", "-e", SW], ["--no-big-num", "-I", "100", "-e", SW],
         ["-x,", "--metric-only", "-M", L1], ["--metric-only", "-M", L1],
         ["-x,", "--metric-only", "-I", "100", "-M", L1]]
# compared by their metric lines (bucket, value, metric): pmukit opens more
# events and orders a group's events otherwise (docs/metrics.md)
METRIC_CASES = [["-x,", "-M", L1], ["-x,", "-M", L1, "--metric-no-merge"]]
# Skylake's Level 1 events and the software events, served to both
COUNTS = """times enabled=1000000 running=1000000
type=1 config=1 value=2000000
type=1 config=2 value=12345
type=1 config=3 value=777
type=4 config=0x3c value=36798
type=4 config=0x10d value=64832
type=4 config=0x19c value=19800
type=4 config=0x10e value=38986
type=4 config=0x2c2 value=21963
type=3 config=0 value=90000
type=3 config=0x10000 value=4000
type=3 config=2 value=7000
type=3 config=0x10002 value=1500
type=3 config=1 value=80000
type=3 config=0x10001 value=900
type=3 config=3 value=60000
type=3 config=0x10003 value=300
type=3 config=4 value=5000
type=3 config=0x10004 value=100
type=3 config=0x20000 value=3333
type=3 config=0x30000 value=222
"""
DETAILED = [["-x,", "-d"], ["-x,", "-dd"], ["-x,", "-ddd"], ["--no-big-num", "-ddd"],
            ["-x,", "-dd", "-e", SW], ["-x,", "-d", "--per-core"]]
# on this machine: the lines of the detailed events (pmukit leaves the
# default hardware events out on a machine without a PMU, docs/metrics.md)
HOST_EVENTS = ("L1-", "LLC-", "dTLB-", "iTLB-")


def run(src, tool, overlays, opts, counts, stub):
    env = oracle61.stub_env(PERF_CPUID="GenuineIntel-6-5E-3", PK_PEO_COUNTS=counts, LC_ALL="C")
    cmd = ["timeout", "60", "sh", os.path.join(src, "tests/oracle/perf-ns.sh"), "-p", stub]
    for o in overlays:
        cmd += ["-f", o]
    cmd += [os.path.join(src, "tests/data/sysfs/skylake/bus/event_source/devices"),
            tool, "stat", "-a", *opts, "sleep", "0.15" if "-I" in opts else "0.01"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp")
    return p.stdout + p.stderr


def masked(out, opts):
    """Times and CPUs utilized masked; with -I the first interval only (the
    stub serves the same totals at every read)."""
    text = "\n".join(metrics_perf61.masked(out, opts))
    text = re.sub(r"[0-9.]+([, ])CPUs utilized", r"X\1CPUs utilized", text)
    return re.sub(r'"metric-value" : [0-9.]+, "metric-unit" : "CPUs utilized"',
                  '"metric-value" : X, "metric-unit" : "CPUs utilized"', text)


def metric_lines(out):
    return [(f[0], f[1], f[-2], f[-1]) for f in (l.split(",") for l in out.splitlines())
            if len(f) > 4 and "tma_" in f[-1]]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.cpu_count() < 2 or not os.path.exists(TOPO + "die_id"):
        print("needs two CPUs with a published topology: skipped")
        return 77
    tmp, stub = oracle61.prepare(src, "pk-layout61-")
    if not tmp:
        return 77
    counts = os.path.join(tmp, "counts")
    with open(counts, "w") as f:
        f.write(COUNTS)
    bad = n = 0
    for topo, overlays in TOPOLOGIES.items():
        for mode in MODES:
            if mode == "--per-node" and topo != "host":
                continue  # a node's CPUs are a directory of their own
            for case in CASES + METRIC_CASES:
                opts = [mode, *case]
                get = metric_lines if case in METRIC_CASES else lambda o: masked(o, opts)
                out = [get(run(src, t, overlays, opts, counts, stub)) for t in ("perf", pk)]
                n += 1
                if out[0] != out[1] or not out[0]:
                    bad += 1
                    print(f"{topo} {' '.join(opts)}: differs\nperf:\n{out[0]}\npmukit:\n{out[1]}")
    for opts in DETAILED:
        out = [masked(run(src, t, [], opts, counts, stub), opts) for t in ("perf", pk)]
        host = [[l for l in masked(subprocess.run([t, "stat", *opts, "-a", "sleep", "0.01"],
                                                  capture_output=True, text=True).stderr,
                                   opts).splitlines() if any(e in l for e in HOST_EVENTS)]
                for t in ("perf", pk)]
        n += 2
        for where, a, b in (("fixture", out[0], out[1]), ("host", host[0], host[1])):
            if a != b or not a:
                bad += 1
                print(f"{where} {' '.join(opts)}: differs\nperf:\n{a}\npmukit:\n{b}")
    print(f"{n} runs compared, {bad} differ")
    subprocess.run(["rm", "-rf", tmp])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
