#!/usr/bin/env python3
"""stat --summary and --no-csv-summary (issue 24) against perf 6.1: both
count the same command with -I and --interval-count, in CSV (-x), JSON (-j)
and text, and without -I; the lines must be the same once every number is
masked (counts and times differ between two runs, the layout must not:
the "summary" time column, the totals' lines after the intervals, none
with --no-csv-summary). Software events only: this runs anywhere.

  stat_summary_perf61.py PMUKIT      exit 77 without perf 6.1"""
import re
import subprocess
import sys

import oracle61

CMD = ["-e", "task-clock,page-faults", "-I", "100", "--interval-count", "2"]
CASES = [["-x,", "--summary"], ["-x,", "--summary", "--no-csv-summary"],
         ["-x;", "--summary"], ["-j", "--summary"], ["--summary"]]
NO_I = [["-e", "task-clock,page-faults", "-x,", "--summary"],
        ["-e", "task-clock,page-faults", "-x,"]]
WORKLOAD = ["sleep", "0.5"]


def masked(tool, args):
    p = subprocess.run([tool, "stat"] + args + WORKLOAD, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{tool} stat {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    out = []
    for line in p.stderr.splitlines():
        if line.startswith("note:"):  # pmukit's notes on a PMU-less machine
            continue
        line = re.sub(r"\d[\d.,]*", "N", line)
        line = re.sub(r"N ?[KMG]?/sec", "N/sec", line)  # the rate's unit follows the count
        out.append(re.sub(r"\s+", " ", line).strip())
    return out


def main(argv):
    if not oracle61.have_perf61():
        return 77
    bad = 0
    for args in [CMD + c for c in CASES] + NO_I:
        want, got = masked("perf", args), masked(argv[1], args)
        ok = want == got
        bad += not ok
        print(("ok  " if ok else "BAD ") + " ".join(args))
        if not ok:
            print("  perf 6.1:\n    " + "\n    ".join(want))
            print("  pmukit:\n    " + "\n    ".join(got))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
