#!/usr/bin/env python3
"""stat -M against Linux perf 6.1 (issue 22): on the Skylake, Ice Lake,
Sapphire Rapids and Alder Lake fixture PMU trees (perf-ns.sh), with counts
served from read() by tests/oracle/peo_stub.c, `perf stat -x, -M LIST -a`
and `pmukit stat -x, -M LIST -a` print the same value for every metric of
LIST. LIST per CPU is the metrics both define the same way (perf 6.1's
tables are TMA 4.x, ours 5.x: docs/metrics.md lists the others and why);
`--metric-only -x,` gives each the same column and value. On Skylake's
Level 1 the layouts of --metric-only (text, -x, -A, -I), and the metric
lines with --metric-no-merge, --metric-no-group and -A, are compared
line for line.
The counts: every (type, config) either tool opened gets a value derived
from its config, the same for both.

  metrics_perf61.py SRCDIR PMUKIT [--discover]
Exit 77 (skipped) without perf 6.1 or a mount namespace; --discover prints
which common tma_* metrics agree (to refresh the lists)."""
import hashlib
import os
import re
import subprocess
import sys

import oracle61

CPUS = {"skylake": "GenuineIntel-6-5E-3", "icelake": "GenuineIntel-6-7E-5",
        "sapphirerapids": "GenuineIntel-6-8F-4", "alderlake": "GenuineIntel-6-97-2"}
SAME = {
    "skylake": "tma_4k_aliasing tma_alu_op_utilization tma_bad_speculation tma_branch_mispredicts tma_branch_resteers tma_cisc tma_clears_resteers tma_divider tma_dram_bound tma_dsb tma_dsb_switches tma_dtlb_load tma_dtlb_store tma_fb_full tma_fetch_latency tma_fp_vector_128b tma_fp_vector_256b tma_frontend_bound tma_heavy_operations tma_icache_misses tma_itlb_misses tma_l1_bound tma_l3_bound tma_lcp tma_load_op_utilization tma_load_stlb_miss tma_lock_latency tma_machine_clears tma_mem_bandwidth tma_mem_latency tma_microcode_sequencer tma_mispredicts_resteers tma_ms_switches tma_non_fused_branches tma_other_light_ops tma_port_0 tma_port_1 tma_port_2 tma_port_3 tma_port_4 tma_port_5 tma_port_6 tma_port_7 tma_ports_utilization tma_ports_utilized_1 tma_ports_utilized_2 tma_ports_utilized_3m tma_retiring tma_serializing_operation tma_split_loads tma_split_stores tma_sq_full tma_store_bound tma_store_fwd_blk tma_store_latency tma_store_op_utilization tma_store_stlb_hit tma_store_stlb_miss tma_unknown_branches tma_x87_use",
    "icelake": "tma_4k_aliasing tma_backend_bound tma_bad_speculation tma_branch_instructions tma_branch_mispredicts tma_branch_resteers tma_cisc tma_clears_resteers tma_core_bound tma_divider tma_dram_bound tma_dsb_switches tma_dtlb_load tma_fb_full tma_fetch_bandwidth tma_fetch_latency tma_few_uops_instructions tma_fp_vector_128b tma_fp_vector_256b tma_fp_vector_512b tma_icache_misses tma_itlb_misses tma_l1_bound tma_l3_bound tma_lcp tma_light_operations tma_load_stlb_miss tma_lock_latency tma_machine_clears tma_mem_bandwidth tma_mem_latency tma_memory_bound tma_memory_operations tma_mispredicts_resteers tma_ms_switches tma_nop_instructions tma_other_light_ops tma_ports_utilization tma_ports_utilized_1 tma_ports_utilized_2 tma_ports_utilized_3m tma_retiring tma_serializing_operation tma_slow_pause tma_split_loads tma_sq_full tma_store_bound tma_store_fwd_blk tma_store_latency tma_streaming_stores tma_unknown_branches tma_x87_use",
    "sapphirerapids": "tma_avx_assists tma_backend_bound tma_bad_speculation tma_branch_mispredicts tma_branch_resteers tma_cisc tma_clears_resteers tma_core_bound tma_divider tma_dsb_switches tma_dtlb_load tma_fb_full tma_fetch_bandwidth tma_fetch_latency tma_fp_assists tma_fp_vector_128b tma_fp_vector_256b tma_fp_vector_512b tma_fused_instructions tma_heavy_operations tma_icache_misses tma_int_vector_128b tma_int_vector_256b tma_itlb_misses tma_l1_bound tma_l2_bound tma_lcp tma_light_operations tma_load_stlb_miss tma_machine_clears tma_mba_stalls tma_mem_bandwidth tma_mem_latency tma_memory_bound tma_memory_fence tma_memory_operations tma_microcode_sequencer tma_mispredicts_resteers tma_mixing_vectors tma_nop_instructions tma_other_light_ops tma_page_faults tma_ports_utilized_1 tma_ports_utilized_2 tma_ports_utilized_3m tma_retiring tma_slow_pause tma_sq_full tma_store_bound tma_store_fwd_blk tma_store_latency tma_streaming_stores tma_unknown_branches tma_x87_use",
    "alderlake": "tma_backend_bound tma_retiring tma_memory_bound tma_heavy_operations tma_branch_mispredicts",
}


