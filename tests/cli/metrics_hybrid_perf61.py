#!/usr/bin/env python3
"""stat -M on a hybrid part against Linux perf 6.1 (issue 22): on the Alder
Lake fixture tree (cpu_core and cpu_atom; perf-ns.sh shows cpu_core on CPU
0 and cpu_atom on CPU 1, so both tools count each type on one CPU of this
VM), with counts served from read() by tests/oracle/peo_stub.c, `perf stat
-x, -M LIST -a` and `pmukit stat -x, -M LIST -a` print each metric per
core PMU: the metric line's PMU is its event column's "cpu_core/..." or
"cpu_atom/..." (a line of its own: the event line's before it).

- ATOM: the E-core metrics perf 6.1's Alder Lake table and pmukit's
  Gracemont table define the same way print the same value on cpu_atom;
- CORE: the P-core metrics of metrics_perf61.py's Alder Lake list print the
  same value on cpu_core, with the E-core counts served 0 (perf 6.1 adds
  the E-core's counts of a P-core metric's events into it: its bug,
  docs/metrics.md);
- ATOM with -A: the same on CPU1's cpu_atom lines;
- WHERE: each metric of LIST is printed on the same PMUs by both (a metric
  both types have on both, a P-core-only one on cpu_core, an E-core-only
  one on cpu_atom);
- a name neither table has: perf's message.

  metrics_hybrid_perf61.py SRCDIR PMUKIT [--discover]
Exit 77 (skipped) without perf 6.1 or a mount namespace; --discover prints
the E-core metrics that agree (to refresh ATOM)."""
import os
import re
import subprocess
import sys

import metrics_perf61 as m61
import oracle61

DEVS = "/sys/bus/event_source/devices"
NS = ("-f", f"{DEVS}/cpu_core/cpus=0", "-f", f"{DEVS}/cpu_atom/cpus=1")
# the 17 of the 21 E-core metrics both have (--discover; the other 4 and why:
# docs/metrics.md)
ATOM = ("tma_backend_bound tma_branch_detect tma_branch_mispredicts tma_branch_resteer tma_cisc "
        "tma_decode tma_fast_nuke tma_frontend_bound tma_mem_scheduler tma_non_mem_scheduler "
        "tma_nuke tma_other_fb tma_predecode tma_register tma_reorder_buffer tma_retiring "
        "tma_serialization").split()
CORE = m61.SAME["alderlake"].split()
# one of each kind: in both tables, the P-core's only, the E-core's only
WHERE = {"tma_retiring": {"cpu_core", "cpu_atom"}, "tma_memory_bound": {"cpu_core"},
         "tma_heavy_operations": {"cpu_core"}, "tma_nuke": {"cpu_atom"},
         "tma_branch_mispredicts": {"cpu_core", "cpu_atom"}}


def printed(out):
    """(PMU, metric) -> value as printed ('' when none); with -A's CPU
    column first, the PMU is "CPUn cpu_atom"."""
    got, pmu = {}, None
    for line in out.splitlines():
        f = line.split(",")
        cpu = f.pop(0) + " " if f and re.fullmatch(r"CPU\d+", f[0]) else ""
        if len(f) < 6:
            continue
        if f[2]:
            pmu = cpu + f[2].split("/")[0] if "/" in f[2] else None
        if f[-1].strip() and (re.fullmatch(r"-?[0-9.]+", f[-2]) or not f[-2]):
            got.setdefault((pmu, f[-1].split()[-1]), f[-2])
    return got


def both(src, pk, metrics, tmp, stub, skip_type, opts=("-x,",)):
    """perf's and pmukit's printed() on counts for every event either opened
    (but PMU type skip_type's: 0), stat run with opts."""
    logs = [os.path.join(tmp, n + ".log") for n in ("perf", "pmukit")]
    zero = os.path.join(tmp, "zero")
    for tool, log in zip(("perf", pk), logs):
        m61.run(src, "alderlake", tool, metrics, zero, log, stub, ns=NS)
    counts = m61.counts_file(tmp, logs, skip_type)
    out = [m61.run(src, "alderlake", t, metrics, counts, log, stub, opts, ns=NS)
           for t, log in zip(("perf", pk), logs)]
    if out[1][0] != 0:
        raise SystemExit(f"pmukit failed:\n{out[1][1]}")
    return printed(out[0][1]), printed(out[1][1]), out


