#!/usr/bin/env python3
"""stat's further options of perf 6.1 (issue 24: -n, -S, -g, -D, --all-user,
--all-kernel, --pre, --post, --timeout, -r --table, --interval-clear,
--quiet, --scale, --hybrid-merge, --percore-show-thread, --control (its
fifos made here: enable, disable, ping, the acks), and the refusals of
-T, --smi-cost, --iostat, --filter, -c) against perf 6.1: both run the same
command on software events; stdout, stderr and the exit status must be the
same once every number is masked (counts and times differ between two runs,
the layout must not). A refusal compares its first line (perf follows it
with its usage) and the status. Values the options decide are checked too:
--all-kernel counts fewer page faults than --all-user, --timeout and -D
shorten the elapsed time. Software events only: this runs anywhere.

  stat_opts_perf61.py PMUKIT      exit 77 without perf 6.1"""
import os
import re
import select
import subprocess
import sys
import tempfile
import time

import oracle61

EV = ["-e", "task-clock,page-faults"]
BUSY = ["sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"]
# (options, workload, only the first stderr line: a refusal)
CASES = [
    (["-n"], ["true"], False),
    (["-n", "-r", "3"], ["true"], False),
    (["-n", "-x,"], ["true"], False),
    (["-n", "-j"], ["true"], False),
    (["-n"] + EV, ["true"], False),
    (["-S"] + EV, ["true"], False),
    (["-g"] + EV, ["true"], False),
    (["--all-user"] + EV, ["true"], False),
    (["--all-kernel"] + EV, ["true"], False),
    (["--pre", "echo PRE", "--post", "echo POST"] + EV, ["true"], False),
    (["--timeout", "200"] + EV, ["sleep", "1"], False),
    (["-r", "3", "--table"] + EV, ["true"], False),
    (["-D", "100"] + EV, ["sleep", "0.3"], False),
    (["-D", "-1"] + EV, ["true"], False),
    (["-I", "100", "--interval-count", "2", "--interval-clear"] + EV, ["sleep", "0.5"], False),
    (["--quiet"] + EV, ["true"], False),
    (["--scale", "--hybrid-merge", "--percore-show-thread"] + EV, ["true"], False),
    (["--timeout", "5"] + EV, ["true"], True),
    (["--timeout", "200", "-I", "100"] + EV, ["true"], True),
    (["--table"] + EV, ["true"], True),
    (["-T"], ["true"], True),
    (["--smi-cost"], ["true"], True),
    (["--iostat"], ["true"], True),
    (["--filter", "x"], ["true"], True),
    (["--control", "foo"], ["true"], True),
    (["-G", "/"] + EV, ["true"], True),  # perf's first refusal; pmukit refuses all -G
    (["-c"] + EV, ["true"], True),
]


def mask(text):
    out = []
    for line in text.splitlines():
        if line.startswith("note:"):  # pmukit's notes on a PMU-less machine
            continue
        line = re.sub(r"\d[\d.,]*", "N", line)
        line = re.sub(r"N ?[KMG]?/sec", "N/sec", line)  # the rate's unit follows the count
        line = re.sub(r"#+$", "#", line)  # --table's bars: one '#' per 5% off the mean
        line = re.sub(r"\([+-]N\)", "(N)", line)  # and a run's side of it
        # -r's noise: none when every run counted the same (either tool's runs)
        line = re.sub(r"\s*\(\s*\+-\s*N%\s*\)$", "", line)
        out.append(re.sub(r"\s+", " ", line).strip())
    return out


def run(tool, args, workload):
    p = subprocess.run([tool, "stat"] + args + workload, capture_output=True, text=True)
    return p


def elapsed(stderr):
    m = re.search(r"([\d.]+) seconds time elapsed", stderr)
    return float(m.group(1)) if m else None


def page_faults(stderr):
    m = re.search(r"^\s*([\d,]+)\s+page-faults", stderr, re.M)
    return int(m.group(1).replace(",", "")) if m else None


def refusal(p):
    lines = p.stderr.splitlines()
    first = lines[0] if lines else ""
    # pmukit names itself before an unknown option; perf says "Error: unknown switch"
    if re.search(r"unknown (option|switch)", first):
        first = "unknown option"
    return [first, p.returncode]