def run(src, machine, tool, metrics, counts, log, stub, opts=("-x,",), cmd=("sleep", "0.01"),
        ns=()):
    """tool stat OPTS -M METRICS -a CMD on machine's tree (ns: more
    perf-ns.sh options, its -f files)."""
    env = oracle61.stub_env(PERF_CPUID=CPUS[machine], PK_PEO_LOG=log, PK_PEO_COUNTS=counts)
    if os.path.exists(log):
        os.unlink(log)
    cmd = ["timeout", "60", "sh", os.path.join(src, "tests/oracle/perf-ns.sh"), "-p", stub, *ns,
           os.path.join(src, "tests/data/sysfs", machine, "bus/event_source/devices"),
           tool, "stat", *opts, "-M", ",".join(metrics), "-a", *cmd]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp")
    return p.returncode, p.stdout + p.stderr


def values(out):
    """metric name -> value as printed (perf 6.1 may put a metric on a line
    of its own: ",,,,VALUE,UNIT  NAME")."""
    v = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 6 and f[-1].strip() and re.fullmatch(r"-?[0-9.]+", f[-2]):
            v[f[-1].split()[-1]] = f[-2]
    return v


def listed(tool, machine):
    env = oracle61.stub_env(PERF_CPUID=CPUS[machine])
    out = subprocess.run([tool, "list", "metric"], env=env, capture_output=True, text=True).stdout
    return {l.strip() for l in out.splitlines() if re.fullmatch(r"  \S+", l)}


