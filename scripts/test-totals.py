#!/usr/bin/env python3
"""Sums cmocka's per-binary results from meson's test logs into one line.
An argument build-failed:NAME is a suite that did not build: one failure."""
import json, re, sys

passed = failed = 0
binaries_failed = 0
for path in sys.argv[1:]:
    if path.startswith("build-failed:"):
        print(f"suite {path[13:]} did not build: its tests did not run")
        failed += 1
        continue
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"missing test log {path}: {e}")
        failed += 1
        continue
    for line in lines:
        t = json.loads(line)
        out = (t.get("stdout", "") or "") + (t.get("stderr", "") or "")
        p = sum(int(m) for m in re.findall(r"\[  PASSED  \] (\d+) test", out))
        f = sum(int(m) for m in re.findall(r"\[  FAILED  \] (\d+) test", out))
        if t.get("result") not in ("OK", "EXPECTEDFAIL", "SKIP") and f == 0:
            f = 1  # a crash or timeout before cmocka's summary still counts
        passed += p
        failed += f
print(f"total: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
