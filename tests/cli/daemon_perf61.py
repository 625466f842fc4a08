#!/usr/bin/env python3
"""pmukit daemon against perf daemon 6.1: both run on the same config (each
with its own base in a fresh temporary folder, side by side) through the same
steps, and what each says or leaves is compared once pids, bases and
timestamps are masked:
  - list: plain, -v and -x: (fields, session names, paths under the base),
  - ping (all, --session a, an unknown session),
  - a second start on the same base (refused: "failed: ..."),
  - signal (all): the answer, then the files --switch-output's session
    writes (perf.data.<timestamp>), and none in the session without it,
  - a change of the config file: session a's run= changed (restarted with a
    new pid, listed with its new run), session b removed (stopped),
  - stop: the server and its sessions gone, the files left in each session
    folder (names; perf's .debug, its build-id cache, left out: pmukit fills
    none), and the dumps readable by perf 6.1's report;
and, first, the channel the daemon speaks to its sessions: record
--control=fifo:ctl,ack driven by hand (ping, disable, enable, evlist, stop):
the ack bytes, what record says, the file perf 6.1 reads.
A daemon cannot outlive the test: each step has a timeout, and at the end
(or on any failure) the server's process group (it runs in its own session,
its records with it) is killed.

  daemon_perf61.py PMUKIT      exit 77 without perf 6.1"""
import concurrent.futures
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import oracle61

STEP_TIMEOUT = 60
CONFIG = """[daemon]
base={base}

[session-a]
run = -e cpu-clock -m 1 sleep 40

[session-b]
run = -e task-clock --switch-output -m 1 sleep 40
"""
CONFIG2 = """[daemon]
base={base}

[session-a]
run = -e cpu-clock -m 2 sleep 40
"""


