#!/usr/bin/env python3
"""The shared library exports exactly the public API.

Public means: a function declared in include/pmukit/*.h. Everything else the
library defines is internal (a `pki_` name, or static) and must not be in the
dynamic symbol table, so that programs cannot come to depend on it. The
other direction is checked too: every public declaration is exported (a
declaration without a definition, or one hidden by mistake, fails here
rather than at a user's link).

Usage: check_exports.py NM LIBPMUKIT_SO INCLUDE_DIR
Prints cmocka's summary lines so that scripts/test-totals.py counts it.
"""
import pathlib
import re
import subprocess
import sys


def exported(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":  # A: the version node
            names.add(parts[2].split("@")[0])
    return names


def declared(incdir):
    names = set()
    for h in sorted(pathlib.Path(incdir).glob("*.h")):
        text = h.read_text()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
        for decl in text.split(";"):
            if "typedef" in decl or "static" in decl:
                continue
            m = re.search(r"\b(pk_\w+)\s*\(", decl)
            if m:
                names.add(m.group(1))
    return names


def main():
    nm, lib, incdir = sys.argv[1:4]
    exp, dec = exported(nm, lib), declared(incdir)
    checks = [
        ("exported but not declared in include/pmukit (make it static or "
         "name it pki_)", sorted(exp - dec)),
        ("declared in include/pmukit but not exported", sorted(dec - exp)),
    ]
    failed = 0
    for what, names in checks:
        if names:
            failed += 1
            print(f"{len(names)} symbols {what}:")
            for n in names:
                print(f"  {n}")
    print(f"{len(exp)} exported, {len(dec)} declared")
    if failed:
        print(f"[  FAILED  ] {failed} test(s)")
    print(f"[  PASSED  ] {len(checks) - failed} test(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
