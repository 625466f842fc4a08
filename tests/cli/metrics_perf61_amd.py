#!/usr/bin/env python3
"""stat -M against Linux perf 6.1 on AMD (issue 22): perf 6.1 has the
amdzen2 and amdzen3 metric tables (its mapfile gives every family 19h
model, Zen 4 too, amdzen3's), pmukit the kernel 6.12 files
(tests/data/perfmon-perf). On the Zen 4 fixture PMU tree (perf-ns.sh) with
PERF_CPUID of a Zen 2, a Zen 3 and a Zen 4, and counts served from read()
by tests/oracle/peo_stub.c (metrics_perf61.compare: a value per config
either tool opened), `perf stat -x, -M LIST -a` and `pmukit stat -x, -M
LIST -a` print the same value for every core metric both define the same
way; docs/metrics.md lists the others and why (uncore metrics, perf 6.1's
older formulas).

  metrics_perf61_amd.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1 or a mount namespace."""
import os
import sys

import metrics_perf61
import oracle61

COMMON = ("branch_misprediction_ratio all_l2_cache_accesses all_l2_cache_hits "
          "all_l2_cache_misses l2_cache_accesses_from_l2_hwpf l2_cache_misses_from_l2_hwpf "
          "l1_itlb_misses ic_fetch_miss_ratio op_cache_fetch_miss_ratio").split()
CASES = [("AuthenticAMD-23-31-0", [m for m in COMMON if m != "op_cache_fetch_miss_ratio"]),
         ("AuthenticAMD-25-01-1", COMMON + ["macro_ops_dispatched"]),
         # Zen 4: perf 6.1 applies amdzen3's files; these three read the same
         # events (macro_ops_dispatched, l1_itlb_misses do not: docs/metrics.md)
         ("AuthenticAMD-25-11-1", ["branch_misprediction_ratio", "all_l2_cache_misses",
                                   "l2_cache_misses_from_l2_hwpf"])]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp, stub = oracle61.prepare(src, "pk-metrics61-amd-")
    if not tmp:
        return 77
    with open(os.path.join(tmp, "zero"), "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
    bad = 0
    for cpuid, metrics in CASES:
        metrics_perf61.CPUS["zen4"] = cpuid  # the fixture tree, this CPU's tables
        a, b, out = metrics_perf61.compare(src, pk, "zen4", metrics, tmp, stub)
        for m in metrics:
            ok = m in a and a[m] == b.get(m)
            bad += not ok
            print(f"{'ok' if ok else 'FAIL'}: {cpuid} {m}: perf {a.get(m)} pmukit {b.get(m)}")
        if any(m not in a or a[m] != b.get(m) for m in metrics):
            print(f"perf:\n{out[0][1]}\npmukit:\n{out[1][1]}")
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
