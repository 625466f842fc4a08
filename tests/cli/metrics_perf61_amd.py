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

COMMON = ("branch_misprediction_ratio all_l2_cache_accesses all_l2_cache_hits "
          "all_l2_cache_misses l2_cache_accesses_from_l2_hwpf l2_cache_misses_from_l2_hwpf "
          "l1_itlb_misses ic_fetch_miss_ratio op_cache_fetch_miss_ratio").split()
CASES = [("AuthenticAMD-23-31-0", "zen4", [m for m in COMMON if m != "op_cache_fetch_miss_ratio"]),
         ("AuthenticAMD-25-01-1", "zen4", COMMON + ["macro_ops_dispatched"]),
         # Zen 4: perf 6.1 applies amdzen3's files; these three read the same
         # events (macro_ops_dispatched, l1_itlb_misses do not: docs/metrics.md)
         ("AuthenticAMD-25-11-1", "zen4", ["branch_misprediction_ratio", "all_l2_cache_misses",
                                           "l2_cache_misses_from_l2_hwpf"])]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    return metrics_perf61.check_cases(src, pk, CASES, "pk-metrics61-amd-")


if __name__ == "__main__":
    sys.exit(main())
