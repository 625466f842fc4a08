#!/usr/bin/env python3
"""stat -M on a machine without a core PMU (issue 24: perf's shell tests
stat_all_metrics.sh and stat_all_metricgroups.sh on a VM without PMU
virtualization): the metric still resolves in the CPU's table, the
command runs, each hardware event the metric needs is printed
`<not supported>`, the metric is named with `<not computed>` and what it
needs (never a number), one note on stderr says there is no core PMU, and
the exit status is 0, in the text, CSV (-x,) and JSON (-j) forms; a metric
of no event (#wall_ns: perf's duration_time) gets its value.

The machine is a sysfs tree written here with the software and tracepoint
PMUs only (PMUKIT_SYSFS), the CPU Cascade Lake (PMUKIT_CPUID), so the run
is the same on a host with a PMU. The wanted events come from the
metric's formula as `pmukit list --details metric` prints it (a command
other than the one checked), the wanted value of the metric of no event
from the time the command slept.

  metrics_nopmu.py PMUKIT"""
import json
import os
import re
import subprocess
import sys
import tempfile

CPUID = "GenuineIntel-6-55-7"
CPUID_EVENTLESS = "GenuineIntel-6-5E-3"  # Skylake
METRIC = "tma_backend_bound"
GROUP = "TopdownL1"
NOTE = "no core PMU"
NOT_COMPUTED = "<not computed>"
# an event name of Intel's formulas: UOPS_ISSUED.ANY, L1D_PEND_MISS.FB_FULL:c1
EVENT = re.compile(r"(?<![#\w.])([A-Z][A-Z0-9_]*\.[A-Za-z0-9_.]+(?::\w+)?)")

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def sysfs_tree(root):
    """A machine with the software and tracepoint PMUs, no core PMU."""
    for name, ty in (("software", 1), ("tracepoint", 2)):
        d = os.path.join(root, "bus/event_source/devices", name)
        os.makedirs(d)
        with open(os.path.join(d, "type"), "w") as f:
            f.write("%d\n" % ty)


def run(pk, env, *args):
    return subprocess.run([pk, *args], env=env, capture_output=True, text=True, timeout=120)


def details(pk, env):
    """Metric name -> its formula: the last bracketed line under its name
    in list --details (the description, then the formula)."""
    formulas, name = {}, None
    for line in run(pk, env, "list", "--details", "metric").stdout.splitlines():
        m = re.match(r"\s+\[(.*)\]$", line)
        if m and name:
            formulas[name] = m.group(1)
        else:
            name = line.strip() if re.fullmatch(r"  [\w.]+", line) else None
    return formulas


def events_of(formula):
    return sorted(set(EVENT.findall(formula)))


def check_text(pk, env, events):
    r = run(pk, env, "stat", "-M", METRIC, "true")
    check(r.returncode == 0, "text: exit status %d, not 0" % r.returncode)
    err = r.stderr
    for ev in events:
        check(re.search(r"^\s+<not supported>\s+%s\s*$" % re.escape(ev), err, re.M),
              "text: %s is not a <not supported> line" % ev)
    line = [l for l in err.splitlines() if l.rstrip().endswith(")") and METRIC in l]
    check(len(line) == 1 and NOT_COMPUTED in line[0] and "needs " in line[0],
          "text: no '# <not computed> ... %s (needs ...)' line" % METRIC)
    check(len(re.findall(r"^note: .*%s" % NOTE, err, re.M)) == 1,
          "text: not one note saying '%s'" % NOTE)


def check_csv(pk, env, events):
    r = run(pk, env, "stat", "-x,", "-M", METRIC, "true")
    check(r.returncode == 0, "csv: exit status %d, not 0" % r.returncode)
    rows = [l.split(",") for l in r.stderr.splitlines() if "," in l and not l.startswith("note:")]
    unsupported = {f[2] for f in rows if len(f) > 2 and f[0] == "<not supported>"}
    check(set(events) <= unsupported, "csv: not <not supported>: %s" % sorted(set(events) - unsupported))
    named = [f for f in rows if f[-1].endswith(METRIC)]
    check(len(named) == 1 and named[0][-2] == NOT_COMPUTED,
          "csv: no metric line '%s,...%s'" % (NOT_COMPUTED, METRIC))
    check(NOTE in r.stderr, "csv: no note saying '%s'" % NOTE)


