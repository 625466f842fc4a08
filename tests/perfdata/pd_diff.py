#!/usr/bin/env python3
"""The perf.data differential test (test `perfdata_diff`): every variant of
the table below is recorded by perf 6.1 and by pmukit with the same options;
each file is then read by both tools and their outputs are compared:

  attrs         `perf evlist -v` of perf's file against that of pmukit's file
                (the attrs perf would write for the same options)
  script-perf   `perf script` / `pmukit script` on perf's file
  script-pk     the same on pmukit's file
  report-perf   `report --stdio` by both tools on perf's file
  report-pk     the same on pmukit's file
  header-perf   `report --header-only` by both tools on perf's file
  header-pk     the same on pmukit's file
  features      `perf report --header-only -I` of perf's file against that of
                pmukit's file: the header features each tool writes, with
                what differs between any two recordings masked (times, sizes,
                ids, free memory, the command line) and PMU mappings compared
                as a set (perf writes them in directory order, pmukit by name)
  buildid       every BUILD_ID entry of pmukit's file against perf's own
                reading of that object (`perf buildid-list -k` for the
                kernel, `-i FILE` for an ELF file; the vDSO against perf's
                file's entry when it has one)

Record options whose outcome is the check (OUTCOMES: --dry-run, a refused
value, --timestamp-filename's name) are run by both tools in a directory
each (check `outcome`): exit status, whether stderr says perf's words,
the files left with a timestamp masked.

Synthesis (SYNTH: --synth, --tail-synthesize) is checked on a busy shell
both tools follow with -p (check `synth`): the kernel map and that
process's COMM and MMAP records in the file's order, and where FINISHED_INIT
(the end of the synthesized state) falls among them.

perf record --threads' directory format is read by both tools (variants
in THREADS, recorded by perf only: `script-perf`, `report-perf`,
`header-perf` on the directory perf wrote).

Script options are checked on perf's recordings too (check `script`, one id
per option set). A check is named `VARIANT:CHECK`; every difference must be
listed with its reason in docs/perfdata-differences.md as a line
"- `VARIANT:CHECK`, `OTHER:CHECK`: reason" (shell-style wildcards allowed). An
id written `asan:VARIANT:CHECK` is listed for the AddressSanitizer build only
(PK_SANITIZE, set by meson from b_sanitize, names "address"): the workload's
chains then run through libasan, and a difference there must not hide one
in the gcc and clang builds. The test prints each
difference, then `N/M identical`, and fails on any difference not listed.
A listed difference that no longer occurs is reported (to prune the list)
but does not fail. Without perf the test is skipped with the reason.

usage: pd_diff.py [--only ID_GLOB] [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree),
  PK_WORKLOAD (the examples' workload program), PK_SANITIZE (meson's
  b_sanitize: "address" in it for the ASan build)
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

# name -> record options (both tools), and optionally a workload
# override. The workload is the examples' deterministic program.
VARIANTS = [
    ("default", "-e cpu-clock"),
    ("c", "-e cpu-clock -c 100000"),
    ("F", "-e cpu-clock -F 999"),
    ("g", "-e cpu-clock -g"),
    ("dwarf", "-e cpu-clock --call-graph dwarf"),
    ("group", "-e {cpu-clock,task-clock}"),
    ("two", "-e cpu-clock -e page-faults"),
    ("mod", "-e cpu-clock:u"),
    ("pf", "-e page-faults -c 1"),
    ("bp", "-e mem:0x1000:rw"),
    ("term", "-e cpu-clock/period=50000/"),
    ("a", "-a -e cpu-clock"),
    ("ag", "-a -g -e cpu-clock"),
    ("C", "-C 0 -e cpu-clock"),
    ("d", "-e cpu-clock -d"),
    ("T", "-e cpu-clock -T"),
    ("sample-cpu", "-e cpu-clock --sample-cpu"),
    ("s", "-e cpu-clock -s"),
    ("P", "-e cpu-clock -P"),
    ("W", "-e cpu-clock -W"),
    ("B", "-e cpu-clock -B"),
    ("N", "-e cpu-clock -N"),
    ("R", "-e cpu-clock -R"),
    ("i", "-e cpu-clock -i"),
    ("namespaces", "-e cpu-clock --namespaces"),
    ("all-cgroups", "-e cpu-clock --all-cgroups"),
    ("switch", "-e cpu-clock --switch-events"),
    ("all-user", "-e cpu-clock --all-user"),
    ("all-kernel", "-e cpu-clock --all-kernel"),
    ("phys", "-e cpu-clock --phys-data"),
    ("dpage", "-e cpu-clock --data-page-size"),
    ("cpage", "-e cpu-clock --code-page-size"),
    ("uregs", "-e cpu-clock --user-regs=ip,sp"),
    ("iregs", "-e cpu-clock -I"),
    ("D", "-e cpu-clock -D 1"),
    ("sid", "-e cpu-clock --sample-identifier"),
    ("per-thread", "-e cpu-clock --per-thread"),
    ("z", "-e cpu-clock -z"),
    # perf 6.1's further options (issue 24): attrs, CLOCKID and CLOCK_DATA
    ("k", "-e cpu-clock -k mono"),
    ("k-raw", "-e cpu-clock --clockid CLOCK_MONOTONIC_RAW"),
    ("user-cc", "-e cpu-clock -g --user-callchains"),
    ("kernel-cc", "-e cpu-clock -g --kernel-callchains"),
    ("running-time", "-e cpu-clock --running-time"),
    ("n", "-e cpu-clock -n"),
    ("no-buffering", "-e cpu-clock --no-buffering"),
    ("strict-freq", "-e cpu-clock --strict-freq -F 999"),
    ("a-dummy", "-a -e cpu-clock -k boot --no-samples --running-time --no-buffering"),
    ("tuning", "-e cpu-clock --mmap-flush 4 --proc-map-timeout 100 --num-thread-synthesize 2 "
               "--aio --affinity=node -r 1"),
]

# id -> record options whose outcome is checked, not a file's content: the
# exit status, whether stderr says perf's words (a timestamp as <ts>), and
# the names of the files left (a timestamp as <ts>); optionally the command
# (default: the workload, briefly)
OUTCOMES = [
    ("dry-run", "-e cpu-clock --dry-run", None),
    ("dry-run-bad", "-e nosuchevent --dry-run", "nosuchevent"),
    ("strict-freq-over", "-e cpu-clock --strict-freq -F 100000000",
     "Maximum frequency rate (100000 Hz) exceeded."),
    ("timestamp-filename", "-e cpu-clock --timestamp-filename", "Dump out.data.<ts> ]"),
    ("k-bad", "-e cpu-clock -k nosuchclock", "unknown clockid nosuchclock, check man page"),
    ("realtime-bad", "-e cpu-clock -r 1000", "Could not set realtime priority."),
    # dumps at 1 s, 2 s and the end: the oldest removed
    ("switch-time", "-e cpu-clock --switch-output=1s --switch-max-files 2",
     "MB out.data.<timestamp>", "sleep 3"),
    ("switch-size", "-e cpu-clock --switch-output=1K --switch-max-files 1",
     "WARNING: switch-output data size lower than wakeup kernel buffer size (258K)"),
    ("synth-bad", "-e cpu-clock --synth=bad", "Invalid synth option: bad"),
    ("uid-bad", "-e cpu-clock -u nosuchuser", "Invalid User: nosuchuser"),
    ("exclude-perf", "-e cpu-clock --exclude-perf",
     "--exclude-perf option should follow a -e tracepoint option"),
    ("snapshot", "-e cpu-clock -S", "No AUX area tracing to snapshot"),
    ("aux-sample", "-e cpu-clock --aux-sample", "No AUX area event to sample"),
    ("kcore", "-e cpu-clock --kcore", "ERROR: kcore is not readable."),
    ("off-cpu", "-e cpu-clock --off-cpu", None),
    ("clang", "-e cpu-clock --clang-path /nonexistent --clang-opt -O2", None),
    ("threads", "-e cpu-clock --threads=cpu", None),
    ("timestamp-boundary", "-e cpu-clock -B --timestamp-boundary", None),
]

# id -> record options for a process both tools follow (-p of a busy
# shell the test starts): what each synthesizes of it and of the kernel,
# in the file's order (check `synth`)
SYNTH = [
    ("synth-all", ""),
    ("synth-no", "--synth=no"),
    ("synth-task", "--synth=task"),
    ("synth-mmap", "--synth=mmap"),
    ("synth-cgroup", "--synth=cgroup"),
    ("tail-synth", "--tail-synthesize"),
    ("tail-synth-task", "--tail-synthesize --synth=task"),
]

# perf record --threads recordings (a directory: data + data.N), read by both
THREADS = [
    ("threads", "--threads -e cpu-clock"),
    ("threads-a", "--threads -a -e cpu-clock"),
    ("threads-g", "--threads -g -e cpu-clock"),
]

# id -> script options, run on perf's recording of a variant
SCRIPT_OPTS = [
    ("comms", "g", "--comms workload"),
    ("comms-none", "default", "--comms nosuchcomm"),
    ("pid", "default", "--pid {pid}"),
    ("tid", "default", "--tid {pid}"),
    ("time", "default", "--time {mid},"),
    ("cpu", "a", "-C 0"),
    ("cpu-none", "default", "-C 0"),
    ("f-addr-none", "default", "-F ip,addr"),
    ("S", "default", "-S main"),
    ("dsos", "default", "--dsos workload"),
    ("show-task", "default", "--show-task-events"),
    ("show-mmap", "default", "--show-mmap-events"),
    ("show-switch", "switch", "--show-switch-events"),
    ("show-namespace", "namespaces", "--show-namespace-events"),
    ("show-cgroup", "all-cgroups", "--show-cgroup-events"),
    ("show-lost", "default", "--show-lost-events"),
    ("show-round", "default", "--show-round-events"),
    ("header", "default", "--header"),
    ("header-only", "default", "--header-only"),
    ("reltime", "default", "--reltime"),
    ("deltatime", "default", "--deltatime"),
    ("max-stack", "g", "--max-stack 2"),
    ("no-demangle", "default", "--no-demangle"),
    ("kallsyms", "default", "--kallsyms /proc/kallsyms"),
    ("kallsyms-none", "default", "--kallsyms /dev/null"),
    ("symfs-none", "default", "--symfs /nonexist"),
    ("symfs-root", "g", "--symfs /"),
    ("f-iregs", "iregs", "-F ip,iregs"),
    ("f-uregs", "uregs", "-F ip,uregs"),
    ("f-flags", "default", "-F comm,flags"),
    ("f-misc", "default", "-F comm,misc"),
    ("f-callindent", "g", "-F comm,ip,callindent"),
    ("f-tod", "default", "-F comm,tod"),
]


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                       errors="replace", timeout=120)
    return p.returncode, p.stdout, p.stderr


def no_perf61():
    """Why perf 6.1 cannot be the reference here (a skip reason), or None."""
    if not shutil.which("perf"):
        return "perf is not installed: nothing to compare with"
    rc, out, _ = run("perf version", ".")
    if rc or not re.search(r"perf version 6\.1\b", out):
        return "the reference is perf 6.1, found: %s" % out.strip()
    return None


def command_setup(doc, prefix):
    """What a command's differential script (pd_cmd_diff.py, pd_cmd_inject.py)
    starts from: (show, keep, srcdir, pmukit, workload, tmp, env), env with
    its own HOME and build-id cache in tmp; or the exit status after saying
    why not (2: usage, 77: no perf 6.1 or no workload)."""
    a = small_diff_args(doc)
    if isinstance(a, int):
        return a
    show, keep, srcdir, pk = a
    wl = os.environ.get("PK_WORKLOAD")
    why = no_perf61()
    if why or not wl:
        print("SKIP: %s" % (why or "PK_WORKLOAD must name the workload"))
        return 77
    tmp = keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, HOME=tmp, PERF_BUILDID_DIR=os.path.join(tmp, ".debug"))
    return show, keep, srcdir, pk, wl, tmp, env


def small_diff_args(doc):
    """The arguments of the small differential scripts (through test_args):
    (show, keep, srcdir, pmukit), or an exit status 2 after printing the
    usage or what is missing."""
    args = sys.argv[1:]
    show = "--show" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args[:-1] else None
    if any(a not in ("--show", "--keep", keep) for a in args):
        print(doc)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    srcdir = os.path.abspath(os.environ.get("PK_SRCDIR", os.path.join(here, "..", "..")))
    pmukit = os.environ.get("PK_PMUKIT")
    if not pmukit:
        print("PK_PMUKIT must name the built pmukit")
        return 2
    return show, keep, srcdir, pmukit


def is_listed(cid, allowed, asan):
    """Whether check cid is listed: a pattern matches it, or in the ASan
    build an `asan:` pattern matches `asan:` + cid (never elsewhere)."""
    for p in allowed:
        if p.startswith("asan:"):
            if asan and fnmatch.fnmatch("asan:" + cid, p):
                return True
        elif fnmatch.fnmatch(cid, p):
            return True
    return False


def allowed_list(srcdir):
    """The ids listed in docs/perfdata-differences.md."""
    path = os.path.join(srcdir, "docs", "perfdata-differences.md")
    pats = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            # "- `a`, `b`: reason": the ids before the reason
            m = re.match(r"^- ((?:`[^`]+`(?:, )?)+):", line)
            if m:
                pats.extend(re.findall(r"`([^`]+)`", m.group(1)))
    return pats


def drop_tip(text):
    """perf report's tip ("#", "# (Tip: ...)", "#", chosen at random) cut off,
    at the end or before -T's "# PID  TID" table, as
    tests/perfdata/test_report_diff.c cuts it: pmukit prints none."""
    m = re.search(r"(^|\n)#\n# \([^\n]*\n#\n(?=(# [^\n]*PID.*)?\Z)", text, re.S)
    return text[:m.start()] + m.group(1) + text[m.end():] if m else text


def cut_agrees(ours, theirs):
    """Whether the outputs differ only where perf 6.1 cut a column: each
    word of perf's equal to pmukit's, or a prefix of it (a column sized
    before its final text), rules of dots aside; a cut last word ends the
    line. A cut shows in some word of text: outputs that differ in rules
    and spacing alone are a width difference, not a cut
    (pd_test_report_cut_agrees in tests/perfdata/pd_test.c)."""
    ol, tl = ours.split("\n"), theirs.split("\n")
    if len(ol) != len(tl):
        return False
    text_cut = False
    for o, t in zip(ol, tl):
        ow, tw = o.split(), t.split()
        i = 0
        for j, w in enumerate(tw):
            if i >= len(ow):
                return False
            x = ow[i]
            i += 1
            dots = set(w) == {"."} and set(x) == {"."}
            cut = len(w) < len(x) and x.startswith(w)
            text_cut = text_cut or (cut and not dots)
            if w != x and not cut and not dots:
                return False
            if cut and j == len(tw) - 1:
                i = len(ow)  # perf cut its last column
        if i < len(ow):
            return False
    return text_cut


PLT_NAME = re.compile(r"\S+@plt(\+0x[0-9a-f]+)?")


def plt_agrees(ours, theirs):
    """Whether the outputs differ only where perf 6.1 prints `[unknown]` for
    a PLT entry pmukit names (`memcpy@plt`): the lld-linked programs a
    system-wide recording catches (docs/perfdata-differences.md, script)."""
    ol, tl = ours.split("\n"), theirs.split("\n")
    if len(ol) != len(tl):
        return False
    return all(o == t or PLT_NAME.sub("[unknown]", o) == t for o, t in zip(ol, tl))


# header lines that differ between any two recordings, masked in `features`
VOLATILE = re.compile(r"^# (captured on|data offset|data size|feat offset|perf version|cmdline|"
                      r"event|time of first sample|time of last sample|sample duration) *:")
# CLOCK_DATA's reference time: the times masked, the clock's name kept
REFTIME = re.compile(r"^(# reference time: ).*( \(\w+\))$")


def normalize_header(text):
    out = []
    for line in text.splitlines():
        if VOLATILE.match(line):
            continue
        # a VM's node memory grows and shrinks (virtio-mem, balloons): its
        # total moves between two recordings as its free memory does
        line = re.sub(r"(meminfo  : total = )\d+( kB, free = )\d+", r"\1N\2N", line)
        line = REFTIME.sub(r"\1T\2", line)
        # zstd's ratio depends on what was recorded
        line = re.sub(r"^(# compressed : .*, ratio = )\d+", r"\1N", line)
        if line.startswith("# pmu mappings:"):
            line = "# pmu mappings: " + ", ".join(sorted(line[15:].strip().split(", ")))
        out.append(line)
    return "\n".join(out) + "\n"


def build_ids(text):
    """`perf buildid-list` lines: name -> id."""
    ids = {}
    for line in text.splitlines():
        f = line.split(None, 1)
        if len(f) == 2 and re.match(r"^[0-9a-f]{2,}$", f[0]):
            ids[f[1].strip()] = f[0]
    return ids


def test_args(doc, skip_reason, prefix):
    """A small differential test's command line and environment (small_diff_args, the
    pmukit path made absolute), C compiler and directory (DIR, else a new
    temporary one named prefix...): (show, keep, srcdir, pmukit, cc, tmp),
    or the exit status after printing what is wrong (2) or why the test is
    skipped (77: skip_reason(cc) says)."""
    got = small_diff_args(doc)
    if got == 2:
        return 2
    show, keep, srcdir, pmukit = got
    cc = shutil.which("cc") or shutil.which("gcc")
    why = skip_reason(cc)
    if why:
        print("SKIP: " + why)
        return 77
    tmp = keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(tmp, exist_ok=True)
    return show, keep, srcdir, os.path.abspath(pmukit), cc, tmp


def describe_difference(a, b, show, ours=None, theirs=None):
    """Where two runs a, b ((status, stdout, stderr), pmukit's then perf's)
    part: the first line where their outputs (ours and theirs when given,
    else the stdouts) differ, else their exit statuses; with show, both
    stderrs after it."""
    line, x, y = first_difference(a[1] if ours is None else ours,
                                  b[1] if theirs is None else theirs)
    detail = ("line %d\n    pmukit: %.200s\n    perf:   %.200s" % (line, x, y)
              if line else "exit %d (pmukit) vs %d (perf)" % (a[0], b[0]))
    return detail + ("\n" + a[2] + b[2] if show else "")


def first_difference(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<end>"
        y = bl[i] if i < len(bl) else "<end>"
        if x != y:
            return i + 1, x, y
    return 0, "", ""


class Harness:
    def __init__(self, pmukit, workload, tmp, only, show):
        self.pk, self.wl, self.tmp, self.only, self.show = pmukit, workload, tmp, only, show
        self.results = []   # (id, same, detail)
        self.cut = []       # report checks where perf only cut a column
        self.pids = {}

    def wanted(self, cid):
        return not self.only or fnmatch.fnmatch(cid, self.only)

    def compare(self, cid, ours, theirs):
        """ours and theirs: (rc, out) of the two tools."""
        same = ours == theirs
        detail = ""
        if not same and ":report-" in cid and ours[0] == theirs[0] and \
           cut_agrees(ours[1], theirs[1]):
            self.cut.append(cid)  # counted as listed: perf 6.1 cut a column
            detail = "perf 6.1 cut a column (docs/perfdata-differences.md, report)"
        if not same and ":script-" in cid and ours[0] == theirs[0] and \
           plt_agrees(ours[1], theirs[1]):
            self.cut.append(cid)  # counted as listed: perf 6.1's lld PLT names
            detail = "perf 6.1's [unknown] for lld PLT entries (docs/perfdata-differences.md, script)"
        if not same:
            if ours[0] != theirs[0]:
                detail = "exit %d (pmukit) vs %d (perf)" % (ours[0], theirs[0])
            line, x, y = first_difference(ours[1], theirs[1])
            if line:
                detail += "%sline %d\n    pmukit: %.200s\n    perf:   %.200s" % (
                    "; " if detail else "", line, x, y)
            if self.show:
                detail += "\n" + "".join(difflib_lines(theirs[1], ours[1]))
        self.results.append((cid, same, detail))

    def record(self, tool, name, opts):
        out = "%s.%s.data" % (name, "perf" if tool == "perf" else "pk")
        exe = "perf" if tool == "perf" else self.pk
        rc, _, err = run("%s record -o %s %s -- %s 300 3000000" % (exe, out, opts, self.wl),
                         self.tmp)
        return out if rc == 0 and os.path.exists(os.path.join(self.tmp, out)) else None, err

    def both(self, args, data):
        a = run("%s %s -i %s" % (self.pk, args, data), self.tmp)
        b = run("perf %s -i %s" % (args, data), self.tmp)
        theirs = drop_tip(b[1]) if args.startswith("report --stdio") else b[1]
        return (a[0], a[1]), (b[0], theirs)

    def variant(self, name, opts):
        checks = ["attrs", "script-perf", "script-pk", "report-perf", "report-pk",
                  "header-perf", "header-pk", "features", "buildid"]
        if not any(self.wanted("%s:%s" % (name, c)) for c in checks) and \
           not any(v == name for _, v, _ in SCRIPT_OPTS):
            return
        pf, perr = self.record("perf", name, opts)
        kf, kerr = self.record("pk", name, opts)
        if pf:
            self.pids[name] = pf
        if not pf or not kf:
            cid = "%s:record" % name
            if self.wanted(cid):
                self.results.append((cid, False, "record failed: perf %s, pmukit %s\n%s%s" % (
                    "ok" if pf else "failed", "ok" if kf else "failed",
                    "" if pf else "    perf: " + perr.strip()[-300:] + "\n",
                    "" if kf else "    pmukit: " + kerr.strip()[-300:])))
            return
        if self.wanted(name + ":attrs"):
            a = run("perf evlist -v -i %s" % kf, self.tmp)
            b = run("perf evlist -v -i %s" % pf, self.tmp)
            self.compare(name + ":attrs", (a[0], a[1]), (b[0], b[1]))
        if self.wanted(name + ":features"):
            a = run("perf report --header-only -I -i %s" % kf, self.tmp)
            b = run("perf report --header-only -I -i %s" % pf, self.tmp)
            self.compare(name + ":features", (a[0], normalize_header(a[1])),
                         (b[0], normalize_header(b[1])))
        if self.wanted(name + ":buildid"):
            self.compare(name + ":buildid", *self.buildid_check(kf, pf))
        for file, tag in ((pf, "perf"), (kf, "pk")):
            for check, args in (("script", "script"), ("report", "report --stdio"),
                                ("header", "report --header-only")):
                cid = "%s:%s-%s" % (name, check, tag)
                if self.wanted(cid):
                    self.compare(cid, *self.both(args, file))

    def threads(self, name, opts):
        """perf's --threads directory read by both tools."""
        checks = ["script-perf", "report-perf", "header-perf"]
        if not any(self.wanted("%s:%s" % (name, c)) for c in checks):
            return
        out = "%s.perf.dir" % name
        rc, _, err = run("perf record -o %s %s -- %s 300 3000000" % (out, opts, self.wl),
                         self.tmp)
        if rc or not os.path.isdir(os.path.join(self.tmp, out)):
            self.results.append(("%s:record" % name, False,
                                 "perf record failed: " + err.strip()[-300:]))
            return
        for check, args in (("script", "script"), ("report", "report --stdio"),
                            ("header", "report --header-only")):
            cid = "%s:%s-perf" % (name, check)
            if self.wanted(cid):
                self.compare(cid, *self.both(args, out))

    def buildid_check(self, kf, pf):
        """(pmukit's entries, the ids perf reads for the same objects)."""
        ours = build_ids(run("perf buildid-list -i %s" % kf, self.tmp)[1])
        theirs_file = build_ids(run("perf buildid-list -i %s" % pf, self.tmp)[1])
        theirs = {}
        for obj in ours:
            if obj == "[kernel.kallsyms]":
                rc, out, _ = run("perf buildid-list -k", self.tmp)
                theirs[obj] = out.strip() if rc == 0 else "?"
            elif obj.startswith("/"):
                rc, out, _ = run("perf buildid-list -i '%s'" % obj, self.tmp)
                theirs[obj] = out.strip() if rc == 0 else "?"
            else:
                theirs[obj] = theirs_file.get(obj, ours[obj])
        fmt = lambda d: "".join("%s %s\n" % (v, k) for k, v in d.items())
        return (0, fmt(ours)), (0, fmt(theirs))

    def script_opts(self):
        for sid, var, opts in SCRIPT_OPTS:
            cid = "script:" + sid
            if not self.wanted(cid):
                continue
            data = self.pids.get(var)
            if not data:
                self.results.append((cid, False, "no perf recording of variant " + var))
                continue
            opts = opts.format(**self.file_facts(data))
            self.compare(cid, *self.both("script " + opts, data))

    def outcome(self, name, opts, words, cmd=None):
        """`name:outcome`: both tools' exit status, whether stderr says
        words, the files left in a directory of their own."""
        cid = name + ":outcome"
        if not self.wanted(cid):
            return
        got = []
        for tool in ("perf", self.pk):
            d = os.path.join(self.tmp, "%s.%s" % (name, "perf" if tool == "perf" else "pk"))
            os.makedirs(d, exist_ok=True)
            rc, _, err = run("%s record -o out.data %s -- %s" % (
                tool, opts, cmd or self.wl + " 10 1000"), d)
            err = re.sub(r"\.\d{16}\b", ".<ts>", err)
            says = "stderr says %r: %s\n" % (words, "yes" if words in err else "no") \
                if words else ""
            files = sorted(re.sub(r"\.\d{16}$", ".<ts>", f) for f in os.listdir(d))
            got.append((rc, says + "files: %s\n" % " ".join(files)))
        self.compare(cid, got[1], got[0])

    def synth(self, name, opts, pid, target=None):
        """`name:synth`: the kernel map and pid's COMM/MMAP records each
        tool's file holds, in file order, and where FINISHED_INIT is among
        them (before the samples, or after them with --tail-synthesize;
        samples are left out: a busy shell gets none at times). The
        records of the time-limiting command are left out: perf names it
        perf-exec, pmukit follows only -p."""
        cid = name + ":synth"
        if not self.wanted(cid):
            return
        got = []
        for tool in ("perf", self.pk):
            data = "%s.%s.data" % (name, "perf" if tool == "perf" else "pk")
            rc, _, err = run("%s record -o %s %s -e cpu-clock %s -- sleep 0.3" % (
                tool, data, target or "-p %d" % pid, opts), self.tmp)
            out = run("perf report -D -i %s" % data, self.tmp)[1] if rc == 0 else err
            if rc == 0 and target:  # the attrs too
                out += run("perf evlist -v -i %s" % data, self.tmp)[1]
            seq = []
            for line in out.splitlines():
                m = re.search(r"PERF_RECORD_(FINISHED_INIT|COMM|MMAP2?)\b:? ?(.*)", line)
                if line.startswith("cpu-clock: "):
                    seq.append(line)
                if not m:
                    continue
                kind, rest = m.groups()
                if kind == "FINISHED_INIT":
                    seq.append(kind)
                elif rest.startswith("-1/") or re.search(r"\b%d/" % pid, rest):
                    seq.append("%s %s" % (kind, rest.split("]: ")[-1]))
            got.append((rc, "\n".join(seq) + "\n"))
        self.compare(cid, got[1], got[0])

    def uid(self):
        """`uid:synth`: -u of a user running one busy shell (nobody's, as
        root; skipped otherwise): the attrs and what is synthesized."""
        if not self.wanted("uid:synth") or os.geteuid() or not shutil.which("setpriv"):
            return
        busy = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 "sh", "-c", "while :; do :; done"])
        try:
            self.synth("uid", "", busy.pid, "-u 65534")
        finally:
            busy.kill()
            busy.wait()

    def file_facts(self, data):
        """The workload's pid and the middle of the samples' time span."""
        rc, out, _ = run("perf script -F pid,time -i %s" % data, self.tmp)
        pid, times = "0", []
        for line in out.splitlines():
            f = line.replace(":", " ").split()
            if len(f) >= 2:
                pid = f[0]
                try:
                    times.append(float(f[1]))
                except ValueError:
                    pass
        mid = "%.6f" % ((times[0] + times[-1]) / 2) if times else "0"
        return {"pid": pid, "mid": mid}