def same(what, pmu, metrics, a, b, out):
    bad = [m for m in metrics if a.get((pmu, m)) in (None, "") or a.get((pmu, m)) != b.get((pmu, m))]
    for m in bad:
        print(f"{what} {pmu} {m}: perf {a.get((pmu, m))}, pmukit {b.get((pmu, m))}")
    if bad:
        print("perf:\n" + out[0][1] + "\npmukit:\n" + out[1][1])
    print(f"{what}: {len(metrics) - len(bad)} of {len(metrics)} metrics the same on {pmu}")
    return len(bad)


def where(printed_):
    pmus = {}
    for pmu, m in printed_:
        pmus.setdefault(m, set()).add(pmu)
    return pmus


def unknown(src, pk, tmp, stub):
    """A name neither table has: perf's message (perf 6.1 then counts its
    default events; pmukit stops, exit 1: docs/metrics.md)."""
    outs = [m61.run(src, "alderlake", t, ["tma_nonesuch"], os.path.join(tmp, "zero"),
                    os.path.join(tmp, "u.log"), stub, ns=NS) for t in ("perf", pk)]
    want = "Cannot find metric or group `tma_nonesuch'"
    if not all(want in o[1] for o in outs) or outs[1][0] == 0:
        print(f"unknown metric: perf {outs[0]}, pmukit {outs[1]}")
        return 1
    return 0


def discover(src, pk, tmp, stub):
    """The E-core metrics of both (perf 6.1's "Unit: cpu_atom" entries,
    pmukit's Gracemont table: Alder Lake-N's) that print the same value."""
    def listed(tool, cpuid):
        env = oracle61.stub_env(PERF_CPUID=cpuid)
        return subprocess.run([tool, "list", "metric"], env=env, capture_output=True,
                              text=True).stdout
    atom = set(re.findall(r"^  (tma_\S+)\n\s+\[[^\n]*Unit: cpu_atom",
                          listed("perf", m61.CPUS["alderlake"]), re.M))
    ours = set(re.findall(r"^  (tma_\S+)$", listed(pk, "GenuineIntel-6-BE-0"), re.M))
    cand = sorted(atom & ours)
    a, b, _ = both(src, pk, cand, tmp, stub, None)
    print(f"{len(cand)} in both:", " ".join(cand))
    print(" ".join(m for m in cand if a.get(("cpu_atom", m)) not in (None, "")
                   and a.get(("cpu_atom", m)) == b.get(("cpu_atom", m))))


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp, stub = oracle61.prepare(src, "pk-hybrid61-")
    if not tmp:
        return 77
    with open(os.path.join(tmp, "zero"), "w") as f:  # every count 0
        f.write("times enabled=1000000 running=1000000\n")
    if "--discover" in sys.argv[3:]:
        discover(src, pk, tmp, stub)
        return 0
    atom_type = open(os.path.join(src, "tests/data/sysfs/alderlake/bus/event_source/devices",
                                  "cpu_atom/type")).read().strip()
    a, b, out = both(src, pk, ATOM, tmp, stub, None)
    bad = same("ATOM", "cpu_atom", ATOM, a, b, out)
    a, b, out = both(src, pk, ATOM, tmp, stub, None, ("-x,", "-A"))
    bad += same("ATOM -A", "CPU1 cpu_atom", ATOM, a, b, out)
    a, b, out = both(src, pk, CORE, tmp, stub, atom_type)
    bad += same("CORE", "cpu_core", CORE, a, b, out)
    a, b, out = both(src, pk, list(WHERE), tmp, stub, None)
    wa, wb = where(a), where(b)
    for m, pmus in WHERE.items():
        if wa.get(m) != pmus or wb.get(m) != pmus:
            print(f"WHERE {m}: perf on {wa.get(m)}, pmukit on {wb.get(m)}, want {pmus}")
            bad += 1
    print(f"WHERE: {len(WHERE)} metrics, each on the same PMUs")
    bad += unknown(src, pk, tmp, stub)
    subprocess.run(["rm", "-rf", tmp])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