def compare(tool, args, workload, first_only):
    want, got = run("perf", args, workload), run(tool, args, workload)
    if first_only:
        w, g = refusal(want), refusal(got)
        if not w[0]:  # perf's bare usage: pmukit says what is wrong
            g[0] = ""
        return w, g, want, got
    w = [mask(want.stdout), mask(want.stderr), want.returncode]
    g = [mask(got.stdout), mask(got.stderr), got.returncode]
    return w, g, want, got


def values_ok(args, want, got):
    """What the option decides, in both tools' counts."""
    bad = []
    for name, p in (("perf", want), ("pmukit", got)):
        t = elapsed(p.stderr)
        if "--timeout" in args and (t is None or t > 0.6):
            bad.append(f"{name}: --timeout 200 on sleep 1 lasted {t} s")
        if "-D" in args and "100" in args and (t is None or t > 0.28):
            bad.append(f"{name}: -D 100 on sleep 0.3 counted {t} s")
    return bad


def kernel_below_user(tool):
    bad = []
    for name, t in (("perf", "perf"), ("pmukit", tool)):
        u = page_faults(run(t, ["--all-user"] + EV, ["true"]).stderr)
        k = page_faults(run(t, ["--all-kernel"] + EV, ["true"]).stderr)
        if u is None or k is None or not k < u:
            bad.append(f"{name}: page-faults --all-kernel {k}, --all-user {u}")
    return bad


def open_fifo(path, flags, deadline):
    """The fifo opened without blocking for ever: None past the deadline
    (the tool never opened its end)."""
    while time.monotonic() < deadline:
        try:
            return os.open(path, flags | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.02)
    return None


def read_ack(fd, deadline):
    got = b""
    while len(got) < 5 and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            chunk = os.read(fd, 5 - len(got))
            if not chunk and got:
                break
            got += chunk
    return got


def control(tool):
    """--control fifo:CTL,ACK with -D -1: enable, disable, ping sent while
    a shell loop runs on the CPU (no fork: the counters are the shell's;
    it runs until the commands are done, so a loaded machine cannot end it
    first); stderr's layout and the acks' bytes. Nothing blocks past 60 s."""
    with tempfile.TemporaryDirectory() as d:
        ctl, ack, mark = (os.path.join(d, n) for n in ("ctl", "ack", "mark"))
        os.mkfifo(ctl)
        os.mkfifo(ack)
        open(mark, "w").close()
        busy = ["sh", "-c", "while [ -e mark ]; do :; done"]  # in d: one command line
        exe = os.path.abspath(tool) if os.sep in tool else tool  # run in d
        p = subprocess.Popen([exe, "stat", "--control", f"fifo:{ctl},{ack}", "-D", "-1"]
                             + EV + busy, stderr=subprocess.PIPE, text=True, cwd=d)
        deadline = time.monotonic() + 60
        acks = b""
        a = open_fifo(ack, os.O_RDONLY, deadline)
        for cmd in (b"enable\n", b"disable\n", b"ping\n"):
            c = open_fifo(ctl, os.O_WRONLY, deadline) if a is not None else None
            if c is None:
                break
            os.write(c, cmd)
            os.close(c)
            acks += read_ack(a, deadline)
            time.sleep(0.1)
        os.unlink(mark)
        try:
            err = p.communicate(timeout=max(1, deadline - time.monotonic()))[1]
        except subprocess.TimeoutExpired:
            p.kill()
            err = p.communicate()[1] + "\n(killed after 60 s)"
        if a is not None:
            os.close(a)
        return [mask(err), acks, p.returncode]


def main(argv):
    if not oracle61.have_perf61():
        return 77
    bad = 0
    for args, workload, first_only in CASES:
        w, g, want, got = compare(argv[1], args, workload, first_only)
        why = values_ok(args, want, got) if not first_only else []
        ok = w == g and not why
        bad += not ok
        print(("ok  " if ok else "BAD ") + " ".join(args + workload))
        for line in why:
            print("  " + line)
        if w != g:
            print(f"  perf 6.1:\n    {w}\n  pmukit:\n    {g}")
    w, g = control("perf"), control(argv[1])
    bad += w != g
    print(("ok  " if w == g else "BAD ") + "--control fifo:ctl,ack -D -1 (enable, disable, ping)")
    if w != g:
        print(f"  perf 6.1:\n    {w}\n  pmukit:\n    {g}")
    for line in kernel_below_user(argv[1]):
        bad += 1
        print("BAD " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
