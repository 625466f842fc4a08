#!/usr/bin/env python3
"""stat -M end to end on the PMU model (issue 22) for the tables generated
from the kernel's perf JSON files: `pmukit stat -x, -M GROUPS --model
examples/model/SCENARIO` prints, for each TopDown-like metric, the share
the scenario sets (averaged over its phases by time), within 0.5 pp.

The wanted values come from the scenario files, not from pmukit: Zen 4's (and Zen 5's)
PipelineL1/L2 (retiring, bad_speculation, frontend_bound, backend_bound;
backend_bound_memory = memory_bound, backend_bound_cpu = backend_bound -
memory_bound, bad_speculation_mispredicts = branch_mispredicts,
retiring_microcode = heavy_operations), Neoverse N2 (r0p0: perf's
erratum form) and V2 TopdownL1 in percent of slots (#slots from the
fixture's caps/slots), Neoverse N1's cycle accounting (stall cycles are
the frontend and backend shares of the cycles, docs/model.md), and on the
hybrid Alder Lake TopdownL1 of each core type: the P-core's metrics
(cpu_core) give its phases' shares, the E-core's (cpu_atom, the Gracemont
table) its phases' (weighted by time: the scenario's E-core phases run at
one clock, so by cycles too); Lunar Lake's P-core (cpu_core) likewise.

Neoverse N2's erratum by revision: the N2 scenario rewritten to r0p3 (MIDR
0x410fd493, where the erratum is fixed) and r1p0 gives the same TopdownL1
shares by -M and by --topdown, while its raw STALL_SLOT (r3f) per
CPU_CYCLES (r11) is the scenario's 5 * (frontend + backend) share, one
more per cycle at r0p0 (Arm's erratum: one slot too many per cycle).

Ice Lake-X's tma_dram_bound on the model (no persistent memory:
#has_pmem 0) equals the file's formula over the printed counts.

  metrics_model.py SRCDIR PMUKIT"""
import json
import os
import re
import subprocess
import sys
import tempfile


def shares(src, scenario, core_type=None):
    """Node -> the scenario's share in percent, weighted by phase time (of
    the phases on core_type's cores only when given)."""
    with open(os.path.join(src, "examples/model", scenario)) as f:
        phases = [p for t in json.load(f)["threads"] for p in t["phases"]
                  if core_type in (None, p.get("core_type"))]
    total = sum(p["ms"] for p in phases)
    nodes = {k for p in phases for k in p["tma"]}
    return {k: 100 * sum(p["ms"] * p["tma"].get(k, 0) for p in phases) / total for k in nodes}


def zen4(s):
    return {"retiring": s["retiring"], "bad_speculation": s["bad_speculation"],
            "frontend_bound": s["frontend_bound"], "backend_bound": s["backend_bound"],
            "backend_bound_memory": s["memory_bound"],
            "backend_bound_cpu": s["backend_bound"] - s["memory_bound"],
            "bad_speculation_mispredicts": s["branch_mispredicts"],
            "retiring_microcode": s["heavy_operations"],
            "retiring_fastpath": s["retiring"] - s["heavy_operations"], "smt_contention": 0}


def zen5(s):
    """Zen 5's names; its second phase gives no Level 2 node but memory_bound
    (the model's split of the others is its own rule: not compared)."""
    return dict(level1(s), backend_bound_by_memory=s["memory_bound"],
                backend_bound_by_cpu=s["backend_bound"] - s["memory_bound"], smt_contention=0)


def level1(s):
    return {k: s[k] for k in ("retiring", "bad_speculation", "frontend_bound", "backend_bound")}


def cycles(s):
    return {"frontend_stalled_cycles": s["frontend_bound"],
            "backend_stalled_cycles": s["backend_bound"]}


def tma(s):
    """Intel's Level 1 names (percent metrics)."""
    return {"tma_" + k: v for k, v in level1(s).items()}


# (scenario, -M, wanted from shares, the PMU printing them and its core_type)
CASES = [("zen4.json", "PipelineL1,PipelineL2", zen4, None, None),
         ("zen5.json", "PipelineL1,PipelineL2", zen5, None, None),
         ("neoverse-n2.json", "TopdownL1", level1, None, None),
         ("neoverse-v2.json", "TopdownL1", level1, None, None),
         ("neoverse-n1.json", "Cycle_Accounting", cycles, None, None),
         ("alderlake-hybrid.json", "TopdownL1", tma, "cpu_core", "core"),
         ("alderlake-hybrid.json", "TopdownL1", tma, "cpu_atom", "atom"),
         # Lunar Lake's Lion Cove (intel/perfmon's lnl-metrics.json); its
         # Skymont TopdownL1 needs the fixed counters' pseudo codes 0x0600
         # and 0x0700, which the model does not take (docs/metrics.md)
         ("lunarlake-hybrid.json", "TopdownL1", tma, "cpu_core", "core")]


def printed(out):
    """(PMU, metric) -> value of each metric line: the PMU is the event
    column's "PMU/EVENT/" prefix (None without), a line of its own
    (",,,,VALUE,UNIT  NAME") the event line's before it."""
    got, pmu = {}, None
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 6 and f[2]:
            pmu = f[2].split("/")[0] if "/" in f[2] else None
        # "COUNT,,EVENT,RUN,PCT,VALUE,UNIT  NAME" or ",,,,VALUE,UNIT  NAME"
        if len(f) >= 6 and f[-1].strip() and re.fullmatch(r"-?[0-9.]+", f[-2]):
            got.setdefault((pmu, f[-1].split()[-1]), float(f[-2]))
    return got


