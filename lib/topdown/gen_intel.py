#!/usr/bin/env python3
"""Generates lib/topdown/td_intel.c: every node of the TMA tree of Intel's
metric files (tests/data/perfmon/<CPU>/metrics: Category TMA, not the Info
and Bottleneck metrics; Levels 1 to 6) as pmukit metric rows in depth-first
order (level in groups "TopdownL<N>"), their "Sample with" events
(LocateWith) as ready event specs, and the raw encodings of every event they
name (from the same CPU's events files). Data in, data out: the C file holds
no logic.

Invariants: a formula is Intel's Formula with each alias replaced by its event
(or the constant smt_on / #threads), '-' escaped; a threshold is Intel's with
its aliases replaced by the rows it names; values are percent (Intel's
'100 *'). PERF_METRICS.<X> is the metric pseudo event 0x80NN (NN the byte),
TOPDOWN.SLOTS:perf_metrics the slots pseudo event 0x0400 (the kernel's
encodings, docs/topdown.md).

It also generates lib/metrics/metrics_intel.c (the third argument): every
metric of the same files (TMA nodes and Info metrics, and SPR's uncore and
system metrics) as pmukit rows, named as perf names them (tma_ + the lower-
case MetricName for TMA, the MetricName otherwise), in Intel's groups plus
perf's TopdownL<N>, tma_L<N>_group and tma_<parent>_group for tree nodes,
with the raw core encoding of each event (or none: uncore, MSR and energy
events, which `stat -M` refuses by name), one table per CPU keyed by the
core of lib/pmu/cpu_models.c and its platform (perf's pmu-events directory:
Skylake-X, Ice Lake-X and Tiger Lake, other files, take the kernel's tables
of lib/metrics/gen_perf_json.py). Constants become literals:
#smt_on, #threads, #num_cpus, #sockets, #tsc, #duration_ms, #duration_s, #chas;
any other constant but a number stops the generator. SYSTEM_TSC_FREQ becomes
#tsc: the files' formulas use it as their BaseFormula's `tsc`, the TSC's
ticks over the measured time (CPUs_Utilized = REF_TSC / tsc), not a rate.

  gen_intel.py PERFMON_DIR OUT.c METRICS.c        write
  gen_intel.py PERFMON_DIR OUT.c METRICS.c --check  exit 1 when either differs
"""
import json
import os
import re
import sys

# CPU folder, metrics file, events files, C name, core (pki_uarch)
CPUS = [
    ("SKL", "skylake_metrics.json", ["skylake_core.json"], "skl", "SKYLAKE"),
    ("ICL", "icelake_metrics.json", ["icelake_core.json"], "icl", "SUNNY_COVE"),
    ("SPR", "sapphirerapids_metrics.json", ["sapphirerapids_core.json"], "spr", "GOLDEN_COVE_SRV"),
    ("ADL", "alderlake_metrics_goldencove_core.json", ["alderlake_goldencove_core.json"], "adl_glc",
     "GOLDEN_COVE"),
]
# perf's pmu-events directory of each CPU folder (lib/pmu/cpu_models.c's
# platform): with the core, the key of its metric table
PLATFORMS = {"SKL": "skylake", "ICL": "icelake", "SPR": "sapphirerapids", "ADL": "alderlake"}
PERF_METRICS = ["RETIRING", "BAD_SPECULATION", "FRONTEND_BOUND", "BACKEND_BOUND",
                "HEAVY_OPERATIONS", "BRANCH_MISPREDICTS", "FETCH_LATENCY", "MEMORY_BOUND"]
CONSTANTS = {"HYPERTHREADING_ON": "#smt_on", "THREADS_PER_CORE": "#threads",
             "system.sockets[0].cpus.count * system.socket_count": "#num_cpus",
             "SOCKET_COUNT": "#sockets", "SYSTEM_TSC_FREQ": "#tsc",
             "DURATIONTIMEINMILLISECONDS": "#duration_ms",
             "DURATIONTIMEINSECONDS": "#duration_s", "CHAS_PER_SOCKET": "#chas"}
UNITS = {"percent": "%", "": "", "per instruction": "per instr"}


def node_name(metric):
    return "tma_" + metric.lower()


