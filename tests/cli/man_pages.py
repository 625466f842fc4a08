#!/usr/bin/env python3
"""The man pages the build makes from the option tables (tools/pmukit/man.c,
`pmukit help --man`): every command of `pmukit --list-cmds` has its page in
the build (pmukit-CMD.1, so meson's list of pages follows the commands), the
page names every long option of `pmukit CMD --list-opts`, and groff reads
each page without a warning (-ww); pmukit.1 names every command.

  man_pages.py PMUKIT PAGES_DIR      exit 77 without groff"""
import os
import re
import shutil
import subprocess
import sys


def run(*args):
    return subprocess.run(args, capture_output=True, text=True)


def unescape(page):
    """The page's text with troff's escapes of '-' and fonts undone."""
    return re.sub(r"\\f[BIR]", "", page).replace("\\-", "-")


def check(pk, path, opts, names):
    bad = []
    if not os.path.exists(path):
        return [f"{os.path.basename(path)}: not built"]
    with open(path) as f:
        text = unescape(f.read())
    for o in opts:
        if not re.search(re.escape(o) + r"(?![\w-])", text):
            bad.append(f"{os.path.basename(path)}: no {o}")
    for n in names:
        if f"pmukit-{n}(1)" not in text:
            bad.append(f"{os.path.basename(path)}: no pmukit-{n}(1)")
    warn = run("groff", "-man", "-ww", "-z", path).stderr.strip()
    if warn:
        bad.append(f"{os.path.basename(path)}: groff: {warn.splitlines()[0]}")
    return bad


def main(argv):
    if not shutil.which("groff"):
        print("groff not installed: skipped")
        return 77
    pk, pages = argv[1], argv[2]
    cmds = run(pk, "--list-cmds").stdout.split()
    bad = check(pk, os.path.join(pages, "pmukit.1"), [], cmds)
    for c in cmds:
        opts = run(pk, c, "--list-opts").stdout.split()
        bad += check(pk, os.path.join(pages, f"pmukit-{c}.1"), opts, [])
    for b in bad:
        print("BAD", b)
    print(f"{len(cmds) + 1} pages, {len(bad)} problems")
    return 1 if bad or not cmds else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
