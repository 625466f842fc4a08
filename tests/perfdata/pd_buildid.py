#!/usr/bin/env python3
"""pmukit's build-id cache and buildid-list against perf 6.1 (test
`perfdata_buildid`, issue 24: perf's shell test buildid.sh).

  cache    two small programs built here (--build-id=sha1 and =md5) added
           with `--buildid-dir DIR buildid-cache -a` by each tool into its
           own DIR: the same tree (every path under DIR, every link's
           target), the same `buildid-cache -l` (and perf's -l of pmukit's
           cache); then -r of one and -p of the other: the same trees again
  record   each tool records each program with --buildid-all into its own
           DIR: the same tree; a plain record: each tool's tree holds
           exactly the objects `perf buildid-list` lists of its own file
           (which ones a sample hits is chance); `perf report` and `pmukit
           report` read pmukit's file (with its cache) and print the same
           dso column
  list     `buildid-list` and `buildid-list -H` of the corpus
           (tests/data/perfdata-real) and of the recordings above: the same
           lines and status; perf's temporary vDSO copy
           (/tmp/perf-vdso.so-XXXXXX, the name perf gives a [vdso] it made
           without a build id) is read as [vdso]. Left out: files perf 6.1
           cannot read (status != 0, or it stops in the stream: "bad event
           header size", "unexpected end of event stream", "failed to process
           type", "Couldn't decompress"); pmukit reads them.

Skipped (77) without perf 6.1 or a C compiler.

usage: pd_buildid.py [--show] [--keep DIR]
  env PK_PMUKIT, PK_WORKLOAD, PK_SRCDIR
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import command_setup, run  # noqa: E402
from pd_real import unpack  # noqa: E402

PERF_FAILED = re.compile(r"bad event header size|unexpected end of event stream|"
                         r"failed to process type|Couldn't decompress")
VDSO_COPY = re.compile(r"/tmp/perf-vdso\.so-\w{6}")


class Check:
    def __init__(self, show):
        self.show, self.same, self.bad = show, 0, []

    def eq(self, what, ours, theirs):
        if ours == theirs:
            self.same += 1
            return True
        self.bad.append("%s%s" % (what, "\n  pmukit: %r\n  perf:   %r" % (ours, theirs)
                                  if self.show else ""))
        return False


def tree(top):
    """Every path under top (relative) with its kind, and a link's target."""
    out = []
    for root, dirs, files in os.walk(top):
        for n in sorted(dirs + files):
            p = os.path.join(root, n)
            rel = os.path.relpath(p, top)
            if os.path.islink(p):
                out.append("%s -> %s" % (rel, os.readlink(p)))
            else:
                out.append("%s%s" % (rel, "/" if os.path.isdir(p) else ""))
    return sorted(out)


def build_programs(tmp):
    """Two programs with sha1 and md5 build ids; [] when cc fails."""
    progs = []
    for kind in ("sha1", "md5"):
        exe = os.path.join(tmp, "ex_" + kind)
        rc, _, _ = run("echo 'int main(void) { return 0; }' | cc -Wl,--build-id=%s -o %s -x c -"
                       % (kind, exe), tmp)
        if rc:
            return []
        progs.append(exe)
    return progs


def cache_checks(c, pk, progs, tmp, env):
    dirs = {t: os.path.join(tmp, "cache-" + t) for t in ("perf", "pk")}
    tools = {"perf": "perf", "pk": pk}
    def each(cmd):
        for t in dirs:
            run("%s --buildid-dir %s buildid-cache %s" % (tools[t], dirs[t], cmd), tmp, env)
    each("-a %s" % ",".join(progs))
    c.eq("buildid-cache -a: tree", tree(dirs["pk"]), tree(dirs["perf"]))
    lists = [run("%s --buildid-dir %s buildid-cache -l" % (tools[t], d), tmp, env)[1]
             for t, d in (("pk", dirs["pk"]), ("perf", dirs["perf"]), ("perf", dirs["pk"]))]
    c.eq("buildid-cache -l", lists[0], lists[1])
    c.eq("perf's buildid-cache -l of pmukit's cache", lists[2], lists[1])
    each("-r %s" % progs[0])
    c.eq("buildid-cache -r: tree", tree(dirs["pk"]), tree(dirs["perf"]))
    each("-p %s" % progs[1])
    c.eq("buildid-cache -p: tree", tree(dirs["pk"]), tree(dirs["perf"]))


