#!/usr/bin/env python3
"""stat -M against Linux perf 6.1 on the Intel platforms whose tables come
from the kernel 6.12's perf JSON (issue 22): perf 6.1 has its own, older
tables for Haswell, Skylake-X, Cascade Lake, Ice Lake-X, Tiger Lake and
Rocket Lake. On the Skylake and Ice Lake fixture PMU trees (perf-ns.sh)
with PERF_CPUID of each, and counts served from read() by
tests/oracle/peo_stub.c (metrics_perf61.compare: a value per config either
tool opened), `perf stat -x, -M LIST -a` and `pmukit stat -x, -M LIST -a`
print the same value for each metric listed here: the TMA nodes both
define alike (61 on Skylake-X and Cascade Lake, 50 Haswell, 51 Ice
Lake-X, 52 Tiger Lake and Rocket Lake). docs/metrics.md says why the
others differ: perf 6.1's older formulas, #has_pmem, uncore and MSR
events.

  metrics_perf61_intel.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1 or a mount namespace."""
import os
import sys

import metrics_perf61

# Tiger Lake and Rocket Lake: the same nodes
TGL_RKL = (
        "4k_aliasing backend_bound bad_speculation branch_instructions branch_mispredicts "
        "branch_resteers cisc clears_resteers core_bound divider dram_bound dsb_switches "
        "dtlb_load fb_full fetch_bandwidth fetch_latency few_uops_instructions "
        "fp_vector_128b fp_vector_256b fp_vector_512b icache_misses itlb_misses l1_bound "
        "l3_bound lcp light_operations load_stlb_miss lock_latency machine_clears "
        "mem_bandwidth mem_latency memory_bound memory_operations mispredicts_resteers "
        "ms_switches nop_instructions other_light_ops ports_utilization ports_utilized_1 "
        "ports_utilized_2 ports_utilized_3m retiring serializing_operation slow_pause "
        "split_loads sq_full store_bound store_fwd_blk store_latency streaming_stores "
        "unknown_branches x87_use")
# the TMA nodes (tma_ left out) both print alike, per CPU
CASES = [
    ("GenuineIntel-6-55-4", "skylake",
        "4k_aliasing alu_op_utilization bad_speculation branch_mispredicts branch_resteers "
        "cisc clears_resteers divider dram_bound dsb dsb_switches dtlb_load dtlb_store "
        "fb_full fetch_latency fp_vector_128b fp_vector_256b fp_vector_512b frontend_bound "
        "heavy_operations icache_misses itlb_misses l1_bound l3_bound lcp "
        "load_op_utilization load_stlb_miss lock_latency machine_clears mem_bandwidth "
        "mem_latency microcode_sequencer mispredicts_resteers ms_switches "
        "non_fused_branches other_light_ops port_0 port_1 port_2 port_3 port_4 port_5 "
        "port_6 port_7 ports_utilization ports_utilized_1 ports_utilized_2 "
        "ports_utilized_3m retiring serializing_operation split_loads split_stores sq_full "
        "store_bound store_fwd_blk store_latency store_op_utilization store_stlb_hit "
        "store_stlb_miss unknown_branches x87_use"),
    ("GenuineIntel-6-55-7", "skylake",
        "4k_aliasing alu_op_utilization bad_speculation branch_mispredicts branch_resteers "
        "cisc clears_resteers divider dsb dsb_switches dtlb_load dtlb_store fb_full "
        "fetch_latency fp_vector_128b fp_vector_256b fp_vector_512b frontend_bound "
        "heavy_operations icache_misses itlb_misses l1_bound l3_bound lcp "
        "load_op_utilization load_stlb_miss lock_latency machine_clears mem_bandwidth "
        "mem_latency microcode_sequencer mispredicts_resteers ms_switches "
        "non_fused_branches other_light_ops port_0 port_1 port_2 port_3 port_4 port_5 "
        "port_6 port_7 ports_utilization ports_utilized_1 ports_utilized_2 "
        "ports_utilized_3m retiring serializing_operation slow_pause split_loads "
        "split_stores sq_full store_bound store_fwd_blk store_latency store_op_utilization "
        "store_stlb_hit store_stlb_miss unknown_branches x87_use"),
    ("GenuineIntel-6-3C-3", "skylake",
        "4k_aliasing alu_op_utilization bad_speculation branch_mispredicts branch_resteers "
        "cisc contested_accesses data_sharing divider dram_bound dsb dsb_switches dtlb_load "
        "dtlb_store false_sharing fb_full fetch_latency frontend_bound heavy_operations "
        "icache_misses itlb_misses l1_bound l3_bound l3_hit_latency lcp load_op_utilization "
        "lock_latency machine_clears mem_bandwidth mem_latency microcode_sequencer "
        "ms_switches port_0 port_1 port_2 port_3 port_4 port_5 port_6 port_7 "
        "ports_utilized_1 ports_utilized_3m retiring split_loads split_stores sq_full "
        "store_bound store_fwd_blk store_latency store_op_utilization"),
    ("GenuineIntel-6-6A-6", "icelake",
        "4k_aliasing backend_bound bad_speculation branch_instructions branch_mispredicts "
        "branch_resteers cisc clears_resteers core_bound divider dsb_switches dtlb_load "
        "fb_full fetch_bandwidth fetch_latency few_uops_instructions fp_vector_128b "
        "fp_vector_256b fp_vector_512b icache_misses itlb_misses l1_bound l3_bound lcp "
        "light_operations load_stlb_miss lock_latency machine_clears mem_bandwidth "
        "mem_latency memory_bound memory_operations mispredicts_resteers ms_switches "
        "nop_instructions other_light_ops ports_utilization ports_utilized_1 "
        "ports_utilized_2 ports_utilized_3m retiring serializing_operation slow_pause "
        "split_loads sq_full store_bound store_fwd_blk store_latency streaming_stores "
        "unknown_branches x87_use"),
    ("GenuineIntel-6-8C-1", "icelake", TGL_RKL),
    ("GenuineIntel-6-A7-1", "icelake", TGL_RKL),
]
CASES = [(c, m, ["tma_" + n for n in names.split()]) for c, m, names in CASES]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    return metrics_perf61.check_cases(src, pk, CASES, "pk-metrics61-intel-")


if __name__ == "__main__":
    sys.exit(main())
