#!/usr/bin/env python3
"""`pmukit script report stackcollapse|flamegraph` against perf 6.1's
`perf script report stackcollapse|flamegraph` (its python scripts; test
`perfdata_flame`, issue 24): the same bytes and status.

  files     recordings made here by perf (cpu-clock -g of the workload, a
            system-wide -a -g sleep 0.2 one when allowed, one without -g)
            and corpus files (tests/data/perfdata-real) both tools read
            alike; perf's report scripts read ./perf.data (6.1 drops
            script's -i), so each run is in a directory where perf.data
            links to the file, pmukit's flamegraph run with -i
  views     stackcollapse with each option (--include-tid, --include-pid,
            both, --no-comm, --tidy-java, --kernel) on the recordings, with
            none and with --kernel --include-pid --include-tid on the
            corpus, --max-stack 3 on the recordings (on the corpus' dwarf
            and lbr files perf cuts the unwound chains by other rules:
            contentsize.data, vector_static_gcc_perf.lbr.data differ);
            flamegraph -f json -o - on all
  left out  corpus files where pmukit's plain `script` already prints other
            chains than perf's (a [vdso] frame: perf symbolizes it with this
            host's vdso; docs/perfdata-differences.md) and one where perf's
            python sees 233 of the 242 samples perf script prints
  also      the HTML page (-f html, the default) holds the JSON and no
            external URL; an unknown report name gets perf's words and
            status; script -l names both reports

Skipped (77) without perf 6.1 or without its python scripting.

usage: pd_flame.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import command_setup, run  # noqa: E402
from pd_real import unpack  # noqa: E402

CORPUS = ["quipper/perf.data.callgraph-3.8", "quipper/perf.data.callgraph_and_branch-3.8",
          "quipper/perf.data.forkexit-3.8", "quipper/perf.data.systemwide.5-3.8",
          "quipper/perf.data.piped.target-3.8", "quipper/with-callchain.perf.data",
          "perfparser/contentsize.data", "perfparser/vector_static_gcc_perf.lbr.data"]
FOLD_OPTS = ["", "--include-tid", "--include-pid", "--include-pid --include-tid",
             "--no-comm", "--tidy-java", "--kernel"]
CORPUS_OPTS = ["", "--kernel --include-pid --include-tid"]


class Check:
    def __init__(self, pk, tmp, env, show):
        self.pk, self.tmp, self.env, self.show = pk, tmp, env, show
        self.same = self.checked = 0
        self.bad = []

    def at(self, path):
        """A directory where perf.data links to path."""
        d = os.path.join(self.tmp, "at")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        os.symlink(os.path.abspath(path), os.path.join(d, "perf.data"))
        return d

    def compare(self, what, perf_cmd, pk_cmd, cwd):
        prc, pout, perr = run(perf_cmd, cwd, self.env)
        krc, kout, kerr = run(pk_cmd, cwd, self.env)
        self.checked += 1
        if prc == krc == 0 and pout == kout and pout:
            self.same += 1
            return
        self.bad.append("%s: status %d vs %d, %d vs %d bytes%s" % (
            what, krc, prc, len(kout), len(pout),
            "\n  pmukit: %r\n  perf:   %r\n  %s %s" % (kout[:300], pout[:300], kerr, perr)
            if self.show else ""))

    def views(self, name, path, fold_opts):
        d = self.at(path)
        for opt in fold_opts:
            self.compare("%s stackcollapse '%s'" % (name, opt),
                         "perf script report stackcollapse -- %s" % opt,
                         "%s script report stackcollapse %s" % (self.pk, opt), d)
        if fold_opts is FOLD_OPTS:  # frame-pointer chains (see the docstring)
            self.compare("%s stackcollapse --max-stack 3" % name,
                         "perf script report stackcollapse --max-stack 3",
                         "%s script report stackcollapse --max-stack 3" % self.pk, d)
        self.compare("%s flamegraph json" % name,
                     "perf script report flamegraph -f json -o -",
                     "%s script -i %s report flamegraph -f json -o -" % (self.pk, path), d)


def perf_has_python(tmp, env):
    rc, out, _ = run("perf version --build-options", tmp, env)
    if rc or not re.search(r"libpython: \[ on", out):
        return False
    rc, out, _ = run("perf script -l", tmp, env)
    return rc == 0 and "stackcollapse" in out and "flamegraph" in out


def check_html(c, path):
    """The page: its JSON block is pk's JSON, no external URL, the header."""
    out = os.path.join(c.tmp, "fg.html")
    rc, said, err = run("%s script -i %s report flamegraph -o %s" % (c.pk, path, out), c.tmp, c.env)
    _, js, _ = run("%s script -i %s report flamegraph -f json -o -" % (c.pk, path), c.tmp, c.env)
    c.checked += 1
    errors = []
    if rc or said != "dumping data to %s\n" % out:
        errors.append("status %d, said %r %s" % (rc, said, err))
    else:
        with open(out, encoding="utf-8") as f:
            page = f.read()
        m = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
        if not m or json.loads(m.group(1).replace("<\\/", "</")) != json.loads(js):
            errors.append("the page's data is not the JSON")
        if re.search(r"(https?:)?//[\w.-]+\.\w|\b(src|href)\s*=", page):
            errors.append("an external reference")
        if "<details" not in page or "# captured on" not in page:
            errors.append("no header block")
    if errors:
        c.bad.append("html: " + "; ".join(errors))
    else:
        c.same += 1


