#!/usr/bin/env python3
"""Scenarios for bench/model/cost.sh (issue 26: the model's cost against
virtual time, phases and threads). Writes NAME.json into the folder given:
  max2      one thread, two phases at the documented maximum (ms = 1e7)
  ph8000    one thread, 8,000 phases of 1 ms
  ph100000  one thread, 100,000 phases of 1 ms
  thr200    200 threads, one CPU each, two 500 ms phases
  thr400    400 threads, one CPU each, two 500 ms phases
  big       1,000 threads (one CPU each) x 100 phases of 1 ms = 100,000 phases
  shared    two threads on CPU 0 (time-sliced), two 1,000 s phases each
Deterministic: the same files every run."""
import json
import os
import sys

TMA = [
    {"retiring": 0.30, "bad_speculation": 0.10, "frontend_bound": 0.25, "backend_bound": 0.35},
    {"retiring": 0.60, "bad_speculation": 0.05, "frontend_bound": 0.10, "backend_bound": 0.25},
]


def phases(n, ms):
    return [{"ms": ms, "ghz": 3.0 if i % 2 == 0 else 2.5, "ip": "0x%x" % (0x401000 + 0x1000 * (i % 2)),
             "tma": TMA[i % 2]} for i in range(n)]


def threads(n, nph, ms, cpu=None):
    return [{"tid": 10000 + i, "comm": "b%d" % i, "cpu": i if cpu is None else cpu,
             "phases": phases(nph, ms)} for i in range(n)]


CASES = {
    "max2": threads(1, 2, 1e7),
    "ph8000": threads(1, 8000, 1),
    "ph100000": threads(1, 100000, 1),
    "thr200": threads(200, 2, 500),
    "thr400": threads(400, 2, 500),
    "big": threads(1000, 100, 1),
    "shared": threads(2, 2, 1e6, cpu=0),
}

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, th in CASES.items():
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"machine": "sapphirerapids", "threads": th}, f)