def encode(name, events):
    """Raw config of a perfmon event name with ':' modifiers."""
    if name.startswith("PERF_METRICS."):
        return 0x8000 + (PERF_METRICS.index(name.split(".", 1)[1]) << 8), True
    if name == "TOPDOWN.SLOTS:perf_metrics":
        return 0x0400, True
    base, *mods = name.split(":")
    e = events[base]
    cfg = int(e["EventCode"].split(",")[0], 16) & 0xff
    cfg |= (int(e["UMask"], 16) & 0xff) << 8
    cmask, edge, inv = int(e.get("CounterMask", "0")), int(e.get("EdgeDetect", "0")), int(e.get("Invert", "0"))
    anyt = int(e.get("AnyThread", "0"))
    for m in mods:
        if re.fullmatch(r"c\d+", m):
            cmask = int(m[1:])
        elif m == "e1":
            edge = 1
        elif m == "i1":
            inv = 1
        elif re.fullmatch(r"u0x[0-9a-fA-F]+", m):
            cfg = (cfg & ~0xff00) | (int(m[1:], 16) & 0xff) << 8
        else:
            raise SystemExit(f"{name}: modifier '{m}' not known to the generator")
    cfg |= edge << 18 | anyt << 21 | inv << 23 | cmask << 24
    return cfg, False


def subst(formula, table):
    out, pos = [], 0
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", formula):
        out.append(formula[pos:m.start()])
        w = m.group(0)
        out.append(table.get(w, w))
        pos = m.end()
    out.append(formula[pos:])
    return "".join(out)


def first_sentence(text):
    return re.split(r"(?<=[a-z)])\.\s+(?=[A-Z])", text)[0].rstrip(".") + "."


def esc(name):
    return name.replace("-", "\\-").replace("=", "\\=")


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load(perfmon, cpu, metrics_file, events_files):
    metrics = json.load(open(os.path.join(perfmon, cpu, "metrics", metrics_file)))
    events = {}
    for f in events_files:
        for e in json.load(open(os.path.join(perfmon, cpu, "events", f)))["Events"]:
            events[e["EventName"]] = e
    return metrics, events


def formula_of(m, used):
    """Intel's Formula with its aliases (and constants written bare) replaced;
    event names added to used."""
    alias = {k: v for k, v in CONSTANTS.items() if re.fullmatch(r"[A-Z_]+", k)}
    for e in m["Events"]:
        alias[e["Alias"]] = esc(e["Name"])
        if e["Name"] not in used:
            used.append(e["Name"])
    for c in m["Constants"]:
        if c["Name"] not in CONSTANTS and not re.fullmatch(r"[0-9.]+", c["Name"]):
            raise SystemExit(f"{m['MetricName']}: constant '{c['Name']}' not known to the generator")
        alias[c["Alias"]] = CONSTANTS.get(c["Name"], c["Name"])
    return re.sub(r"\s+", " ", subst(m["Formula"], alias)).strip()


def threshold_of(m, legacy):
    th = m.get("Threshold") or {}
    if not th.get("Formula"):
        return None
    ta = {a["Alias"]: legacy[a["Value"]] for a in th["ThresholdMetrics"]}
    return re.sub(r"\s+", " ", subst(th["Formula"], ta)).strip()


def perf_name(m):
    """perf's name: tma_<lower> for TMA metrics, the MetricName otherwise."""
    return node_name(m["MetricName"]) if m.get("Category") == "TMA" else m["MetricName"]


def tree_nodes(metrics):
    """The TMA tree's nodes (not the Info and Bottleneck metrics Intel also
    files as TMA) in depth-first order, siblings in the files' order."""
    nodes = [m for m in metrics if m.get("Category") == "TMA" and
             not m["MetricName"].startswith(("Info", "Bottleneck")) and
             (m.get("ParentCategory") or "TmaL1" in (m.get("MetricGroup") or "").split(";"))]
    kids = {}
    for m in nodes:
        kids.setdefault(m.get("ParentCategory"), []).append(m)
    out = []

    def walk(parent):
        for m in kids.get(parent, []):
            out.append(m)
            walk(m["MetricName"])
    walk(None)
    return out


def sample_spec(name, events):
    """A "Sample with" event as the terms and modifiers of a PMU event
    (pmu/<spec>): its encoding, its MSR term, its name, :pp where it is
    precise (PEBS); None when the events file lacks it."""
    e = events.get(name.strip())
    if not e or "," in e["EventCode"]:
        return None
    terms = [f"event={int(e['EventCode'], 16):#x}", f"umask={int(e['UMask'], 16):#x}"]
    for key, term in (("CounterMask", "cmask"), ("EdgeDetect", "edge"), ("Invert", "inv")):
        if int(e.get(key, "0")):
            terms.append(f"{term}={int(e[key])}")
    msr = (e.get("MSRIndex") or "0").lower()
    if msr in ("0x3f7", "0x3f6"):
        terms.append(f"{'frontend' if msr == '0x3f7' else 'ldlat'}={int(e['MSRValue'], 16):#x}")
    elif msr not in ("0", "0x0", "0x00"):
        return None
    pebs = int(e.get("PEBS", "0") or 0)
    return ",".join(terms) + f",name={name.strip()}/" + ("pp" if pebs else "")