def check_cli(c):
    prc, _, perr = run("perf script report nosuch", c.tmp, c.env)
    krc, _, kerr = run("%s script report nosuch" % c.pk, c.tmp, c.env)
    c.checked += 2
    if (krc, kerr) == (prc, perr):
        c.same += 1
    else:
        c.bad.append("unknown name: %d %r vs perf %d %r" % (krc, kerr, prc, perr))
    _, plist, _ = run("perf script -l", c.tmp, c.env)
    krc, klist, _ = run("%s script -l" % c.pk, c.tmp, c.env)
    lines = [ln for ln in plist.splitlines() if re.match(r"  (flamegraph|stackcollapse) ", ln)]
    if krc == 0 and klist.splitlines()[1:] == lines:
        c.same += 1
    else:
        c.bad.append("script -l: %r" % klist)


def record(c, wl):
    made = []
    for name, opts in (("g.data", "-e cpu-clock -g -- %s 50 2000000" % wl),
                       ("a.data", "-a -g -- sleep 0.2"),
                       ("nog.data", "-e cpu-clock -- %s 50 1000000" % wl)):
        rc, _, err = run("perf record -q -o %s %s" % (name, opts), c.tmp, c.env)
        if rc == 0:
            made.append(os.path.join(c.tmp, name))
        else:
            print("perf record %s failed here (%s): left out" % (opts, err.strip()[:80]))
    return made


def main():
    a = command_setup(__doc__, "pk-flame-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, wl, tmp, env = a
    try:
        if not perf_has_python(tmp, env):
            print("SKIP: perf 6.1 without python scripting (its report scripts)")
            return 77
        c = Check(pk, tmp, env, show)
        made = record(c, wl)
        for path in made:
            c.views(os.path.basename(path), path, FOLD_OPTS)
        corpus = os.path.join(tmp, "corpus")
        os.makedirs(corpus)
        unpack(os.path.join(srcdir, "tests/data/perfdata-real"), corpus)
        for name in CORPUS:
            c.views(name, os.path.join(corpus, name), CORPUS_OPTS)
        if made:
            check_html(c, made[0])
        check_cli(c)
        for b in c.bad:
            print("DIFF " + b)
        print("%d/%d identical" % (c.same, c.checked))
        return 0 if not c.bad and made else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