def counts_file(tmp, logs, skip_type):
    """Values for every event opened, but those of PMU type skip_type (the
    E-cores: perf 6.1 adds their counts into a P-core metric, a bug of
    its hybrid metrics, docs/metrics.md) read 0."""
    cfgs = set()
    for log in logs:
        if os.path.exists(log):
            cfgs |= set(re.findall(r"open fd=\d+ type=(\d+) config=(\S+) config1=(\S+)",
                                   open(log).read()))
    path = os.path.join(tmp, "counts")
    with open(path, "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
        for t, c, c1 in sorted(cfgs):
            if t == skip_type:
                continue
            v = int(hashlib.md5(c.encode()).hexdigest()[:6], 16) % 90000 + 10000
            f.write(f"type={t} config={c} config1={c1} value={v}\n")
    return path


def compare(src, pk, machine, metrics, tmp, stub):
    zero = os.path.join(tmp, "zero")
    logs = [os.path.join(tmp, n + ".log") for n in ("perf", "pmukit")]
    for tool, log in zip(("perf", pk), logs):
        run(src, machine, tool, metrics, zero, log, stub)
    atom = os.path.join(src, "tests/data/sysfs", machine, "bus/event_source/devices/cpu_atom/type")
    counts = counts_file(tmp, logs, open(atom).read().strip() if os.path.exists(atom) else None)
    out = [run(src, machine, tool, metrics, counts, log, stub) for tool, log in zip(("perf", pk), logs)]
    if out[1][0] != 0:
        raise SystemExit(f"{machine}: pmukit failed:\n{out[1][1]}")
    return values(out[0][1]), values(out[1][1]), out


def check_cases(src, pk, cases, prefix):
    """Each (PERF_CPUID, fixture machine, metrics) compared (compare): every
    metric printed with the same value by both, or FAIL and both outputs.
    The exit status: 77 without perf 6.1 or a mount namespace, else 1 when
    any failed."""
    tmp, stub = oracle61.prepare(src, prefix)
    if not tmp:
        return 77
    with open(os.path.join(tmp, "zero"), "w") as f:
        f.write("times enabled=1000000 running=1000000\n")
    bad = 0
    for cpuid, machine, metrics in cases:
        CPUS[machine] = cpuid  # the fixture tree, this CPU's tables
        a, b, out = compare(src, pk, machine, metrics, tmp, stub)
        for m in metrics:
            ok = m in a and a[m] == b.get(m)
            bad += not ok
            print(f"{'ok' if ok else 'FAIL'}: {cpuid} {m}: perf {a.get(m)} pmukit {b.get(m)}")
        if any(m not in a or a[m] != b.get(m) for m in metrics):
            print(f"perf:\n{out[0][1]}\npmukit:\n{out[1][1]}")
    print(f"{bad} failed")
    return 1 if bad else 0


# The layouts compared line for line (times masked) on Skylake's Level 1:
# perf's merge puts tma_frontend_bound in tma_backend_bound's group and
# tma_retiring in tma_bad_speculation's; with -I the first interval only
# (the stub serves the same totals every read: later intervals count
# nothing, a column per event, and pmukit opens more events, below).
L1 = "tma_retiring,tma_frontend_bound,tma_bad_speculation,tma_backend_bound".split(",")
LAYOUTS = [["--metric-only"], ["--metric-only", "-x,"], ["--metric-only", "-A"],
           ["--metric-only", "-x,", "-A"], ["--metric-only", "-I", "100"],
           ["--metric-only", "-x,", "-I", "100"], ["--metric-only", "-A", "-I", "100"]]
# The metric lines (value, unit in order) of the normal output.
SEQUENCES = [["-x,"], ["-x,", "--metric-no-merge"], ["-x,", "--metric-no-group"],
             ["-x,", "-A"], ["-x,", "--metric-no-merge", "-A"], ["-x,", "-I", "100"],
             ["-x,", "-I", "100", "-A"], ["-j"], ["-j", "-A"], ["-j", "-I", "100"]]
# -M lists whose metrics print in perf's order (ties of event count: the
# later name's metrics first, a group's in reverse name order; perf 6.1's
# groups hold other metrics than ours: not compared)
ORDERS = [L1[::-1], ["tma_frontend_bound", "tma_retiring"],
          ["tma_retiring", "tma_frontend_bound"], ["tma_bad_speculation", "tma_backend_bound"]]


def masked(out, opts):
    """The lines with times masked; with -I the header and the first
    interval's lines only."""
    stamp = [re.match(r"\s*(\d+\.\d{9})", l) for l in out.splitlines()]
    first = next((m.group(1) for m in stamp if m), None)
    return [re.sub(r"\d+\.\d{9}", "T", l) for l, m in zip(out.splitlines(), stamp)
            if "-I" not in opts or not m or m.group(1) == first]


def metric_lines(out):
    """(value, metric unit) of each line carrying a metric, in order (with
    -A and -I: the CPU and whether it is the first interval too)."""
    lines, first = [], None
    for l in out.splitlines():
        stamp = re.match(r'\s*(\d+\.\d{9})|{"interval" : (\d+\.\d{9})', l)
        if stamp:
            first = first or stamp.group(stamp.lastindex)
        where = (stamp.group(stamp.lastindex) == first if stamp else None,
                 re.findall(r'^(?:\s*[0-9.]+,)?(CPU\d+),|"cpu" : "(\d+)"', l))
        j = re.search(r'"metric-value" : ([-0-9.]+), "metric-unit" : "([^"]*)"', l)
        if j and j.group(2) not in ("", "(null)"):
            lines.append((where, j.group(1), j.group(2)))
        elif not l.startswith("{") and l.split(",")[-1].strip():
            lines.append((where, *l.split(",")[-2:]))
    return lines


def only_columns(out):
    """--metric-only -x,: column title -> value."""
    lines = out.splitlines()
    return dict(zip(lines[0].split(","), lines[1].split(","))) if len(lines) > 1 else {}


def layouts(src, pk, tmp, stub, counts):
    bad = 0
    for opts in LAYOUTS + SEQUENCES:
        cmd = ("sleep", "0.15") if "-I" in opts else ("sleep", "0.01")
        out = [run(src, "skylake", t, L1, counts, os.path.join(tmp, "l.log"), stub, opts, cmd)[1]
               for t in ("perf", pk)]
        get = (lambda o: masked(o, opts)) if opts in LAYOUTS else metric_lines
        a, b = get(out[0]), get(out[1])
        if a != b or not a:
            print(f"skylake {' '.join(opts)}: differs\nperf:\n{out[0]}\npmukit:\n{out[1]}")
            bad += 1
    for metrics in ORDERS:
        out = [run(src, "skylake", t, metrics, counts, os.path.join(tmp, "l.log"), stub)[1]
               for t in ("perf", pk)]
        if metric_lines(out[0]) != metric_lines(out[1]):
            print(f"skylake -M {','.join(metrics)}: differs\nperf:\n{out[0]}\npmukit:\n{out[1]}")
            bad += 1
    bad += weak_group(src, pk, tmp, stub, counts)
    bad += mixed(src, pk, tmp, stub, counts)
    print(f"skylake: {len(LAYOUTS) + len(SEQUENCES)} layouts, {len(ORDERS)} -M orders, "
          "the weak group fallback, -e with -M and -d compared")
    return bad


def weak_group(src, pk, tmp, stub, counts):
    """The PMU refuses CPU_CLK_UNHALTED.THREAD in a group: perf's metric
    groups are weak ({...}:W), reopened ungrouped, the metrics computed
    from those counts; -v says "Weak group for LEADER/N failed"."""
    path = os.path.join(tmp, "weak")
    with open(counts) as f, open(path, "w") as w:
        for line in f:
            w.write(line.rstrip("\n") + (" grouped_fail=22\n" if " config=0x3c " in line else "\n"))
    metrics = ["tma_frontend_bound", "tma_retiring"]
    out = [[run(src, "skylake", t, metrics, path, os.path.join(tmp, "w.log"), stub, opts)[1]
            for opts in (("-x,",), ("-x,", "-v"))] for t in ("perf", pk)]
    said = [re.findall(r"^Weak group for \S+/\d+ failed$", o[1], re.M) for o in out]
    if metric_lines(out[0][0]) != metric_lines(out[1][0]) or not metric_lines(out[0][0]) \
            or not said[0] or not said[1]:
        print(f"skylake weak group: differs\nperf:\n{out[0][0]}{said[0]}\n"
              f"pmukit:\n{out[1][0]}{said[1]}")
        return 1
    return 0


def mixed(src, pk, tmp, stub, counts):
    """-e, two -M and -d: perf 6.1 puts the -e events first, then the -M
    lists as one list, then -d's events; a metric on an event with a
    metric of perf stat's own (a rate beside task-clock) on a line of its
    own after it."""
    opts = ("-x,", "-e", "task-clock", "-M", "tma_retiring", "-d")
    out = [run(src, "skylake", t, ["tma_frontend_bound"], counts, os.path.join(tmp, "m.log"),
               stub, opts)[1].splitlines() for t in ("perf", pk)]
    shape = [([l for l in o if "tma_" in l], o[:1], o[-4:]) for o in out]
    if shape[0] != shape[1] or not shape[0][0]:
        print(f"skylake {' '.join(opts)}: differs\nperf:\n{out[0]}\npmukit:\n{out[1]}")
        return 1
    return 0


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    discover = "--discover" in sys.argv[3:]
    tmp, stub = oracle61.prepare(src, "pk-metrics61-")
    if not tmp:
        return 77
    with open(os.path.join(tmp, "zero"), "w") as f:  # every count 0
        f.write("times enabled=1000000 running=1000000\n")
    bad = 0
    for machine in CPUS:
        if discover:
            common = sorted(m for m in listed("perf", machine) & listed(pk, machine)
                            if m.startswith("tma_"))
            ok = [m for m in common if run(src, machine, pk, [m], os.path.join(tmp, "zero"),
                                            os.path.join(tmp, "x.log"), stub)[0] == 0]
            a, b, _ = compare(src, pk, machine, ok, tmp, stub)
            print(f'"{machine}": "' + " ".join(m for m in ok if m in a and a[m] == b.get(m)) + '",')
            continue
        metrics = SAME[machine].split()
        a, b, out = compare(src, pk, machine, metrics, tmp, stub)
        for m in metrics:
            if m not in a or a[m] != b.get(m):
                print(f"{machine} {m}: perf {a.get(m)}, pmukit {b.get(m)}")
                bad += 1
        print(f"{machine}: {len(metrics)} metrics compared")
        if bad:
            print("perf:\n" + out[0][1] + "\npmukit:\n" + out[1][1])
        # --metric-only -x,: the same column for every metric, same value
        # (perf 6.1 prints Alder Lake's metrics there without values)
        if machine == "alderlake":
            continue
        counts = os.path.join(tmp, "counts")
        cols = [only_columns(run(src, machine, t, metrics, counts, os.path.join(tmp, "o.log"),
                                 stub, ("--metric-only", "-x,"))[1]) for t in ("perf", pk)]
        for m in metrics:
            pc = [k for k in cols[0] if k.split() and k.split()[-1] == m]
            if len(pc) != 1 or cols[0][pc[0]] != cols[1].get(pc[0]):
                print(f"{machine} --metric-only {m}: perf {pc} {[cols[0].get(k) for k in pc]}, "
                      f"pmukit {[(k, v) for k, v in cols[1].items() if k.endswith(m)]}")
                bad += 1
        if machine == "skylake":
            bad += layouts(src, pk, tmp, stub, counts)
    subprocess.run(["rm", "-rf", tmp])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