def check_json(pk, env, events):
    r = run(pk, env, "stat", "-j", "-M", METRIC, "true")
    check(r.returncode == 0, "json: exit status %d, not 0" % r.returncode)
    objs = []
    for l in r.stderr.splitlines():
        if l.startswith("{"):
            objs.append(json.loads(l))
    unsupported = {o.get("event") for o in objs if o.get("counter-value") == "<not supported>"}
    check(set(events) <= unsupported, "json: not <not supported>: %s" % sorted(set(events) - unsupported))
    named = [o for o in objs if str(o.get("metric-unit", "")).endswith(METRIC)]
    check(len(named) == 1 and named[0].get("metric-value") == NOT_COMPUTED and
          named[0].get("metric-note", "").startswith("needs "),
          "json: no metric line with metric-value '%s' and a metric-note" % NOT_COMPUTED)
    check(NOTE in r.stderr, "json: no note saying '%s'" % NOTE)


def check_group(pk, env):
    """Every metric of a group is named (-a as stat_all_metricgroups.sh)."""
    r = run(pk, env, "stat", "-M", GROUP, "-a", "true")
    check(r.returncode == 0, "group: exit status %d, not 0" % r.returncode)
    for m in ("tma_frontend_bound", "tma_bad_speculation", "tma_retiring", "tma_backend_bound"):
        check(re.search(r"%s \(needs " % m, r.stderr), "group: %s is not named" % m)


def check_pseudo_groups(pk, env, formulas):
    """perf 6.1's -M No_group (the metrics of no group, as list shows them)
    and -M all (every metric): each named on a metric line."""
    for name, least in (("No_group", 1), ("all", len(formulas))):
        r = run(pk, env, "stat", "-x,", "-M", name, "true")
        named = {w[-1] for w in (l.split(",")[-1].split() for l in r.stderr.splitlines())
                 if w and w[-1] in formulas}
        check(r.returncode == 0 and len(named) >= least,
              "-M %s: exit %d, %d metrics named, not %d" % (name, r.returncode, len(named), least))


def eventless(formula):
    """Whether formula names no event: literals (#wall_ns, #duration_ms) and
    numbers only."""
    toks = re.findall(r"[#\w.\\@-]+", formula)
    return any(t.startswith("#") for t in toks) and all(
        t.startswith("#") or re.fullmatch(r"[\d.]+(e\d+)?", t) for t in toks)


def check_eventless(pk, env):
    """A metric of no event (Skylake's table has tma_info_system_time, the
    seconds measured): its value, here the seconds slept."""
    env = dict(env, PMUKIT_CPUID=CPUID_EVENTLESS)
    name = next((n for n, f in details(pk, env).items() if eventless(f)), None)
    check(name is not None, "no metric of no event in %s's table" % CPUID_EVENTLESS)
    if not name:
        return
    r = run(pk, env, "stat", "-x,", "-M", name, "sleep", "0.2")
    check(r.returncode == 0, "%s: exit status %d" % (name, r.returncode))
    vals = [l.split(",") for l in r.stderr.splitlines() if l.split(",")[-1].endswith(name)]
    check(len(vals) == 1 and re.fullmatch(r"[\d.]+", vals[0][-2]),
          "%s: not one metric line with a value: %s" % (name, vals))
    if vals and re.fullmatch(r"[\d.]+", vals[0][-2]):
        v = float(vals[0][-2])
        check(0.19 <= v < 2.0, "%s: %g, not the 0.2 s slept" % (name, v))


def main():
    pk = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        sysfs_tree(tmp)
        env = dict(os.environ, PMUKIT_SYSFS=tmp, PMUKIT_CPUID=CPUID, LC_ALL="C")
        formulas = details(pk, env)
        events = events_of(formulas.get(METRIC, ""))
        check(len(events) >= 4, "%s: its events not found in list --details" % METRIC)
        check_text(pk, env, events)
        check_csv(pk, env, events)
        check_json(pk, env, events)
        check_group(pk, env)
        check_pseudo_groups(pk, env, formulas)
        check_eventless(pk, env)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
