"""Bare TopDown metric events against Linux perf 6.1 (issue 22): on the Ice
Lake fixture PMU tree (perf-ns.sh), with counts served from read() by
tests/oracle/peo_stub.c, `perf stat [-x,|-j] -e {slots,topdown-*}` prints
each Level 1 event's share of the four ("#     30.2% Retiring") and pmukit
prints the same lines, also with a Level 1 event counting 0 (a share of
0.0%) and with all four 0 (no share). Compared:
every topdown-* line, the thousands separators perf's locale leaves out
and the padding removed.

  topdown_shadow_perf61.py SRCDIR PMUKIT
Exit 77 (skipped) without perf 6.1 or a mount namespace."""
import os
import subprocess
import sys

import oracle61

EVENTS = "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}"
# config -> value: slots, then the four Level 1 metric events (0x8000 + 0x100 x byte)
COUNTS = {"full": {0x400: 1000000, 0x8000: 302000, 0x8100: 51000, 0x8200: 149000, 0x8300: 498000},
          "fe-zero": {0x400: 1000000, 0x8000: 302000, 0x8100: 51000, 0x8200: 0, 0x8300: 498000},
          "all-zero": {0x400: 1000000, 0x8000: 0, 0x8100: 0, 0x8200: 0, 0x8300: 0}}


def run(src, tool, fmt, counts, stub):
    env = oracle61.stub_env(PERF_CPUID="GenuineIntel-6-7E-5", PK_PEO_COUNTS=counts)
    cmd = ["timeout", "60", "sh", os.path.join(src, "tests/oracle/perf-ns.sh"), "-p", stub,
           os.path.join(src, "tests/data/sysfs/icelake/bus/event_source/devices"),
           tool, "stat"] + fmt + ["-e", EVENTS, "-a", "sleep", "0.01"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp")
    return [" ".join(line.replace(",", "").split()) if not fmt else line
            for line in (p.stdout + p.stderr).splitlines() if "topdown-" in line]


def main():
    src, pk = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp, stub = oracle61.prepare(src, "pk-tdshadow-")
    if not tmp:
        return 77
    ptype = open(os.path.join(src, "tests/data/sysfs/icelake/bus/event_source/devices/cpu/type")).read().strip()
    bad = 0
    for name, values in COUNTS.items():
        counts = os.path.join(tmp, name)
        with open(counts, "w") as f:
            f.write("times enabled=1000000 running=1000000\n")
            for cfg, val in values.items():
                f.write(f"type={ptype} config={cfg:#x} config1=0x0 value={val}\n")
        for fmt in ([], ["-x,"], ["-j"]):
            a, b = run(src, "perf", fmt, counts, stub), run(src, pk, fmt, counts, stub)
            shares = sum("Retiring" in line for line in a)
            print(f"{name} {' '.join(fmt) or 'text'}: perf {len(a)} lines, pmukit {len(b)}, "
                  f"{'same' if a == b else 'DIFFERENT'} (Retiring share printed: {shares})")
            if len(a) != 4 or a != b or shares != (name != "all-zero"):
                bad += 1
                print("perf:\n  " + "\n  ".join(a) + "\npmukit:\n  " + "\n  ".join(b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