def samples_of(m, events):
    specs = [sample_spec(n, events) for n in (m.get("LocateWith") or "").split(";")
             if n.strip() and "#NA" not in n]
    return " ".join(s for s in specs if s) or None


def gen_cpu(perfmon, cpu, metrics_file, events_files, cname, _uarch):
    metrics, events = load(perfmon, cpu, metrics_file, events_files)
    legacy = {m["LegacyName"]: node_name(m["MetricName"]) for m in metrics["Metrics"]}
    rows, used, dropped = [], [], []
    for m in tree_nodes(metrics["Metrics"]):
        if m.get("ParentCategory") and node_name(m["ParentCategory"]) in dropped:
            dropped.append(node_name(m["MetricName"]))
            continue
        names = []
        formula = formula_of(m, names)
        try:
            for n in names:
                encode(n, events)
        except (KeyError, SystemExit):  # uncore, MSR-valued: no core event
            dropped.append(node_name(m["MetricName"]))
            continue
        used += [n for n in names if n not in used]
        thr = threshold_of(m, legacy)
        parent = node_name(m["ParentCategory"]) if m.get("ParentCategory") else None
        rows.append((node_name(m["MetricName"]), m["Level"], formula, thr,
                     first_sentence(m["BriefDescription"]), parent, samples_of(m, events)))
    out = [f"/* {cpu}: {metrics_file}, TMA {metrics['Header'].get('TmaVersion', '?')} */"]
    if dropped:
        out.append("/* left out (an event that is no core event, and their children): " +
                   ", ".join(dropped) + " */")
    out.append(f"static const pk_metric_def {cname}_rows[] = {{")
    for name, level, formula, thr, desc, parent, _ in rows:
        out.append(f"\t{{.name = {c_str(name)}, .formula = {c_str(formula)},")
        out.append(f"\t .unit = \"%\", .style = PK_METRIC_PERCENT,")
        out.append(f"\t .threshold = {c_str(thr) if thr else 'NULL'},")
        out.append(f"\t .description = {c_str(desc)},")
        out.append(f"\t .groups = \"TopdownL{level}\", .parent = {c_str(parent) if parent else 'NULL'}}},")
    out.append("};")
    out.append(f"static const char *const {cname}_samples[] = {{")
    for row in rows:
        out.append(f"\t{c_str(row[6]) if row[6] else 'NULL'}, /* {row[0]} */")
    out.append("};")
    out.append(f"static const pki_td_event {cname}_events[] = {{")
    for name in used:
        cfg, grouped = encode(name, events)
        out.append(f"\t{{{c_str(esc(name))}, {cfg:#x}, {'true' if grouped else 'false'}}},")
    out.append("};")
    return "\n".join(out)


# Intel's fixed-counter pseudo codes (event 0x00) as the general events the
# kernel schedules on them, as perf's tables write them: umask 1 is
# INST_RETIRED.ANY (0xc0), umask 2 CPU_CLK_UNHALTED.THREAD (0x3c); 3
# (REF_TSC) and 4 (TOPDOWN.SLOTS) stay the kernel's pseudo encodings.
FIXED = {0x0100: 0xc0, 0x0200: 0x3c}


def encode_core(name, events):
    """The raw config on the core PMU, or None when the event is not one."""
    try:
        cfg, _ = encode(name, events)
        if cfg & 0xffff in FIXED:
            cfg = (cfg & ~0xffff) | FIXED[cfg & 0xffff]
        return cfg
    except (KeyError, SystemExit):
        return None


def metric_groups(m):
    groups = [g for g in (m.get("MetricGroup") or "").split(";") if g]
    info = m["MetricName"].startswith("Info")  # Intel puts some in TmaL1
    if not info and any(g.startswith("TmaL") for g in groups):  # a node of the tree
        level = m["Level"]
        groups += [f"TopdownL{level}", f"tma_L{level}_group"]
        if m.get("ParentCategory"):
            groups.append(node_name(m["ParentCategory"]) + "_group")
    return ";".join(groups)


