#!/usr/bin/env python3
"""pmukit probe against perf probe 6.1 (issue 24: the shell tests
record+probe_libc_inet_pton.sh and test_uprobe_from_different_cu.sh), live
through this machine's tracefs, on two small binaries the test builds (one
with DWARF, its foo() in an LTO unit as in test_uprobe_from_different_cu.sh,
and a static function; one without, the symbol table only):
  - each tool adds the same probes (FUNC, a static FUNC, FUNC%return,
    FUNC+OFF on the binary without DWARF, FUNC again with -f; a name taken,
    in another group too, without -f; -q): its
    uprobe_events lines (group, event, binary, file offset) and its messages
    (stderr) identical;
  - -l of the test's groups and -d's messages identical;
  - record -e GROUP:foo/max-stack=3/ of the binary by each tool: the attrs
    (sample_type, sample_max_stack) and script's sample with its call chain
    identical (what record+probe_libc_inet_pton.sh checks on ping);
  - --funcs (no filter, globs, '|' and '&' '!' filters) on both binaries and
    on this system's libc identical;
  - bad input: a missing function (with and without DWARF), a name taken
    without -f, a missing binary: perf's words (its first line) and exit status.
Every probe the test adds is removed at the end, also on failure (its groups
are named after binaries with this process's id).

  probe_perf61.py PMUKIT      exit 77 without perf 6.1, gcc, root or uprobes"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import oracle61

FOO = """struct t { int *p; int c; };
int foo(int i, struct t *t)
{
  int j, res = 0;
  for (j = 0; j < i && j < t->c; j++)
    res += t->p[j];
  return res;
}
"""
MAIN = """struct t { int *p; int c; };
extern int foo(int i, struct t *t);
static struct t g;
static int __attribute__((noinline)) bar(int x) { return x * 3 + g.c; }
int main(int argc, char **argv)
{
  int i;
  int j[argc];
  g.c = argc;
  g.p = j;
  for (i = 0; i < argc; i++)
    j[i] = (int) argv[i][0];
  return foo(3, &g) + bar(argc);
}
"""


def tracefs():
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.access(os.path.join(d, "uprobe_events"), os.W_OK):
            return d
    return None


def build(tmp, name, debug):
    """A binary of FOO (LTO) and MAIN, with DWARF or without."""
    g = ["-g", "-Og"] if debug else ["-O1"]
    for src, text, extra in (("foo.c", FOO, ["-flto"] if debug else []), ("main.c", MAIN, [])):
        with open(os.path.join(tmp, src), "w") as f:
            f.write(text)
        subprocess.run(["gcc"] + g + extra + ["-c", src, "-o", src[:-2] + ".o"], cwd=tmp,
                       check=True)
    subprocess.run(["gcc"] + g + ["-o", name, "foo.o", "main.o"], cwd=tmp, check=True)
    return os.path.join(tmp, name)


class Run:
    def __init__(self, tool, env):
        self.tool, self.env = tool, env

    def __call__(self, *args):
        p = subprocess.run([self.tool, "probe"] + list(args), capture_output=True, text=True,
                           env=self.env)
        return p.returncode, p.stdout, p.stderr


def events(tfs, groups):
    with open(os.path.join(tfs, "uprobe_events")) as f:
        return sorted(line.strip() for line in f
                      if re.match(r"[pr]:(%s)/" % "|".join(groups), line))


def clean(tfs, groups):
    """Every probe of the test's groups removed (whoever added it)."""
    for line in events(tfs, groups):
        name = line.split()[0].split(":", 1)[1]
        try:  # one write(2), no seek (tracefs refuses Python's "a" mode)
            fd = os.open(os.path.join(tfs, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, ("-:%s\n" % name).encode())
            finally:
                os.close(fd)
        except OSError as e:
            print(f"could not remove {name}: {e}")


def compare(what, a, b, fails):
    """a and b (exit status, stdout, stderr, or lines) the same, else the
    first lines that differ noted."""
    if a == b:
        return
    text = lambda v: (v if isinstance(v, str) else "\n".join(map(str, v))).splitlines()
    diff = list(difflib.unified_diff(text(a), text(b), "perf 6.1", "pmukit", n=1, lineterm=""))
    fails.append(f"{what}:\n  " + "\n  ".join(diff[:12]))


def session(run, tfs, dbg, nodbg, groups):
    """What one tool does and says, for comparison: messages and exit
    statuses, the uprobe_events lines it made, -l, -d."""
    out = {}
    out["add"] = run("-x", dbg, "-a", "foo", "-a", "bar", "-a", "main%return")
    out["add-f"] = run("-f", "-x", dbg, "foo")
    out["add-taken"] = run("-x", dbg, "foo")
    out["record"] = recorded(run.tool, run.env, os.path.dirname(dbg), dbg, groups[0])
    # an event name is taken in any group
    out["add-taken-other"] = run("-x", nodbg, "bar")
    out["lines"] = events(tfs, groups)
    out["list"] = run("-l", groups[0] + ":*")
    out["del"] = run("-d", groups[0] + ":foo*", "-d", groups[0] + ":bar")
    out["del-x"] = run("-x", dbg, "-d", "main*")
    out["add-nodbg"] = run("-x", nodbg, "-a", "foo", "-a", "main+4", "-a", "bar")
    out["add-q"] = run("-q", "-x", nodbg, "main%return")
    out["add-q-taken"] = run("-q", "-x", nodbg, "main%return")
    out["lines-nodbg"] = events(tfs, groups)
    out["list-nodbg"] = run("-l", groups[1] + ":*")
    out["del-nodbg"] = run("-d", groups[1] + ":*")
    out["del-none"] = run("-d", groups[0] + ":nosuch")
    out["left"] = events(tfs, groups)
    return out


def recorded(tool, env, tmp, dbg, group):
    """record -e GROUP:foo/max-stack=3/ of dbg by tool, then both attrs (as
    perf 6.1's evlist -v shows them) and tool's script lines, the sample
    line's pid, CPU, time and address masked."""
    data = os.path.join(tmp, "rec.data")
    rec = subprocess.run([tool, "record", "-q", "-e", f"{group}:foo/max-stack=3/", "-o", data,
                          dbg], capture_output=True, text=True, env=env)
    attrs = subprocess.run(["perf", "evlist", "-v", "-i", data], capture_output=True,
                           text=True, env=env).stdout
    attrs = re.findall(r"sample_type: [A-Z_|]+|sample_max_stack: \d+", attrs)
    if not os.path.exists(data):
        return attrs, f"{tool} record made no file: {rec.stderr}"
    script = subprocess.run([tool, "script", "-i", data], capture_output=True, text=True,
                            env=env).stdout
    script = re.sub(r"^(\s*\S+)\s+\d+ \[\d+\]\s+[\d.]+: (\S+) \([0-9a-f]+\)",
                    r"\1 PID [CPU] TIME: \2 (ADDR)", script, flags=re.M)
    os.unlink(data)
    return attrs, script


def funcs(run, dbg, nodbg):
    libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    out = {}
    for b in (dbg, nodbg) + ((libc,) if os.path.exists(libc) else ()):
        for flt in ([], ["foo"], ["f*"], ["main|foo"], ["!f* & !*_*"], ["_*"]):
            out[(os.path.basename(b), tuple(flt))] = run("-x", b, "--funcs", *flt)
    return out


def bad(run, dbg, nodbg, tmp):
    out = {}
    first = lambda r: (r[0], r[2].splitlines()[:1])
    out["missing-func"] = run("-x", dbg, "nosuch")
    out["missing-func-nodbg"] = run("-x", nodbg, "nosuch")
    out["missing-binary"] = first(run("-x", os.path.join(tmp, "nosuch"), "foo"))
    return out


def stale_groups(tfs):
    """The groups an earlier run of this test left behind when it was killed
    (its pid gone): their probes would change the names perf picks."""
    with open(os.path.join(tfs, "uprobe_events")) as f:
        found = re.findall(r"^[pr]:(probe_pk(?:pr|nd)(\d+))/", f.read(), re.M)
    return sorted({g for g, pid in found if not os.path.exists("/proc/" + pid)})


def main(argv):
    pmukit = os.path.abspath(argv[1])
    if not oracle61.have_perf61():
        return 77
    tfs = tracefs()
    if not tfs or not shutil.which("gcc"):
        print("no writable uprobe_events (root, tracefs) or no gcc: skipped")
        return 77
    stale = stale_groups(tfs)
    if stale:
        print("removing the probes of an earlier run: " + " ".join(stale))
        clean(tfs, stale)
    tmp = tempfile.mkdtemp(prefix="pk-probe-")
    pid = os.getpid()
    dbg = build(tmp, f"pkpr{pid}", True)
    sub = os.path.join(tmp, "nd")
    os.mkdir(sub)
    nodbg = build(sub, f"pknd{pid}", False)
    groups = [f"probe_pkpr{pid}", f"probe_pknd{pid}"]
    # perf probe puts the binaries into its build-id cache: a fresh one
    env = dict(os.environ, PERF_BUILDID_DIR=os.path.join(tmp, "buildid"), LC_ALL="C")
    fails, results = [], []
    try:
        for tool in ("perf", pmukit):
            clean(tfs, groups)
            run = Run(tool, env)
            results.append((session(run, tfs, dbg, nodbg, groups), funcs(run, dbg, nodbg),
                            bad(run, dbg, nodbg, tmp)))
        for part in range(3):
            for key, want in results[0][part].items():
                compare(key, want, results[1][part][key], fails)
        made = results[0][0]["lines"], results[0][0]["lines-nodbg"]
        if tuple(map(len, made)) != (4, 4) or results[0][0]["left"]:
            fails.append(f"perf 6.1 made {made} (not 4 and 4), or left some")
    finally:
        clean(tfs, groups)
        left = events(tfs, groups)
        if left:
            fails.append(f"probes left behind: {left}")
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL", f)
    if len(results) == 2:
        n = sum(len(p) for p in results[0])
        print(f"{n - len(fails)}/{n} identical")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
