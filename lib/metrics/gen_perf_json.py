#!/usr/bin/env python3
"""Generates lib/metrics/metrics_perf.c: the metrics of the Linux kernel's
perf-format JSON files (tests/data/perfmon-perf: AMD Zen 2-5, Arm Neoverse
N1/V1/N2/V2, Intel Haswell to Emerald Rapids, Sierra Forest, Grand Ridge,
Meteor Lake, Gracemont as Alder Lake-N; Granite Rapids, Lunar Lake and
Arrow Lake from intel/perfmon's converter, the same format) as pmukit rows, one table per CPU
(per Unit of a hybrid file) keyed like metrics_intel.c (the core of
lib/pmu/cpu_models.c and its platform, perf's pmu-events directory), with
the raw core encoding of every event they name.
Data in, data out: the C file holds no logic.

Invariants (what a row is, from a file's entry):
- name, groups (MetricGroup) and description (BriefDescription, white space
  collapsed) are the file's; rows are sorted by name without case.
- the formula is the MetricExpr with every reference to another metric of
  the same CPU inlined in parentheses (perf evaluates a reference without
  its ScaleUnit), `PMU@EVENT\\,cmask\\=0xN@` written EVENT:cN (edge :e1,
  inv :i1), `cpu@EVENT@` written EVENT, duration_time written #duration_s (perf's
  metrics take duration_time in seconds: its count, ns, scaled by 1e-9), strcmp_cpuid_str(MIDR) written #midr_ge_MIDR (the engine
  answers it from the CPU's MIDR, as perf at run time: so one directory is
  one table, Neoverse N2 and V2 share theirs), and the ScaleUnit's factor applied ("100%" ->
  100 * ( expr ), unit "%"; "1MPKI" -> unit "MPKI"): a row's value is what
  perf prints.
- a threshold (MetricThreshold) names rows by their unscaled value, as perf
  does: each reference to a scaled row becomes ( row / factor ).
- Arm: an entry with ArchStdEvent takes the fields of that name's metric in
  sbsa.json and overrides them with its own (perf's rule); events resolve
  through the directory's events.json (ArchStdEvent names) to the common
  armv8 event numbers (common-and-microarch.json), the number being the
  raw config.
- AMD: EventCode (12 bits: 0-7 and 32-35), UMask (8-15) and cmask (24-31)
  as lib/model's PKI_AMD; an event with a Unit (L3PMC, DFPMC, UMCPMC) or
  not in the files is no core event (core false, config 0), so `stat -M`
  refuses its metric by name.
- Intel: encodings by gen_intel.py's encode_core (one place); perf's
  topdown-* events named PERF_METRICS.* as Intel's tables name them, the
  TSX sysfs events (cycles-t, ...) by the kernel's encodings; an event
  entry with a Unit other than the table's (uncore, the other core) is no
  core event (an uncore Unit's event of EventCode and UMask only, CHA, iMC,
  M2M, IRP, PCU, UPI, gets its text on that PMU: uncore_cha/event=..,umask=../,
  which stat -M opens on every instance; the msr PMU's msr/EVENT/ and TSC,
  msr/tsc/, too); source_count(EV) is kept as perf writes it (the engine counts
  the PMU instances EV's counts came from).

  gen_perf_json.py DATA_DIR OUT.c           write
  gen_perf_json.py DATA_DIR OUT.c --check   exit 1 when OUT.c differs
  gen_perf_json.py --extract KERNEL_ARCH_DIR DATA_DIR DIR...
      copy DIR's metric files from the kernel's tools/perf/pmu-events/arch/x86
      (or arm64/...) into DATA_DIR/DIR and write DATA_DIR/DIR/events.json, the
      events their formulas name (the x86 folders' data step)
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topdown"))
import gen_intel  # noqa: E402  (c_str, encode_core: one place)

# directory, C name of its table, core (pki_uarch), platform (cpu_models.c's
# perf directory: with the core, the key), kind ("intel:UNIT": a hybrid
# file's metrics and events of that Unit only); a table listed twice is one
CPUS = [
    ("amdzen2", "zen2", "ZEN2", "amdzen2", "amd"),
    ("amdzen3", "zen3", "ZEN3", "amdzen3", "amd"),
    ("amdzen4", "zen4", "ZEN4", "amdzen4", "amd"),
    ("amdzen5", "zen5", "ZEN5", "amdzen5", "amd"),
    ("neoverse-n1", "neoverse_n1", "NEOVERSE_N1", "neoverse-n1", "arm"),
    ("neoverse-v1", "neoverse_v1", "NEOVERSE_V1", "neoverse-v1", "arm"),
    ("neoverse-n2-v2", "neoverse_n2_v2", "NEOVERSE_N2", "neoverse-n2-v2", "arm"),
    ("neoverse-n2-v2", "neoverse_n2_v2", "NEOVERSE_V2", "neoverse-n2-v2", "arm"),
    ("alderlaken", "adln_grt", "GRACEMONT", "alderlaken", "intel"),
    # Alder Lake hybrid's E-cores: Alder Lake-N's Gracemont table
    ("alderlaken", "adln_grt", "GRACEMONT", "alderlake", "intel"),
    ("haswell", "hsw", "NONE", "haswell", "intel"),
    ("haswellx", "hsx", "NONE", "haswellx", "intel"),
    ("broadwell", "bdw", "NONE", "broadwell", "intel"),
    ("broadwellx", "bdx", "NONE", "broadwellx", "intel"),
    ("broadwellde", "bdwde", "NONE", "broadwellde", "intel"),
    ("skylakex", "skx", "SKYLAKE", "skylakex", "intel"),
    ("cascadelakex", "clx", "SKYLAKE", "cascadelakex", "intel"),
    ("icelakex", "icx", "SUNNY_COVE", "icelakex", "intel"),
    ("tigerlake", "tgl", "SUNNY_COVE", "tigerlake", "intel"),
    ("rocketlake", "rkl", "SUNNY_COVE", "rocketlake", "intel"),
    ("emeraldrapids", "emr", "GOLDEN_COVE_SRV", "emeraldrapids", "intel"),
    ("sierraforest", "srf", "CRESTMONT", "sierraforest", "intel"),
    ("grandridge", "grr", "CRESTMONT", "grandridge", "intel"),
    ("meteorlake", "mtl_rwc", "REDWOOD_COVE", "meteorlake", "intel:cpu_core"),
    ("meteorlake", "mtl_cmt", "CRESTMONT", "meteorlake", "intel:cpu_atom"),
    ("graniterapids", "gnr", "REDWOOD_COVE", "graniterapids", "intel"),
    ("lunarlake", "lnl_lnc", "LION_COVE", "lunarlake", "intel:cpu_core"),
    ("lunarlake", "lnl_skt", "SKYMONT", "lunarlake", "intel:cpu_atom"),
    ("arrowlake", "arl_lnc", "LION_COVE", "arrowlake", "intel:cpu_core"),
    ("arrowlake", "arl_skt", "SKYMONT", "arrowlake", "intel:cpu_atom"),
]
# perf's generic hardware events as the kernel maps them to raw events
# (arch/x86/events/amd/core.c amd_perfmon_event_map, intel/core.c
# intel_perfmon_event_map, arm64 armv8_pmuv3_perf_map)
GENERIC = {"amd": {"instructions": 0xc0, "cycles": 0x76},
           "intel": {"instructions": 0xc0, "cycles": 0x3c},
           "arm": {"instructions": 0x08, "cycles": 0x11}}
# the Intel core PMU's named events of sysfs (arch/x86/events/intel/core.c):
# TSX's (in_tx: config bit 32, in_tx_cp: bit 33), and the PERF_METRICS
# fields as pmukit's Intel tables name them (lib/topdown/gen_intel.py)
INTEL_SYSFS = {"cycles-t": 0x10000003c, "cycles-ct": 0x30000003c, "tx-start": 0x1c9,
               "el-start": 0x1c8}
TOPDOWN = {"topdown-retiring": "RETIRING", "topdown-bad-spec": "BAD_SPECULATION",
           "topdown-fe-bound": "FRONTEND_BOUND", "topdown-be-bound": "BACKEND_BOUND",
           "topdown-heavy-ops": "HEAVY_OPERATIONS", "topdown-br-mispredict": "BRANCH_MISPREDICTS",
           "topdown-fetch-lat": "FETCH_LATENCY", "topdown-mem-bound": "MEMORY_BOUND"}
CORE_PMUS = {"cpu", "cpu_core", "cpu_atom"}
KEYWORDS = {"if", "else", "d_ratio", "min", "max", "has_event", "source_count", "strcmp_cpuid_str",
            "smt_on"}
NAME = re.compile(r"(?<![A-Za-z0-9_.:\\])[A-Za-z_#](?:[A-Za-z0-9_.:]|\\.)*(?:@[^@]*@[A-Za-z0-9_.:]*)?")


def read(path):
    with open(path) as f:
        return json.load(f)


def load(data, d, kind):
    """The metric entries (Arm's merged with sbsa.json) and events by
    lower-case name of directory d; of a hybrid's ("intel:cpu_atom") the
    entries of that Unit (cpu_core's also those without one: C-states, SMI),
    and its events (another Unit's: no core event; the UNCORE Units')."""
    entries, events = [], {}
    unit = kind.partition(":")[2] or None
    mine = None if unit in (None, "cpu_core") else unit  # no Unit: the P-core's (perf's "cpu")
    for f in sorted(os.listdir(os.path.join(data, d))):
        for e in read(os.path.join(data, d, f)):
            if "EventName" in e:
                if kind.startswith("intel") and e.get("Unit") not in (unit, *UNCORE):
                    continue  # other uncore, or the other core's
                events[e["EventName"].lower()] = e
            elif ("MetricName" in e and e.get("Unit") in (unit, mine)) or ("ArchStdEvent" in e and f != "events.json"):
                entries.append(e)
    if kind == "arm":
        common = {e["EventName"].lower(): e for e in read(os.path.join(data, "armv8-events.json"))}
        std = {e["MetricName"]: e for e in read(os.path.join(data, "sbsa.json"))}
        entries = [dict(std[e["ArchStdEvent"]], **{k: v for k, v in e.items() if k != "ArchStdEvent"})
                   if "ArchStdEvent" in e else e for e in entries]
        for e in read(os.path.join(data, d, "events.json")):
            if "ArchStdEvent" in e:
                events[e["ArchStdEvent"].lower()] = common[e["ArchStdEvent"].lower()]
    return entries, events


def scale_unit(m):
    """(factor text or None, unit) of a ScaleUnit: "100%" -> ("100", "%")."""
    s = m.get("ScaleUnit")
    if not s:
        return None, ""
    num, unit = re.fullmatch(r"([0-9.]+(?:e-?[0-9]+)?)(.*)", s).groups()
    return (None if float(num) == 1 else num), unit


# the terms of `cpu@EV\\,term\\=v@` that pmukit's event names carry
MODS = {"cmask": lambda v: f":c{int(v, 0)}", "edge": lambda v: ":e1", "inv": lambda v: ":i1",
        "umask": lambda v: f":u{int(v, 0):#x}"}


def pmu_event(tok):
    """A `pmu@event\\,mod\\=v@` token as pmukit's expression names it."""
    pmu, body, suffix = tok.split("@")
    parts = body.replace("\\", "").split(",")
    if pmu not in CORE_PMUS or suffix:
        return tok  # another PMU's event (msr, cstate), a privilege suffix: no core event
    if any(p.partition("=")[0] not in MODS for p in parts[1:]):
        return tok  # a term in config1 (offcore_rsp): no raw config says it
    out = parts[0] if parts[0] not in TOPDOWN else "PERF_METRICS." + TOPDOWN[parts[0]]
    for p in parts[1:]:
        k, _, v = p.partition("=")
        out += MODS[k](v)
    return out


def parser_name(tok):
    """The reference name pmukit's parser (lib/metrics/expr.c) gives tok."""
    name = re.sub(r"@([^@]*)@", lambda m: "/" + m.group(1).replace("\\", "") + "/", tok)
    return re.sub(r"\\(.)", r"\1", name)


def decide_cpuid(expr):
    """strcmp_cpuid_str(X) as the literal #midr_ge_X, which the engine
    answers from the CPU's MIDR (1: X's part at X's revision or later), and
    `L ^ 1` (xor binds tighter than |) as (1 - L)."""
    expr = re.sub(r"strcmp_cpuid_str\((0x[0-9a-fA-F]+)\)",
                  lambda m: "#midr_ge_0x%x" % int(m.group(1), 16), expr)
    return re.sub(r"(#midr_ge_0x[0-9a-f]+)\s*\^\s*1\b", r"(1 - \1)", expr)




class Cpu:
    def __init__(self, entries):
        self.by_name = {}
        for m in entries:
            if self.by_name.get(m["MetricName"], m) != m:  # amdzen4 repeats one, equal
                raise SystemExit(f"metric {m['MetricName']} defined twice, differently")
            self.by_name[m["MetricName"]] = m
        self.used = []

    def expr(self, name, depth=0):
        """The unscaled formula of metric name, references inlined."""
        if depth > 16:
            raise SystemExit(f"{name}: metric references nest too deep (a cycle?)")
        text = decide_cpuid(self.by_name[name]["MetricExpr"])
        return NAME.sub(lambda t: self.token(t.group(0), depth), text)

    def token(self, tok, depth):
        if tok in KEYWORDS or tok.startswith("#"):
            return tok
        if tok in self.by_name:
            return "( " + self.expr(tok, depth + 1) + " )"
        if tok == "duration_time":
            return "#duration_s"
        if "@" in tok:
            tok = pmu_event(tok)
        if parser_name(tok) in TOPDOWN:
            tok = "PERF_METRICS." + TOPDOWN[parser_name(tok)]
        if parser_name(tok) not in self.used:
            self.used.append(parser_name(tok))
        return tok

    def formula(self, name):
        factor, _ = scale_unit(self.by_name[name])
        e = re.sub(r"\s+", " ", self.expr(name)).strip()
        return f"{factor} * ( {e} )" if factor else e

    def threshold(self, name):
        t = self.by_name[name].get("MetricThreshold")
        if not t:
            return None

        def ref(m):
            n = m.group(0)
            f = scale_unit(self.by_name[n])[0] if n in self.by_name else None
            return f"( {n} / {f} )" if f else n
        return re.sub(r"\s+", " ", NAME.sub(ref, t)).strip()


def encode(name, events, kind):
    """The raw core config of a reference name, or None: no core event."""
    if name in GENERIC[kind.partition(":")[0]]:
        return GENERIC[kind.partition(":")[0]][name]
    base, *mods = name.split(":")
    if kind.startswith("intel") and name in INTEL_SYSFS:
        return INTEL_SYSFS[name]
    if kind.startswith("intel") and events.get(base, {}).get("Unit") in UNCORE:
        return None
    if kind.startswith("intel"):
        # perf's files leave out a zero EventCode or UMask (the fixed counters')
        perfmon = {k: dict({"EventCode": "0x00", "UMask": "0x00"}, **v) for k, v in events.items()}
        known = base in perfmon or base.startswith("PERF_METRICS.")
        return gen_intel.encode_core(name, perfmon) if known else None
    e = events.get(base.lower())
    if not e or "/" in base or e.get("Unit"):
        return None
    code = int(e["EventCode"], 16)
    if kind == "arm":
        return code
    cfg = (code & 0xff) | ((code >> 8) & 0xf) << 32 | (int(e.get("UMask", "0"), 16) & 0xff) << 8
    for m in mods:
        if re.fullmatch(r"c\d+", m):
            cfg |= int(m[1:]) << 24
        elif m == "e1":
            cfg |= 1 << 18
        elif m == "i1":
            cfg |= 1 << 23
        else:
            raise SystemExit(f"{name}: modifier '{m}' not known to the generator")
    return cfg


# Intel's uncore Units whose events pmukit opens on every instance of the
# PMU (uncore_cha_0 ... as perf): perf's PMU name for the Unit; an event
# with a field beyond EventCode and UMask stays unopened (spec NULL).
UNCORE = {"CHA": "uncore_cha", "iMC": "uncore_imc", "M2M": "uncore_m2m", "IRP": "uncore_irp",
          "PCU": "uncore_pcu", "UPI": "uncore_upi"}
UNCORE_FIELDS = {"BriefDescription", "PublicDescription", "EventName", "Unit", "EventCode", "UMask",
                 "Counter", "PerPkg", "Experimental", "Deprecated", "SampleAfterValue", "Errata"}


# Events of one-instance PMUs that metrics name by their sysfs alias
# (perf's msr PMU; TSC is its tsc): opened as written.
SYSFS_ALIAS = re.compile(r"msr/[a-z0-9_-]+/")


def uncore_spec(name, events, kind):
    """perf's event text for an Intel uncore event of a Unit in UNCORE
    (uncore_cha/event=0x0,umask=0x0/), the msr PMU's events (msr/tsc/,
    TSC), or None."""
    if name == "TSC" or SYSFS_ALIAS.fullmatch(name):
        return "msr/tsc/" if name == "TSC" else name
    e = events.get(name) if kind.startswith("intel") else None
    if not e or e.get("Unit") not in UNCORE or set(e) - UNCORE_FIELDS:
        return None
    code, umask = int(e.get("EventCode", "0"), 16), int(e.get("UMask", "0"), 16)
    return f"{UNCORE[e['Unit']]}/event={code:#x},umask={umask:#x}/"


def gen_cpu(data, d, cname, kind):
    entries, events = load(data, d, kind)
    if kind.startswith("intel"):  # perfmon keys by their EventName as written
        events = {e["EventName"]: e for e in events.values()}
    cpu = Cpu(entries)
    unit = kind.partition(":")[2]
    files = ', '.join(sorted(f for f in os.listdir(os.path.join(data, d)) if f != 'events.json'))
    out = [f"/* {d}: {files}{', Unit ' + unit if unit else ''} */",
           f"static const pk_metric_def {cname}_metrics[] = {{"]
    for name in sorted(cpu.by_name, key=str.lower):
        m = cpu.by_name[name]
        _, unit = scale_unit(m)
        thr = cpu.threshold(name)
        desc = re.sub(r"\s+", " ", m.get("BriefDescription", "")).strip()
        out.append(f"\t{{.name = {gen_intel.c_str(name)}, .formula = {gen_intel.c_str(cpu.formula(name))},")
        style = "PK_METRIC_SCALED" if m.get("ScaleUnit") else "PK_METRIC_UNSCALED"  # perf's %8.1f / %8.2f
        out.append(f"\t .unit = {gen_intel.c_str(unit)}, .style = {style},")
        out.append(f"\t .threshold = {gen_intel.c_str(thr) if thr else 'NULL'},")
        out.append(f"\t .description = {gen_intel.c_str(desc)},")
        out.append(f"\t .groups = {gen_intel.c_str(m.get('MetricGroup') or '')}}},")
    out.append("};")
    out.append(f"static const pki_metric_event {cname}_metric_events[] = {{")
    for name in sorted(cpu.used):
        cfg = encode(name, events, kind)
        spec = uncore_spec(name, events, kind) if cfg is None else None
        out.append(f"\t{{{gen_intel.c_str(name)}, {cfg if cfg is not None else 0:#x}, "
                   f"{'true' if cfg is not None else 'false'}"
                   f"{', ' + gen_intel.c_str(spec) if spec else ''}}},")
    out.append("};")
    return "\n".join(out)


def c_file(data):
    parts = ["/* Generated by lib/metrics/gen_perf_json.py from the Linux kernel's perf",
             " * metric and event files (tests/data/perfmon-perf, Linux 6.12.117,",
             " * GPL-2.0 data; intel/perfmon's, BSD-3-Clause, for graniterapids,",
             " * lunarlake, arrowlake): every metric per CPU, sorted by name, for `stat -M` and",
             " * `list metric`, with the raw core encoding of every event they name",
             " * (core false: not a core event). Do not edit: regenerate, and the test",
             " * metrics_perf_tables checks that this file equals what the files give. */",
             "#include \"metrics/metric_tables.h\"", ""]
    done = set()
    for d, cname, _, _, kind in CPUS:
        if cname not in done:
            parts += [gen_cpu(data, d, cname, kind), ""]
            done.add(cname)
    parts.append("const pki_metric_cpu_table pki_metric_perf[] = {")
    for d, cname, uarch, platform, kind in CPUS:
        unit = kind.partition(":")[2]
        parts.append(f"\tPKI_METRIC_CPU_TABLE(PKI_UARCH_{uarch}, {gen_intel.c_str(platform)}, "
                     f"{gen_intel.c_str(' '.join(['perf', d] + ([unit] if unit else [])))}, "
                     f"{cname}_metrics, {cname}_metric_events),")
    parts += ["};", f"const size_t pki_metric_perf_nr = {len(CPUS)};"]
    return "\n".join(parts) + "\n"


def extract(arch, data, dirs):
    """Copy each directory's metric files (the kernel's arch/<arch> files
    whose entries have a MetricName) unchanged into data/<dir>/, and write
    data/<dir>/events.json: the entries of its event files whose EventName
    a MetricExpr names as a word, in the kernel's file and entry order."""
    for d in dirs:
        src, dst = os.path.join(arch, d), os.path.join(data, d)
        os.makedirs(dst, exist_ok=True)
        mfiles, kept = [], []
        for f in sorted(os.listdir(src)):
            e = read(os.path.join(src, f)) if f.endswith(".json") else None
            if isinstance(e, list) and any("MetricName" in x and "EventName" not in x for x in e):
                mfiles.append(f)
                with open(os.path.join(src, f)) as i, open(os.path.join(dst, f), "w") as o:
                    o.write(i.read())
        text = " ".join(m.get("MetricExpr", "") for f in mfiles for m in read(os.path.join(src, f)))
        words = {w.lower() for w in re.findall(r"[A-Za-z0-9_.]+", text.replace("\\", ""))}
        for f in sorted(os.listdir(src)):
            if f in mfiles or f == "metricgroups.json" or not f.endswith(".json"):
                continue
            kept += [e for e in read(os.path.join(src, f)) if e.get("EventName", "").lower() in words]
        with open(os.path.join(dst, "events.json"), "w") as o:
            o.write(json.dumps(kept, indent=4) + "\n")


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--extract":
        extract(sys.argv[2], sys.argv[3], sys.argv[4:])
        return 0
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    data, target = sys.argv[1], sys.argv[2]
    text = c_file(data)
    if "--check" not in sys.argv[3:]:
        with open(target, "w") as f:
            f.write(text)
        return 0
    old = open(target).read() if os.path.exists(target) else ""
    if old != text:
        print(f"{target} differs from what {data} gives: run lib/metrics/gen_perf_json.py",
              file=sys.stderr)
        return 1
    print(f"{target}: equal to {data}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
