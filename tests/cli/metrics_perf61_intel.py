#!/usr/bin/env python3
"""stat -M against Linux perf 6.1 on the Intel platforms whose tables come
from the kernel 6.12's perf JSON (issue 22): perf 6.1 has its own, older
tables for Haswell, Skylake-X, Cascade Lake, Ice Lake-X, Tiger Lake and
Rocket Lake. On the Skylake and Ice Lake fixture PMU trees (perf-ns.sh)
with PERF_CPUID of each, and counts served from read() by
tests/oracle/peo_stub.c (metrics_perf61.compare: a value per config either
tool opened), `perf stat -x, -M LIST -a` and `pmukit stat -x, -M LIST -a`
print the same value for each metric listed here: the TMA nodes both
define alike. docs/metrics.md says why the others differ (perf 6.1's
older formulas, #core_wide, uncore and MSR events).

  metrics_perf61_intel.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1 or a mount namespace."""
import os
import sys

import metrics_perf61

ICL_LIKE = ("tma_few_uops_instructions tma_fp_vector_128b tma_fp_vector_256b tma_fp_vector_512b "
            "tma_icache_misses tma_itlb_misses tma_l1_bound tma_memory_bound tma_memory_operations "
            "tma_mispredicts_resteers tma_ms_switches tma_nop_instructions tma_other_light_ops "
            "tma_split_loads tma_sq_full tma_store_bound tma_store_fwd_blk tma_store_latency "
            "tma_streaming_stores tma_unknown_branches tma_x87_use").split()
# Tiger Lake and Rocket Lake: Ice Lake-X's and these
TGL_MORE = ("tma_mem_latency tma_ports_utilization tma_ports_utilized_1 tma_ports_utilized_2 "
            "tma_ports_utilized_3m tma_retiring tma_serializing_operation tma_slow_pause").split()
# with #core_wide (-a): tma_info_core_core_clks is the thread's cycles
SKX_CLX = ("tma_fp_vector_128b tma_fp_vector_256b tma_fp_vector_512b tma_frontend_bound "
           "tma_heavy_operations tma_icache_misses tma_itlb_misses tma_l1_bound "
           "tma_microcode_sequencer tma_mispredicts_resteers tma_ms_switches "
           "tma_non_fused_branches tma_other_light_ops tma_port_0 tma_port_1 "
           "tma_store_stlb_miss tma_unknown_branches tma_x87_use").split()
CASES = [("GenuineIntel-6-55-4", "skylake",
          SKX_CLX + ("tma_retiring tma_serializing_operation tma_split_loads tma_split_stores "
                     "tma_sq_full tma_store_bound tma_store_fwd_blk tma_store_latency "
                     "tma_store_op_utilization tma_store_stlb_hit").split()),
         ("GenuineIntel-6-55-7", "skylake",
          SKX_CLX + ("tma_port_2 tma_port_3 tma_port_4 tma_port_5 tma_port_6 tma_port_7 "
                     "tma_ports_utilization tma_ports_utilized_1 tma_ports_utilized_2 "
                     "tma_ports_utilized_3m").split()),
         ("GenuineIntel-6-3C-3", "skylake",
          ("tma_4k_aliasing tma_alu_op_utilization tma_bad_speculation tma_branch_mispredicts "
           "tma_branch_resteers tma_cisc tma_contested_accesses tma_data_sharing tma_divider "
           "tma_dram_bound tma_dsb tma_dsb_switches tma_dtlb_load tma_dtlb_store "
           "tma_false_sharing tma_fb_full tma_fetch_latency tma_frontend_bound "
           "tma_heavy_operations tma_icache_misses tma_itlb_misses tma_l1_bound tma_l3_bound "
           "tma_l3_hit_latency tma_lcp tma_load_op_utilization tma_lock_latency "
           "tma_machine_clears tma_mem_bandwidth tma_mem_latency tma_microcode_sequencer "
           "tma_ms_switches tma_port_0 tma_port_1 tma_port_2 tma_port_3 tma_port_4 tma_port_5 "
           "tma_port_6 tma_port_7 tma_ports_utilized_1 tma_ports_utilized_3m tma_retiring "
           "tma_split_loads tma_split_stores tma_sq_full tma_store_bound tma_store_fwd_blk "
           "tma_store_latency tma_store_op_utilization").split()),
         ("GenuineIntel-6-6A-6", "icelake", ICL_LIKE),
         ("GenuineIntel-6-8C-1", "icelake", ICL_LIKE + TGL_MORE),
         ("GenuineIntel-6-A7-1", "icelake", ICL_LIKE + TGL_MORE)]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    return metrics_perf61.check_cases(src, pk, CASES, "pk-metrics61-intel-")


if __name__ == "__main__":
    sys.exit(main())
