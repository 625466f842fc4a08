#!/usr/bin/env python3
"""Generates lib/topdown/td_intel.c: the TopDown Level 1 and 2 nodes of
Intel's TMA metric files (tests/data/perfmon/<CPU>/metrics, groups TmaL1 and
TmaL2, what perf's TopdownL1/TopdownL2 groups are made from) as pmukit metric
rows, with the raw encodings of every event they name (from the same CPU's
events files). Data in, data out: the C file holds no logic.

Invariants: a formula is Intel's Formula with each alias replaced by its event
(or the constant smt_on / #threads), '-' escaped; a threshold is Intel's with
its aliases replaced by the rows it names; values are percent (Intel's
'100 *'). PERF_METRICS.<X> is the metric pseudo event 0x80NN (NN the byte),
TOPDOWN.SLOTS:perf_metrics the slots pseudo event 0x0400 (the kernel's
encodings, docs/topdown.md).

  gen_intel.py PERFMON_DIR OUT.c        write
  gen_intel.py PERFMON_DIR OUT.c --check  exit 1 when OUT.c differs
"""
import json
import os
import re
import sys

# CPU folder, metrics file, events files, C name
CPUS = [
    ("SKL", "skylake_metrics.json", ["skylake_core.json"], "skl"),
    ("ICL", "icelake_metrics.json", ["icelake_core.json"], "icl"),
    ("SPR", "sapphirerapids_metrics.json", ["sapphirerapids_core.json"], "spr"),
    ("ADL", "alderlake_metrics_goldencove_core.json", ["alderlake_goldencove_core.json"], "adl_glc"),
]
PERF_METRICS = ["RETIRING", "BAD_SPECULATION", "FRONTEND_BOUND", "BACKEND_BOUND",
                "HEAVY_OPERATIONS", "BRANCH_MISPREDICTS", "FETCH_LATENCY", "MEMORY_BOUND"]
CONSTANTS = {"HYPERTHREADING_ON": "#smt_on", "THREADS_PER_CORE": "#threads"}


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
    return name.replace("-", "\\-")


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_cpu(perfmon, cpu, metrics_file, events_files, cname):
    metrics = json.load(open(os.path.join(perfmon, cpu, "metrics", metrics_file)))
    events = {}
    for f in events_files:
        for e in json.load(open(os.path.join(perfmon, cpu, "events", f)))["Events"]:
            events[e["EventName"]] = e
    legacy = {m["LegacyName"]: node_name(m["MetricName"]) for m in metrics["Metrics"]}
    rows, used = [], []
    for m in metrics["Metrics"]:
        groups = (m.get("MetricGroup") or "").split(";")
        if m.get("Category") != "TMA" or not ({"TmaL1", "TmaL2"} & set(groups)):
            continue
        if m["Level"] not in (1, 2) or m["MetricName"].startswith("Info"):
            continue
        alias = {}
        for e in m["Events"]:
            alias[e["Alias"]] = esc(e["Name"])
            if e["Name"] not in used:
                used.append(e["Name"])
        for c in m["Constants"]:
            alias[c["Alias"]] = CONSTANTS.get(c["Name"], c["Name"])
        formula = re.sub(r"\s+", " ", subst(m["Formula"], alias)).strip()
        th = m.get("Threshold") or {}
        thr = None
        if th.get("Formula"):
            ta = {a["Alias"]: legacy[a["Value"]] for a in th["ThresholdMetrics"]}
            thr = re.sub(r"\s+", " ", subst(th["Formula"], ta)).strip()
        parent = node_name(m["ParentCategory"]) if m.get("ParentCategory") else None
        rows.append((node_name(m["MetricName"]), m["Level"], formula, thr,
                     first_sentence(m["BriefDescription"]), parent))
    out = [f"/* {cpu}: {metrics_file}, TMA {metrics['Header'].get('TmaVersion', '?')} */"]
    out.append(f"static const pk_metric_def {cname}_rows[] = {{")
    for name, level, formula, thr, desc, parent in rows:
        out.append(f"\t{{.name = {c_str(name)}, .formula = {c_str(formula)},")
        out.append(f"\t .unit = \"%\", .style = PK_METRIC_PERCENT,")
        out.append(f"\t .threshold = {c_str(thr) if thr else 'NULL'},")
        out.append(f"\t .description = {c_str(desc)},")
        out.append(f"\t .groups = \"TopdownL{level}\", .parent = {c_str(parent) if parent else 'NULL'}}},")
    out.append("};")
    out.append(f"static const pki_td_event {cname}_events[] = {{")
    for name in used:
        cfg, grouped = encode(name, events)
        out.append(f"\t{{{c_str(esc(name))}, {cfg:#x}, {'true' if grouped else 'false'}}},")
    out.append("};")
    return "\n".join(out)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    perfmon, target = sys.argv[1], sys.argv[2]
    parts = ["/* Generated by lib/topdown/gen_intel.py from Intel's TMA metric and event",
             " * files (tests/data/perfmon, intel/perfmon 6dadedf, BSD 3-Clause): the",
             " * TopDown Level 1 and 2 nodes per CPU, in percent, with the raw encoding",
             " * of every event they name. Do not edit: regenerate, and the test",
             " * topdown_tables checks that this file equals what the files give. */",
             "#include \"topdown/td_internal.h\"", ""]
    for cpu in CPUS:
        parts.append(gen_cpu(perfmon, *cpu))
        parts.append("")
    parts.append("const pki_td_table pki_td_intel[] = {")
    for _, _, _, cname in CPUS:
        parts.append(f"\tPKI_TD_TABLE({cname}_rows, {cname}_events),")
    parts.append("};")
    text = "\n".join(parts) + "\n"
    if "--check" in sys.argv[3:]:
        old = open(target).read() if os.path.exists(target) else ""
        if old != text:
            print(f"{target} differs from what {perfmon} gives: run lib/topdown/gen_intel.py", file=sys.stderr)
            return 1
        print(f"{target}: equal to {perfmon}")
        return 0
    open(target, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