class Run:
    """One tool's daemon on its own base: the steps' outputs, masked."""

    def __init__(self, tool, tmp):
        self.tool, self.tmp = tool, tmp
        self.base = os.path.join(tmp, "base")
        os.mkdir(self.base)
        self.config = os.path.join(tmp, "config")
        self.write_config(CONFIG)
        self.out = {}
        self.server = None

    def write_config(self, text):
        with open(self.config, "w") as f:
            f.write(text.format(base=self.base))

    def call(self, *args):
        """(status, stdout, stderr) of `TOOL daemon ARGS --config CONFIG`."""
        p = subprocess.run([self.tool, "daemon", *args, "--config", self.config],
                           capture_output=True, text=True, timeout=STEP_TIMEOUT,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def mask(self, text):
        text = text.replace(self.base, "BASE")
        text = re.sub(r"\b\d{16}\b", "TIMESTAMP", text)
        text = re.sub(r"(?m)^(\[?)\d+([:\],])", r"\1PID\2", text)
        text = re.sub(r"\[\d+\]", "[PID]", text)
        return re.sub(r"\b(perf|pmukit) record\b", "TOOL record", text)

    def until(self, what, check):
        t0 = time.time()
        while not check():
            if time.time() - t0 > STEP_TIMEOUT:
                raise RuntimeError(f"{self.tool}: timed out waiting for {what}")
            time.sleep(0.1)

    def pings(self, *names):
        return all(self.call("ping", "--session", n)[1].startswith("OK ") for n in names)

    def list_pid(self, name):
        for line in self.call("-x:")[1].splitlines():
            f = line.split(":")
            if len(f) > 1 and f[1] == name:
                return int(f[0])
        return None

    def files(self, session):
        d = os.path.join(self.base, "session-" + session)
        return sorted(self.mask(n) for n in os.listdir(d) if n != ".debug")

    def kill(self):
        """The server's process group killed (its sessions with it)."""
        if self.server:
            try:
                os.killpg(self.server, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def steps(self):
        rc, _, err = self.call("start")
        self.out["start"] = rc
        if rc:
            raise RuntimeError(f"{self.tool} daemon start: status {rc}: {err.strip()[:200]}")
        self.until("the lock", lambda: os.path.exists(os.path.join(self.base, "lock"))
                   and open(os.path.join(self.base, "lock")).read().strip())
        self.server = int(open(os.path.join(self.base, "lock")).read())
        self.until("the sessions' pings", lambda: self.pings("a", "b"))
        self.listing("list")
        for args in (("ping",), ("ping", "--session", "a"), ("ping", "--session", "zz")):
            self.out[" ".join(args)] = self.mask(self.call(*args)[1])
        rc, _, err = self.call("start")
        self.out["start again"] = err.split()[:1]
        self.signal()
        self.reconfig()
        self.stop()

    def listing(self, key):
        for args in ((), ("-v",), ("-x:",)):
            self.out[f"{key} {' '.join(args)}"] = self.mask(self.call(*args)[1])

    def signal(self):
        self.out["signal"] = self.mask(self.call("signal")[1])
        dumps = lambda: [n for n in os.listdir(os.path.join(self.base, "session-b"))
                         if re.fullmatch(r"perf\.data\.\d{16}", n)]
        self.until("the dump after the signal", lambda: len(dumps()) == 1)
        time.sleep(0.5)  # the new file begun
        self.out["files after signal"] = (self.files("a"), self.files("b"))

    def reconfig(self):
        old = self.list_pid("a")
        self.write_config(CONFIG2)
        self.until("session a restarted",
                   lambda: self.list_pid("a") not in (None, old) and self.pings("a"))
        self.until("session b stopped", lambda: self.list_pid("b") is None)
        self.listing("reconfig")

    def stop(self):
        self.out["stop"] = self.call("stop")[:2]
        self.until("the server's end", lambda: not os.path.exists(f"/proc/{self.server}"))
        self.out["files after stop"] = (self.files("a"), self.files("b"))
        b = os.path.join(self.base, "session-b")
        self.out["perf reads the dumps"] = sorted(
            subprocess.run(["perf", "report", "--stdio", "-i", os.path.join(b, n)],
                           capture_output=True, timeout=STEP_TIMEOUT).returncode
            for n in os.listdir(b) if n.startswith("perf.data."))


def control(tool, tmp):
    """record --control fifo:ctl,ack driven by hand: each command's answer
    on ack (bytes), what record says (its closing lines left out: perf's
    and pmukit's words differ), and whether perf 6.1 reads the file."""
    for n in ("ctl", "ack"):
        os.mkfifo(os.path.join(tmp, n))
    p = subprocess.Popen([tool, "record", "--control=fifo:ctl,ack", "-e", "cpu-clock",
                          "-o", "c.data", "sleep", "30"], cwd=tmp, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    ack = os.open(os.path.join(tmp, "ack"), os.O_RDWR)
    ctl = os.open(os.path.join(tmp, "ctl"), os.O_RDWR)
    out = {}
    try:
        for cmd in ("ping", "disable", "enable", "evlist", "stop"):
            os.write(ctl, (cmd + "\n").encode())
            ready = select.select([ack], [], [], STEP_TIMEOUT)[0]
            out["control " + cmd] = os.read(ack, 64) if ready else None
        so, se = p.communicate(timeout=STEP_TIMEOUT)
        out["control stdout"] = so
        out["control stderr"] = [l for l in se.splitlines() if not l.startswith("[ ")]
        out["control perf reads the file"] = subprocess.run(
            ["perf", "report", "--stdio", "-i", os.path.join(tmp, "c.data")],
            capture_output=True, timeout=STEP_TIMEOUT).returncode
    finally:
        os.close(ack)
        os.close(ctl)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return out


def run(tool, tmp):
    try:
        control_out = control(tool, tmp)
    except Exception as e:  # said in the comparison
        control_out = {"control error": str(e)}
    r = Run(tool, tmp)
    try:
        r.steps()
    except Exception as e:  # said in the comparison
        r.out["error"] = str(e)
    finally:
        r.kill()
    return {**control_out, **r.out}


def main(argv):
    if not oracle61.have_perf61():
        return 77
    tmp = tempfile.mkdtemp(prefix="pk-daemon-")
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            futs = [ex.submit(run, t, os.path.join(tmp, n))
                    for t, n in (("perf", "perf"), (os.path.abspath(argv[1]), "pmukit"))
                    if not os.mkdir(os.path.join(tmp, n))]
            perf, pk = (f.result() for f in futs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    bad, keys = 0, perf.keys() | pk.keys()
    for key in sorted(keys):
        if perf.get(key) != pk.get(key):
            bad += 1
            print(f"DIFF {key}:\n  perf 6.1: {perf.get(key)!r}\n  pmukit:   {pk.get(key)!r}")
    print(f"{len(keys) - bad} of {len(keys)} steps the same as perf 6.1's")
    return 1 if bad or "error" in perf else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
