#!/usr/bin/env python3
"""`pmukit lock contention` on bad input (test `perfdata_lock_bad`, issue
24; no perf needed): files made here by pmukit record.

  no tracepoints   a cpu-clock recording: perf 6.1's words "No trace sample
                   to read. Did you call 'perf lock record'?", status 234
  no lock events   a sched:sched_process_exec recording (left out when the
                   tracepoint cannot be recorded here): "lock contention
                   evsel not found", status 234
  damaged          a lock recording cut short (the reader's warnings on it,
                   perf's 234 or the 255 of a file error), an empty file (an
                   error naming it, 255 as perf's): no crash
  bad options      -k and -F with unknown words: perf's words, status 234;
                   -b refused (129) as perf 6.1 without BPF refuses it

usage: pd_lock_bad.py   env PK_PMUKIT
"""
import os
import shutil
import subprocess
import sys
import tempfile

NO_TRACE = "No trace sample to read. Did you call 'perf lock record'?\n"
NO_LOCK = "lock contention evsel not found\n"


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, errors="replace",
                       timeout=120)
    return p.returncode, p.stderr


def main():
    pk = os.environ.get("PK_PMUKIT")
    if not pk:
        print("PK_PMUKIT must name the built pmukit")
        return 2
    tmp = tempfile.mkdtemp(prefix="pk-lockbad-")
    bad = []

    def expect(what, got, status, text=None):
        rc, err = got
        if rc != status or (text is not None and err != text):
            bad.append("%s: status %d (want %d), stderr %r" % (what, rc, status, err[:300]))

    try:
        rc, err = run([pk, "record", "-q", "-e", "cpu-clock", "-o", "notp.data", "--", "true"], tmp)
        if rc:
            bad.append("pmukit record -e cpu-clock failed: %s" % err[:200])
        else:
            expect("no tracepoints", run([pk, "lock", "contention", "-i", "notp.data"], tmp), 234,
                   NO_TRACE)
            expect("no tracepoints, -k bad", run([pk, "lock", "con", "-i", "notp.data", "-k", "x"],
                                                 tmp), 234, NO_TRACE)
        rc, _ = run([pk, "record", "-q", "-e", "sched:sched_process_exec", "-o", "nolock.data",
                     "--", "true"], tmp)
        if rc:
            print("sched:sched_process_exec cannot be recorded here: no-lock-events case left out")
        else:
            expect("no lock events", run([pk, "lock", "con", "-i", "nolock.data"], tmp), 234,
                   NO_LOCK)
        rc, err = run([pk, "lock", "record", "-q", "-o", "lock.data", "--", pk, "bench", "sched",
                       "messaging", "-g", "1", "-l", "5"], tmp)
        if rc:
            print("pmukit lock record cannot record here (%s): cut-short case left out" %
                  err.strip()[-120:])
        else:
            expect("-k bad", run([pk, "lock", "con", "-i", "lock.data", "-k", "x"], tmp), 234,
                   "Unknown compare key: x\n")
            expect("-F bad", run([pk, "lock", "con", "-i", "lock.data", "-F", "x,contended"], tmp),
                   234, "Unknown output field: x\n")
            data = open(os.path.join(tmp, "lock.data"), "rb").read()
            with open(os.path.join(tmp, "cut.data"), "wb") as f:
                f.write(data[:len(data) // 2])
            rc, err = run([pk, "lock", "con", "-i", "cut.data"], tmp)
            if rc not in (234, 255) or "warning: " not in err:
                bad.append("cut short: status %d, stderr %r" % (rc, err[:300]))
        open(os.path.join(tmp, "empty.data"), "wb").close()
        rc, err = run([pk, "lock", "con", "-i", "empty.data"], tmp)
        if rc != 255 or "empty.data" not in err:
            bad.append("empty file: status %d, stderr %r" % (rc, err[:300]))
        expect("-b", run([pk, "lock", "con", "-b", "true"], tmp), 129)
        for b in bad:
            print("FAIL " + b)
        print("%s" % ("ok" if not bad else "%d failed" % len(bad)))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