def gen_metrics_cpu(perfmon, cpu, metrics_file, events_files, cname, uarch):
    metrics, events = load(perfmon, cpu, metrics_file, events_files)
    legacy = {m["LegacyName"]: perf_name(m) for m in metrics["Metrics"]}
    out = [f"/* {cpu}: {metrics_file}, TMA {metrics['Header'].get('TmaVersion', '?')} */"]
    out.append(f"static const pk_metric_def {cname}_metrics[] = {{")
    used = []
    for m in sorted(metrics["Metrics"], key=lambda m: perf_name(m).lower()):
        formula = formula_of(m, used)
        thr = threshold_of(m, legacy)
        unit = UNITS.get(m.get("UnitOfMeasure") or "", m.get("UnitOfMeasure"))
        # perf's: the first sentence, without its period
        desc = first_sentence(re.sub(r"\s+", " ", m["BriefDescription"]).strip())[:-1]
        out.append(f"\t{{.name = {c_str(perf_name(m))}, .formula = {c_str(formula)},")
        style = "PK_METRIC_SCALED" if unit else "PK_METRIC_UNSCALED"  # perf's %8.1f / %8.2f
        out.append(f"\t .unit = {c_str(unit)}, .style = {style},")
        out.append(f"\t .threshold = {c_str(thr) if thr else 'NULL'},")
        out.append(f"\t .description = {c_str(desc)},")
        out.append(f"\t .groups = {c_str(metric_groups(m))}}},")
    out.append("};")
    out.append(f"static const pki_metric_event {cname}_metric_events[] = {{")
    for name in sorted(used):
        cfg = encode_core(name, events)
        out.append(f"\t{{{c_str(name)}, {cfg if cfg is not None else 0:#x}, "
                   f"{'true' if cfg is not None else 'false'}}},")
    out.append("};")
    return "\n".join(out)


def c_file(comment, include, gen, perfmon, table):
    """A generated C file: its comment lines, the include, each CPU's part
    by gen, then the table lines."""
    parts = comment + [f"#include \"{include}\"", ""]
    for cpu in CPUS:
        parts += [gen(perfmon, *cpu), ""]
    return "\n".join(parts + table) + "\n"


def metrics_file(perfmon):
    comment = ["/* Generated by lib/topdown/gen_intel.py from Intel's metric and event",
               " * files (tests/data/perfmon, intel/perfmon 6dadedf, BSD 3-Clause): every",
               " * metric per CPU, sorted by name, for `stat -M` and `list metric`, with",
               " * the raw core encoding of every event they name (core false: not a",
               " * core event). Do not edit: regenerate, and the test topdown_tables",
               " * checks that this file equals what the files give. */"]
    table = ["const pki_metric_cpu_table pki_metric_intel[] = {"]
    for cpu, mfile, _, cname, uarch in CPUS:
        table.append(f"\tPKI_METRIC_CPU_TABLE(PKI_UARCH_{uarch}, {c_str(PLATFORMS[cpu])}, "
                     f"{c_str(cpu + ': ' + mfile)}, {cname}_metrics, {cname}_metric_events),")
    table += ["};", f"const size_t pki_metric_intel_nr = {len(CPUS)};"]
    return c_file(comment, "metrics/metric_tables.h", gen_metrics_cpu, perfmon, table)


def write_or_check(target, text, perfmon, check):
    if check:
        old = open(target).read() if os.path.exists(target) else ""
        if old != text:
            print(f"{target} differs from what {perfmon} gives: run lib/topdown/gen_intel.py", file=sys.stderr)
            return 1
        print(f"{target}: equal to {perfmon}")
        return 0
    open(target, "w").write(text)
    return 0


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    perfmon, target, mtarget = sys.argv[1], sys.argv[2], sys.argv[3]
    comment = ["/* Generated by lib/topdown/gen_intel.py from Intel's TMA metric and event",
               " * files (tests/data/perfmon, intel/perfmon 6dadedf, BSD 3-Clause): the",
               " * TMA tree's nodes (Levels 1-6) per CPU, in percent, their \"Sample with\"",
               " * events, and the raw encoding of every event they name. Do not edit:",
               " * regenerate, and the test topdown_tables checks that this file equals",
               " * what the files give. */"]
    table = ["const pki_td_table pki_td_intel[] = {"]
    table += [f"\tPKI_TD_TABLE_S({cname}_rows, {cname}_events, {cname}_samples),"
              for _, _, _, cname, _ in CPUS]
    text = c_file(comment, "topdown/td_internal.h", gen_cpu, perfmon, table + ["};"])
    check = "--check" in sys.argv[4:]
    return (write_or_check(target, text, perfmon, check)
            | write_or_check(mtarget, metrics_file(perfmon), perfmon, check))


if __name__ == "__main__":
    sys.exit(main())
