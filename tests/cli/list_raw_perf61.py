#!/usr/bin/env python3
"""list --raw-dump (issue 24; what perf's shell tests stat_all_pmu.sh,
stat_all_metrics.sh and stat_all_metricgroups.sh iterate over) against
perf 6.1 on this machine: the PMU events' section byte for byte (names,
sorted, each followed by a space); the software events' names with the
tool events (duration_time, user_time, system_time) as perf's; and the metrics and metric groups as the same names, in the same
order, as `list metric` and `list metricgroup` print (pmukit's tables are
not perf 6.1's).

  list_raw_perf61.py PMUKIT      exit 77 without perf 6.1"""
import subprocess
import sys

import oracle61


def out(tool, *args):
    p = subprocess.run([tool, "list"] + list(args), capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{tool} list {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def listed(text, header):
    """The names of a `list metric` or `list metricgroup` listing."""
    lines = text.split(header + ":\n", 1)[1].splitlines()
    return [w.strip() for w in lines if w.strip() and not w.strip().startswith("[")]


def main(argv):
    if not oracle61.have_perf61():
        return 77
    pk = argv[1]
    checks = [("pmu", out("perf", "--raw-dump", "pmu"), out(pk, "--raw-dump", "pmu")),
              ("sw", out("perf", "--raw-dump", "sw"), out(pk, "--raw-dump", "sw")),
              ("metrics", listed(out(pk, "metric"), "Metrics"), out(pk, "--raw-dump", "metrics").split()),
              ("metricgroups", listed(out(pk, "metricgroup"), "Metric Groups"),
               out(pk, "--raw-dump", "metricgroups").split())]
    bad = 0
    for name, want, got in checks:
        ok = want == got and (name != "pmu" or got.endswith(" ") or not got)
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} --raw-dump {name}")
        if not ok:
            print(f"  want: {want!r}\n  got:  {got!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