def listed_tree(listing):
    """The link paths and targets perf's cache layout gives the objects of a
    `perf buildid-list` listing."""
    out = []
    for line in listing.splitlines():
        bid, name = line.split(None, 1)
        where = name if name.startswith("/") else "/" + name
        out.append(".build-id/%s/%s -> ../..%s/%s" % (bid[:2], bid[2:], where, bid))
    return sorted(out)


def record_checks(c, pk, progs, tmp, env):
    """The recordings made (for the list checks)."""
    made = []
    tools = {"perf": "perf", "pk": pk}
    for i, prog in enumerate(progs):
        for opt in ("--buildid-all", ""):
            trees = {}
            for t in tools:
                d = os.path.join(tmp, "rc-%s-%d%s" % (t, i, opt))
                data = os.path.join(tmp, "%s-%d%s.data" % (t, i, opt))
                rc, _, err = run("%s --buildid-dir %s record %s -o %s %s" % (
                    tools[t], d, opt, data, prog), tmp, env)
                if not c.eq("%s record %s %s: status" % (t, opt, prog), rc, 0):
                    continue
                made.append(data)
                trees[t] = tree(d)
                if t != "pk":
                    continue
                # pmukit's cache holds what perf lists of pmukit's file (perf's
                # own cache now and then misses an object its listing names)
                links = [e for e in trees[t] if e.startswith(".build-id/") and " -> " in e]
                listing = run("perf buildid-list -i %s" % data, tmp, env)[1]
                c.eq("%s record %s %s: the cache holds what perf lists of the file" % (
                    t, opt, prog), links, listed_tree(listing))
                report_check(c, pk, data, d, tmp, env)
            if opt and len(trees) == 2:
                c.eq("record --buildid-all %s: tree" % prog, trees["pk"], trees["perf"])
    return made


def report_check(c, pk, data, cache, tmp, env):
    """Both tools' report of pmukit's file with pmukit's cache: the same
    dso column."""
    out = []
    for tool in (pk, "perf"):
        rc, o, _ = run("%s --buildid-dir %s report -i %s --stdio -q -s dso" % (tool, cache, data),
                       tmp, env)
        out.append((rc, sorted(l.split()[-1] for l in o.splitlines() if l.strip())))
    c.eq("report -s dso of %s" % os.path.basename(data), out[0], out[1])


def list_checks(c, pk, files, tmp, env):
    left_out = 0
    for path in files:
        for opt in ("", "-H"):
            prc, pout, perr = run("perf buildid-list -f %s -i %s" % (opt, path), tmp, env)
            if prc or PERF_FAILED.search(perr):
                left_out += 1
                continue
            krc, kout, _ = run("%s buildid-list %s -i %s" % (pk, opt, path), tmp, env)
            c.eq("buildid-list %s -i %s" % (opt, os.path.relpath(path, tmp)),
                 (krc, kout), (prc, VDSO_COPY.sub("[vdso]", pout)))
    return left_out


def main():
    a = command_setup(__doc__, "pk-buildid-")
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk, _, tmp, env = a
    try:
        progs = build_programs(tmp)
        if not progs:
            print("SKIP: no C compiler (cc) to build the programs")
            return 77
        c = Check(show)
        cache_checks(c, pk, progs, tmp, env)
        made = record_checks(c, pk, progs, tmp, env)
        files = [os.path.join(tmp, n) for n in
                 unpack(os.path.join(srcdir, "tests/data/perfdata-real"), tmp)]
        left_out = list_checks(c, pk, files + made, tmp, env)
        for b in c.bad:
            print("DIFF " + b)
        print("%d/%d identical (%d buildid-list views perf 6.1 cannot read left out)" % (
            c.same, c.same + len(c.bad), left_out))
        return 0 if not c.bad and c.same else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
