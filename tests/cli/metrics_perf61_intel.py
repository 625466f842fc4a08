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
events. #has_pmem (none on this machine): Cascade Lake's and Ice Lake-X's
tma_dram_bound is perf 6.1's tma_dram_bound + tma_pmm_bound. A per-second
metric (duration_time, seconds) against each tool's duration_time, and
source_count over four CHA PMUs (Cascade Lake's uncore_frequency), and
Cascade Lake's metrics over the TSC times each tool's seconds.

  metrics_perf61_intel.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1 or a mount namespace."""
import glob
import os
import shutil
import subprocess
import sys

import metrics_perf61
import oracle61

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


def has_pmem(src, pk):
    """#has_pmem on Cascade Lake and Ice Lake-X: perf 6.1's tma_dram_bound
    always subtracts tma_pmm_bound (it has no #has_pmem); 6.12's does so
    only with persistent memory (the ACPI NFIT table). Without it pmukit's
    tma_dram_bound is perf's tma_dram_bound + tma_pmm_bound (both printed
    to 0.1: within 0.1) and its tma_pmm_bound 0. With NFIT: not checked."""
    if os.path.exists("/sys/firmware/acpi/tables/NFIT"):
        print("note: this machine has an NFIT table: #has_pmem 1, not checked")
        return 0
    tmp, stub = oracle61.prepare(src, "pk-metrics61-pmem-")
    if not tmp:
        return 0
    with open(os.path.join(tmp, "zero"), "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
    bad = 0
    for cpuid, machine in (("GenuineIntel-6-55-7", "skylake"), ("GenuineIntel-6-6A-6", "icelake")):
        metrics_perf61.CPUS[machine] = cpuid
        a, b, _ = metrics_perf61.compare(src, pk, machine, ["tma_dram_bound", "tma_pmm_bound"],
                                         tmp, stub)
        num = {k: float(v) for k, v in b.items() if k in ("tma_dram_bound", "tma_pmm_bound")}
        want = float(a["tma_dram_bound"]) + float(a["tma_pmm_bound"])
        ok = abs(num.get("tma_dram_bound", float("nan")) - want) <= 0.1 + 1e-9 and \
            num.get("tma_pmm_bound") == 0 and float(a["tma_pmm_bound"]) > 0
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {cpuid} #has_pmem 0: pmukit tma_dram_bound "
              f"{b.get('tma_dram_bound')} tma_pmm_bound {b.get('tma_pmm_bound')}, perf "
              f"{a['tma_dram_bound']} + {a['tma_pmm_bound']}")
    return bad


def per_second(src, pk):
    """duration_time is seconds in perf's metrics (its ns count scaled by
    1e-9): Cascade Lake's L1D fill bandwidth, 64 * L1D.REPLACEMENT / 1e9 /
    duration_time, over the served L1D.REPLACEMENT (2e9 a CPU) is 64 x
    its count / 1e9 / the run's seconds for both tools (perf 6.1's L1D_Cache_Fill_BW, pmukit's
    tma_info_memory_l1d_cache_fill_bw), each checked against its own
    duration_time line (-e duration_time) within 1%. pmukit printed 0.00
    when it took duration_time as ns."""
    tmp, stub = oracle61.prepare(src, "pk-metrics61-dur-")
    if not tmp:
        return 0
    counts = os.path.join(tmp, "counts")
    with open(counts, "w") as f:
        f.write("times enabled=1000000 running=1000000\n"
                "type=4 config=0x151 config1=0x0 value=2000000000\n")
    metrics_perf61.CPUS["skylake"] = "GenuineIntel-6-55-7"
    bad = 0
    for tool, metric in (("perf", "L1D_Cache_Fill_BW"), (pk, "tma_info_memory_l1d_cache_fill_bw")):
        _, out = metrics_perf61.run(src, "skylake", tool, [metric], counts, os.path.join(tmp, "log"),
                                    stub, opts=("-x,", "-e", "duration_time"))
        dur = [float(l.split(",")[0]) for l in out.splitlines() if ",duration_time," in l]
        n = [float(l.split(",")[0]) for l in out.splitlines() if ",L1D.REPLACEMENT," in l]
        v = metrics_perf61.values(out).get(metric)
        want = 64 * n[0] / 1e9 / (dur[0] / 1e9) if dur and n else float("nan")
        ok = v is not None and abs(float(v) - want) <= want / 100
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {os.path.basename(tool)} {metric} {v}, "
              f"64 x {n} / 1e9 / {dur} ns = {want:.2f}")
        if not ok:
            print(out)
    return bad


def with_chas(src, tmp, n):
    """The Skylake fixture's PMUs plus n CHA PMUs (uncore_cha_0 ..., types
    30 on, the server's event/umask format) and an iMC: a tree to copy."""
    dev = os.path.join(tmp, "devices")
    shutil.copytree(os.path.join(src, "tests/data/sysfs/skylake/bus/event_source/devices"), dev,
                    symlinks=True)
    for i, name in enumerate([f"uncore_cha_{k}" for k in range(n)] + ["uncore_imc_0"]):
        os.makedirs(os.path.join(dev, name, "format"))
        for f, text in (("type", str(30 + i)), ("cpumask", "0"),
                        ("format/event", "config:0-7"), ("format/umask", "config:8-15")):
            with open(os.path.join(dev, name, f), "w") as fd:
                fd.write(text + "\n")
    return dev


