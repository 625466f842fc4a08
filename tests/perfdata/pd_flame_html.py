#!/usr/bin/env python3
"""The page of `pmukit script report flamegraph` (-f html, the default; test
`perfdata_flame_html`, issue 24), without perf: on a corpus file with call
chains (tests/data/perfdata-real), the page says where it went, holds the
tree as the JSON `-f json` writes, the file's header in its block, and no
external URL (nothing fetched at view time). pd_flame.py checks the JSON
against perf 6.1's.

usage: pd_flame_html.py   env PK_PMUKIT, PK_SRCDIR
"""
import lzma
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_flame import Check, check_html  # noqa: E402

FILE = "quipper/perf.data.callgraph-3.8"


def main():
    pk = os.environ.get("PK_PMUKIT")
    if not pk or len(sys.argv) > 1:
        print(__doc__)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    srcdir = os.environ.get("PK_SRCDIR", os.path.join(here, "..", ".."))
    tmp = tempfile.mkdtemp(prefix="pk-flame-html-")
    try:
        path = os.path.join(tmp, "cg.data")
        with lzma.open(os.path.join(srcdir, "tests/data/perfdata-real", FILE + ".xz")) as src, \
             open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        c = Check(os.path.abspath(pk), tmp, dict(os.environ), True)
        check_html(c, path)
        for b in c.bad:
            print("FAIL " + b)
        print("%d/%d checks pass" % (c.same, c.checked))
        return 0 if not c.bad else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