def run(pk, args):
    """pmukit's -x, lines (stdout and stderr) and its exit code."""
    p = subprocess.run([pk, "stat", "-x,"] + args, capture_output=True, text=True, timeout=120)
    return [line.split(",") for line in p.stdout.splitlines() + p.stderr.splitlines()], p


def check(label, got, want_of_shares, p):
    bad = 0
    for name, want in want_of_shares.items():
        ok = name in got and abs(got[name] - want) <= 0.5
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {label} {name} {got.get(name)} want {want:.2f}")
    if p.returncode != 0:
        bad += 1
        print(f"FAIL: {label}: exit {p.returncode}: {p.stderr.strip()}")
    return bad


def metric_values(pk, groups, path):
    lines, p = run(pk, ["-M", groups, "--model", path])
    # "COUNT,,EVENT,RUN,PCT,VALUE,UNIT  NAME" or ",,,,VALUE,UNIT  NAME"
    return {f[-1].split()[-1]: float(f[-2]) for f in lines
            if len(f) >= 6 and f[-1].strip() and re.fullmatch(r"-?[0-9.]+", f[-2])}, p


def n2_revisions(src, pk):
    """The erratum by MIDR: shares at every revision, raw STALL_SLOT per cycle."""
    bad = 0
    base = os.path.join(src, "examples/model/neoverse-n2.json")
    with open(base) as f:
        sc = json.load(f)
    s = shares(src, "neoverse-n2.json")
    with tempfile.TemporaryDirectory() as tmp:
        for midr, extra in (("0x00000000410fd490", 1), ("0x00000000410fd493", 0),
                            ("0x00000000411fd490", 0)):
            path = os.path.join(tmp, f"n2-{midr[-4:]}.json")
            with open(path, "w") as f:
                json.dump(dict(sc, cpuid=midr), f)
            got, p = metric_values(pk, "TopdownL1", path)
            bad += check(f"n2 {midr} -M", got, level1(s), p)
            lines, p = run(pk, ["--topdown", "--model", path])
            td = {f[2]: float(f[0]) for f in lines if len(f) >= 3 and f[2].startswith("tma_")}
            bad += check(f"n2 {midr} --topdown", td,
                         {"tma_" + k: v for k, v in level1(s).items()}, p)
            lines, p = run(pk, ["-e", "r3f,r11", "--model", path])
            c = {f[2]: float(f[0]) for f in lines if len(f) >= 3 and f[2] in ("r3f", "r11")}
            want = 5 * (s["frontend_bound"] + s["backend_bound"]) / 100 + extra
            got = c["r3f"] / c["r11"] if c.get("r11") else None
            ok = got is not None and abs(got - want) < 1e-6
            bad += not ok
            print(f"{'ok' if ok else 'FAIL'}: n2 {midr} STALL_SLOT per cycle {got} want {want}")
    return bad


def has_pmem(src, pk):
    """#has_pmem (the model has no NFIT: 0): Ice Lake-X's tma_dram_bound
    takes its no-persistent-memory branch, computed here from the printed
    counts by the file's formula: 100 * (STALLS_L3_MISS + (STALLS_L1D_MISS -
    STALLS_L2_MISS) * (1 - l2)) / clks, l2 = L2_HIT * f / (L2_HIT * f +
    L1D_PEND_MISS.FB_FULL:c1), f = 1 + FB_HIT / L1_MISS (tma_l2_bound's
    share of the L1D-miss stalls)."""
    with open(os.path.join(src, "examples/model/icelake.json")) as f:
        sc = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "icx.json")
        with open(path, "w") as f:
            json.dump(dict(sc, cpuid="GenuineIntel-6-6A-6"), f)
        lines, p = run(pk, ["-M", "tma_dram_bound", "--model", path])
    c = {f[2]: float(f[0]) for f in lines if len(f) >= 3 and re.fullmatch(r"[0-9]+", f[0])}
    got = {f[-1].split()[-1]: float(f[-2]) for f in lines
           if len(f) >= 6 and f[-1].strip() and re.fullmatch(r"-?[0-9.]+", f[-2])}
    fr = 1 + c["MEM_LOAD_RETIRED.FB_HIT"] / c["MEM_LOAD_RETIRED.L1_MISS"]
    l2 = c["MEM_LOAD_RETIRED.L2_HIT"] * fr / (c["MEM_LOAD_RETIRED.L2_HIT"] * fr +
                                              c["L1D_PEND_MISS.FB_FULL_PERIODS"])
    l1d = c["CYCLE_ACTIVITY.STALLS_L1D_MISS"] - c["CYCLE_ACTIVITY.STALLS_L2_MISS"]
    want = 100 * (c["CYCLE_ACTIVITY.STALLS_L3_MISS"] + l1d * (1 - l2)) / c["CPU_CLK_UNHALTED.THREAD"]
    return check("icx #has_pmem 0", got, {"tma_dram_bound": want}, p)


def main():
    src, pk = sys.argv[1], sys.argv[2]
    bad = 0
    for scenario, groups, want_of, pmu, core_type in CASES:
        _, p = run(pk, ["-M", groups, "--model", os.path.join(src, "examples/model", scenario)])
        got = {name: v for (on, name), v in printed(p.stdout + "\n" + p.stderr).items()
               if on == pmu}
        bad += check(f"{scenario} {pmu or ''}".strip(), got,
                     want_of(shares(src, scenario, core_type)), p)
    bad += n2_revisions(src, pk)
    bad += has_pmem(src, pk)
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