def source_count(src, pk):
    """source_count(EV): perf 6.1 sums an uncore event over its PMU's
    instances and counts them. Cascade Lake's uncore_frequency =
    UNC_CHA_CLOCKTICKS / (source_count(UNC_CHA_CLOCKTICKS) * #num_packages)
    / 1e9 / duration_time, on the Skylake tree with four CHAs (1e12 to 4e12
    a CHA) and an iMC: sum / (4 x packages) / 1e9 / seconds for both tools
    (perf prints the sum on one line, pmukit each CHA's: summed here),
    within 1% of each one's duration_time line. pmukit refused the metric
    (an uncore event) before."""
    tmp, stub = oracle61.prepare(src, "pk-metrics61-cha-")
    if not tmp:
        return 0
    dev = with_chas(src, tmp, 4)
    counts = os.path.join(tmp, "counts")
    with open(counts, "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
        for i in range(4):
            f.write(f"type={30 + i} config=0x0 config1=0x0 value={(i + 1) * 10**12}\n")
    pkgs = len({open(p).read() for p in glob.glob(
        "/sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id")}) or 1
    env = oracle61.stub_env(PERF_CPUID="GenuineIntel-6-55-7", PK_PEO_COUNTS=counts)
    bad = 0
    for tool in ("perf", pk):
        p = subprocess.run(["timeout", "60", "sh", os.path.join(src, "tests/oracle/perf-ns.sh"),
                            "-p", stub, dev, tool, "stat", "-x,", "-e", "duration_time", "-M",
                            "uncore_frequency", "-a", "sleep", "0.01"],
                           env=env, capture_output=True, text=True, cwd="/tmp")
        out = p.stdout + p.stderr
        dur = [float(l.split(",")[0]) for l in out.splitlines() if ",duration_time," in l]
        clk = sum(float(l.split(",")[0]) for l in out.splitlines() if ",UNC_CHA_CLOCKTICKS," in l)
        v = metrics_perf61.values(out).get("uncore_frequency")
        want = clk / (4 * pkgs) / 1e9 / (dur[0] / 1e9) if dur else float("nan")
        ok = v is not None and clk == 10**13 and abs(float(v) - want) <= want / 100
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {os.path.basename(tool)} uncore_frequency {v}, "
              f"{clk:g} / (4 x {pkgs}) / 1e9 / {dur} ns = {want:.1f}")
        if not ok:
            print(out)
    return bad


# Cascade Lake metrics over the TSC (msr/tsc/) and the run's seconds:
# Average_Frequency = THREAD / REF_TSC * TSC / 1e9 / duration_time
TIMED = ["tma_contested_accesses", "tma_data_sharing", "tma_false_sharing", "tma_l3_hit_latency",
         "tma_remote_cache"]


def timed(src, pk):
    """Metrics that scale by the run's seconds (the TSC-based frequency)
    print other values for two runs of other lengths: each value times its
    tool's duration_time (-e duration_time) is the same for perf 6.1 and
    pmukit, within 1%, on Cascade Lake (the same formulas in both tables).
    pmukit refused them before (TSC: not a core PMU event)."""
    tmp, stub = oracle61.prepare(src, "pk-metrics61-tsc-")
    if not tmp:
        return 0
    zero = os.path.join(tmp, "zero")
    with open(zero, "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
    metrics_perf61.CPUS["skylake"] = "GenuineIntel-6-55-7"
    opts = ("-x,", "-e", "duration_time")
    logs = [os.path.join(tmp, n + ".log") for n in ("perf", "pmukit")]
    for tool, log in zip(("perf", pk), logs):
        metrics_perf61.run(src, "skylake", tool, TIMED, zero, log, stub, opts=opts)
    counts = metrics_perf61.counts_file(tmp, logs, None)
    got = []
    for tool, log in zip(("perf", pk), logs):
        _, out = metrics_perf61.run(src, "skylake", tool, TIMED, counts, log, stub, opts=opts)
        dur = [float(l.split(",")[0]) for l in out.splitlines() if ",duration_time," in l]
        vals = metrics_perf61.values(out)
        got.append({m: float(vals[m]) * dur[0] / 1e9 for m in TIMED if m in vals and dur})
    bad = 0
    for m in TIMED:
        a, b = got[0].get(m), got[1].get(m)
        ok = a is not None and b is not None and abs(a - b) <= abs(a) / 100
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: GenuineIntel-6-55-7 {m} x seconds: perf {a} pmukit {b}")
    return bad


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    r = metrics_perf61.check_cases(src, pk, CASES, "pk-metrics61-intel-")
    if r == 77:
        return r
    bad = has_pmem(src, pk)
    print(f"{bad} failed (#has_pmem)")
    bad += per_second(src, pk)
    bad += source_count(src, pk)
    bad += timed(src, pk)
    return 1 if r or bad else 0


if __name__ == "__main__":
    sys.exit(main())
