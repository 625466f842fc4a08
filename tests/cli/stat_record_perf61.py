#!/usr/bin/env python3
"""stat record, stat report and script on stat files (issue 24) against
perf 6.1. Both tools record the same command with software events (a
file, a pipe, a group, -a) into files of their own; then each view
(stat report, its -x, -j and -A, script, script -D, report -D, evlist
-v) is run by both
tools on every one of the four files:

  - on the same file, the two outputs must be identical, byte for byte
    (what pmukit reads from perf's file is what perf reads from it, and
    perf's reading of pmukit's file is pmukit's);
  - perf's own stderr on pmukit's files must say nothing (no warning);
  - pmukit's file must have the form of perf's: the same record types in
    the same order, the same script lines and stat report once every
    number is masked (two runs count differently; the command line in
    stat report's header is each recording's own).

  stat_record_perf61.py PMUKIT      exit 77 without perf 6.1"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import oracle61

EVENTS = "task-clock,page-faults,{context-switches,cpu-migrations}"
CASES = {  # name: (stat record's options, pipe)
    "file": (["-e", EVENTS], False),
    "pipe": (["-e", "task-clock,page-faults"], True),
    "all-cpus": (["-a", "-e", "task-clock,page-faults"], False),
}
WORKLOAD = {"file": ["true"], "pipe": ["true"], "all-cpus": ["sleep", "0.1"]}
VIEWS = [["stat", "report"], ["stat", "-x,", "report"], ["stat", "-j", "report"],
         ["stat", "report", "-A"], ["script"], ["script", "-D"], ["report", "-D"],
         ["evlist", "-v"]]


def record(tool, case, path):
    opts, pipe = CASES[case]
    args = [tool, "stat", "record", "-o", "-" if pipe else path] + opts + WORKLOAD[case]
    with open(path, "wb") as out:
        p = subprocess.run(args, stdout=out if pipe else subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    if p.returncode or not os.path.getsize(path):
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr.decode()}")


def view(tool, args, path):
    p = subprocess.run([tool] + args + ["-i", path], capture_output=True, text=True,
                       cwd=os.path.dirname(path))
    return p.returncode, p.stdout, p.stderr


def masked(text):
    out = []
    for line in text.splitlines():
        if "Performance counter stats for" in line or line.startswith("# started on"):
            continue  # the recording's own command line
        line = re.sub(r"0x[0-9a-f]+|\d[\d.,]*", "N", line)
        line = re.sub(r"N ?[KMG]?/sec", "N/sec", line)
        out.append(re.sub(r"\s+", " ", line).strip())
    return out


def record_types(dump):
    return re.findall(r"PERF_RECORD_\w+", dump)


def compare_same_file(pk, files):
    bad = 0
    for case, paths in files.items():
        for who, path in paths.items():
            for args in VIEWS:
                want, got = view("perf", args, path), view(pk, args, path)
                ok = want == got
                if who == "pmukit" and want[2].strip() and args[-1] == "-D":
                    ok = False  # perf has something to say about pmukit's file
                bad += not ok
                print(("ok  " if ok else "BAD ") + f"{case} {who}'s file: {' '.join(args)}")
                if not ok:
                    print(f"  perf 6.1: {want}\n  pmukit:   {got}")
    return bad


def compare_form(pk, files):
    bad = 0
    for case, paths in files.items():
        for args, form in ((["report", "-D"], record_types), (["script"], masked),
                           (["stat", "report"], masked)):
            a, b = (view("perf", args, paths[w]) for w in ("perf", "pmukit"))
            want, got = form(a[1] + a[2]), form(b[1] + b[2])
            ok = want == got
            bad += not ok
            print(("ok  " if ok else "BAD ") + f"{case}: the files' form, {' '.join(args)}")
            if not ok:
                print("  perf's file:\n    " + "\n    ".join(want))
                print("  pmukit's file:\n    " + "\n    ".join(got))
    return bad


def main(argv):
    if not oracle61.have_perf61():
        return 77
    pk = os.path.abspath(argv[1])
    tmp = tempfile.mkdtemp(prefix="stat_record_perf61.")
    try:
        files = {}
        for case in CASES:
            files[case] = {}
            for who, tool in (("perf", "perf"), ("pmukit", pk)):
                path = os.path.join(tmp, f"{case}.{who}.data")
                record(tool, case, path)
                files[case][who] = path
        bad = compare_same_file(pk, files) + compare_form(pk, files)
    finally:
        shutil.rmtree(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