def difflib_lines(a, b):
    import difflib
    return list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), "perf", "pmukit",
                                     n=1))[:60]


def parse_args(args):
    """[--only ID_GLOB] [--show] [--keep DIR] (the differential tests'
    options): (only, show, keep), or None on anything else."""
    only = show = keep = None
    args = list(args)
    while args:
        a = args.pop(0)
        if a == "--only" and args:
            only = args.pop(0)
        elif a == "--show":
            show = True
        elif a == "--keep" and args:
            keep = args.pop(0)
        else:
            return None
    return only, show, keep


def main():
    opts = parse_args(sys.argv[1:])
    if opts is None:
        print(__doc__)
        return 2
    only, show, keep = opts
    srcdir = os.environ.get("PK_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    pmukit = os.environ.get("PK_PMUKIT")
    workload = os.environ.get("PK_WORKLOAD")
    if not pmukit or not workload:
        print("PK_PMUKIT and PK_WORKLOAD must name the built pmukit and workload")
        return 2
    why = no_perf61()
    if why:
        print("SKIP: " + why)
        return 77
    rc, _, err = run("perf record -o /dev/null -e cpu-clock -- true", ".")
    if rc:
        print("SKIP: perf cannot record here: %s" % err.strip()[-200:])
        return 77
    allowed = allowed_list(srcdir)
    asan = "address" in os.environ.get("PK_SANITIZE", "")
    if asan:
        print("ASan build: the `asan:` listings apply")
    tmp = keep or tempfile.mkdtemp(prefix="pd_diff.")
    os.makedirs(tmp, exist_ok=True)
    h = Harness(pmukit, workload, tmp, only, show)
    try:
        for name, opts in VARIANTS:
            h.variant(name, opts)
        h.script_opts()
        for name, opts, words, *cmd in OUTCOMES:
            h.outcome(name, opts, words, *cmd)
        sleeper = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        try:
            for name, opts in SYNTH:
                h.synth(name, opts, sleeper.pid)
        finally:
            sleeper.kill()
            sleeper.wait()
        h.uid()
        for name, opts in THREADS:
            h.threads(name, opts)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    same = sum(1 for _, s, _ in h.results if s)
    unlisted, listed_same = [], []
    for cid, s, detail in h.results:
        listed = cid in h.cut or is_listed(cid, allowed, asan)
        if not s:
            print("%s %s: %s" % ("listed  " if listed else "UNLISTED", cid, detail))
            if not listed:
                unlisted.append(cid)
        elif any(p == cid or (asan and p == "asan:" + cid) for p in allowed):
            listed_same.append(cid)
    for cid in listed_same:
        print("note: %s is identical now; remove it from docs/perfdata-differences.md" % cid)
    print("%d/%d identical" % (same, len(h.results)))
    if unlisted:
        print("%d differences not listed in docs/perfdata-differences.md: %s" % (
            len(unlisted), " ".join(unlisted)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
