#!/usr/bin/env python3
"""The real-files differential test (test `perfdata_real`, issue 20): every
perf.data file of tests/data/perfdata-real/ (recorded elsewhere: perf 3.2 to
6.16, several architectures, file and pipe mode) is decompressed into a
temporary folder and read by perf 6.1 and by pmukit over the same views; their
standard outputs and exit statuses must be the same.

  symbol-free views (need nothing but the file)
    script-F   `script -F` with every sampled field all the file's events have
    dso        `report -s comm,dso,pid --no-children -g none --stdio`
    keys, mem  report's keys of the sample's fields (cpu, addr, page sizes,
               transaction, cgroups, dso_size, weights and latencies) and
               --mem-mode's data-source, address and page keys
    stats      `report --stats`
    header     `report --header-only`
    report-D   `report -D` (perf's `script -D` prints the same dump with script's
               lines: not run twice, for the test's time; perfdata_dump checks it)
  symbol views (the symbols depend on the binaries found)
    report     `report --stdio --no-children`
    verbose    the same with -v (paths, addresses, where symbols were read)
    sym-dso, F-comm-sym   `report -s sym,dso` and `report -F sample,comm,sym
               -t '|'` (no children) on TIE_FILES: rows of equal share in
               perf's order
    script     `script`
    report-symfs, script-symfs   the same with `--symfs` at a tree made of the
               recorded binaries stored beside the file (perfparser's), where
               there are some

A check is named `real:FILE:VIEW` (FILE relative to the corpus folder) and
every difference must be listed with its reason in
docs/perfdata-differences.md ("- `ID`: reason", shell wildcards allowed), as
in pd_diff.py. A listed check that is identical now is reported, not failed.

Where perf 6.1 refuses a newer file, perf reads a copy downgraded here
(`downgrade`): attrs of more than 128 bytes (perf >= 6.3 writes 136: config3)
cut to 128 when the rest is zero, COMPRESSED2 records (perf 6.16) turned into
COMPRESSED ones, and in pipe mode the compressed records decompressed in place
(perf 6.1 cannot decompress a pipe's COMPRESSED records: "Couldn't decompress
data"); pmukit reads the original. Both tools run with HOME and
PERF_BUILDID_DIR in the temporary folder, so no build-id cache of this machine
is used. In perf's `-D` text two traces of the test itself are put back
(`dump_normalized`): the downgraded copy's name on each record's first line,
and the random name of the file perf 6.1 copies this host's vDSO into on a
sample's `...... dso:` line (`[vdso]`).

Prints each difference, `N/M identical` per view class, then per class the
views identical or differing only by an entry of kind `perf-wrong` or
`downgrade` (perf's column cut counts as perf-wrong) with the `pmukit-gap`
ids left; fails on a difference not listed with a kind ("- `ID`: [kind]
reason"). Skipped (77) without perf 6.1 or the zstd program.

usage: pd_real.py [--only ID_GLOB] [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree)
"""
import concurrent.futures
import fnmatch
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import (allowed_list, cut_agrees, difflib_lines, drop_tip,  # noqa: E402
                     first_difference, is_listed, parse_args)

# view id -> (class, arguments); "{F}" is the script -F field list
VIEWS = [
    ("script-F", "free", "script -F {F}"),
    ("dso", "free", "report -s comm,dso,pid --no-children -g none --stdio"),
    ("stats", "free", "report --stats"),
    ("header", "free", "report --header-only"),
    ("report-D", "free", "report -D"),
    ("keys", "free", "report -s cpu,addr,code_page_size,transaction,cgroup,cgroup_id,dso_size,"
     "weight,local_ins_lat,ins_lat,p_stage --no-children -g none --no-branch-stack --stdio"),
    ("mem", "free", "report --mem-mode -s mem,snoop,tlb,locked,blocked,dcacheline,phys_daddr,"
     "data_page_size --no-children -g none --no-branch-stack --stdio"),
    ("report", "symbol", "report --stdio --no-children"),
    ("verbose", "symbol", "report -v --stdio --no-children"),
    ("script", "symbol", "script"),
]
SYMFS_VIEWS = [("report-symfs", "symbol", "report --stdio --no-children --symfs {S}"),
               ("script-symfs", "symbol", "script --symfs {S}")]
# the order of rows of equal share under a sym key (perf's trees: addresses
# without a symbol against symbols by their dsos first, ties in table order),
# on a few files whose addresses mostly have no symbol (for the test's time)
TIE_VIEWS = [("sym-dso", "symbol", "report -s sym,dso --stdio --no-children"),
             ("F-comm-sym", "symbol", "report -F sample,comm,sym -t | --stdio --no-children")]
TIE_FILES = ("quipper/perf.data.i686-3.4", "quipper/perf.data.lost_samples-4.4",
             "quipper/perf.data.piped.target-3.8", "quipper/perf.data.throttle-3.8")
# views found by trying them on a few files, each a class: the group view's
# call graph (the leader's alone: PerfFormatLost is a group read by its
# leader's samples) and a branch end's symbol as the hierarchy's last text
# (not padded, as perf prints the sym key)
EXTRA_VIEWS = {
    "hotspot/perf.data.PerfFormatLost": [("children", "symbol", "report --stdio --children"),
                                         # the kernel's hits go to its recorded vmlinux entry
                                         ("hits", "free", "buildid-list --with-hits"),
                                         ("pid-cpu", "free", "report --stdio --no-children -s pid,cpu -n")],
    # the branch view filters by the sample's own place and elides none of
    # its columns for --dsos (was: by the branch's target, dso_from elided)
    "quipper/perf.data.branch-4.14": [("hier", "free", "report --stdio --no-children --hierarchy"),
                                      ("dsos", "free",
                                       "report --stdio --no-children -g none --dsos [kernel.kallsyms]"),
                                      ("comms", "free", "report --stdio --no-children -g none --comms echo")],
    # an ET_EXEC's addresses without a line, as perf names them: "sym+off"
    # with both in file offsets, "dso[addr]" at objdump's address
    "perfparser/vector_static_gcc_perf.data": [
        ("srcline-symfs", "symbol", "report --stdio --no-children --symfs {S} -s srcline -g none"),
        ("script-srcline-symfs", "symbol", "script -G --symfs {S} -F ip,sym,dso,srcline")],
    # -F +field or -field is perf's user_set: a tracepoint with chains
    # gains no chain fields; misc shows no EXACT_IP letter (precise cycles)
    "perfparser/parallel_static_gcc_perf.data.zstd": [("F-plus", "free", "script -F +misc"),
                                                      ("F-minus", "free", "script -F -period")],
    "linux-perf-data/sleep.data": [("F-misc", "free", "script -F +misc")],
    # -I alone prints a pipe's features in full as they come
    "quipper/perf.data.piped.header_features-4.16": [
        ("show-info", "free", "report --stdio --no-children -g none -s comm --show-info")],
    # CPU_TOPOLOGY's ids as perf 6.1 takes them: none when the section is no
    # longer than its own count of the lists (quipper pads less), sockets
    # past the CPU count kept on aarch64
    "quipper/perf.data.weight_struct": [("header-I", "free", "report --header-only -I"),
                                        ("socket", "free",
                                         "report --stdio --no-children -g none -s cpu,socket")],
    "linux-perf-data/sleep.compressed.data": [("header-I", "free", "report --header-only -I")],
    # a filter's line above the table is printed for a file without samples
    "hotspot/perf.data.true.v1": [("dsos", "free",
                                   "report --stdio --no-children -s dso -g none --dsos [kernel.kallsyms]"),
                                  ("T", "free", "report --stdio -T --no-children -g none")],
    # an AUX trace lets -F name cpu, addr, phys_addr, weight, data_src and
    # iregs the events lack (the defaults printed: cpu -1, data_src N/A);
    # the BTS-like branches print the branch alone; a PSB's addr is its FUP
    "quipper/perf.data.intel_pt-4.14": [
        ("F-aux", "free", "script -F cpu,time,event,addr,ip,data_src,weight,phys_addr"),
        ("F-aux-uregs", "free", "script -F ip,uregs")],
    "quipper/perf.data.callgraph_and_branch-3.8": [("hier", "free",
                                                   "report --stdio --no-children --hierarchy")],
}

# sample_type bit (as perf evlist -v names it) -> script -F fields
SAMPLE_FIELDS = [("IP", "ip"), ("TID", "pid,tid"), ("TIME", "time"), ("ADDR", "addr"),
                 ("CPU", "cpu"), ("PERIOD", "period"), ("WEIGHT", "weight"),
                 ("WEIGHT_STRUCT", "weight"), ("DATA_SRC", "data_src"),
                 ("PHYS_ADDR", "phys_addr"), ("BRANCH_STACK", "brstack"),
                 ("REGS_USER", "uregs"), ("REGS_INTR", "iregs"),
                 ("DATA_PAGE_SIZE", "data_page_size"), ("CODE_PAGE_SIZE", "code_page_size"),
                 ("CGROUP", "cgroup")]

PERF_MAGICS = (b"PERFILE2", b"PERFFILE", b"2ELIFREP")
T_COMPRESSED, T_COMPRESSED2 = 81, 83


def run(argv, cwd, env):
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1, "<timeout>"
    return p.returncode, p.stdout.decode("utf-8", "replace")


def unpack(corpus, tmp):
    """Every NAME.xz of the corpus decompressed to tmp/NAME; the relative names."""
    names = []
    for root, _, files in os.walk(corpus):
        for f in sorted(files):
            if not f.endswith(".xz"):
                continue
            rel = os.path.relpath(os.path.join(root, f[:-3]), corpus)
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            with lzma.open(os.path.join(root, f)) as src, \
                 open(os.path.join(tmp, rel), "wb") as dst:
                shutil.copyfileobj(src, dst)
            names.append(rel)
    return sorted(names)


def is_perf_file(path):
    """A perf.data file (any magic, or a gzip'ed one as hotspot ships)."""
    with open(path, "rb") as f:
        head = f.read(8)
    return head in PERF_MAGICS or head[:2] == b"\x1f\x8b"


def zstd_d(data):
    """What zstd decodes of data: perf flushes each compressed record without
    ending its frame, so zstd decodes all of it and then says the frame ends
    early; its output is taken."""
    return subprocess.run(["zstd", "-dcq"], input=data, capture_output=True).stdout


def unpack_chunks(payloads):
    """The records each compressed payload holds. A payload that starts with
    zstd's magic starts a stream; one that does not continues the previous
    one (perf >= 6.x keeps one stream across records, and a record may end
    in the next payload): each payload's part is what the stream's prefix
    ending with it decodes beyond the previous prefix."""
    out, stream, done = [], b"", 0
    for p in payloads:
        if p[:4] == b"\x28\xb5\x2f\xfd":
            stream, done = b"", 0
        stream += p
        plain = zstd_d(stream)
        out.append(plain[done:])
        done = len(plain)
    return out


def records(buf, start, end):
    """(offset, type, size) of each record in buf[start:end] (little endian)."""
    off = start
    while off + 8 <= end:
        typ, _, size = struct.unpack_from("<IHH", buf, off)
        if size < 8 or off + size > end:
            break
        yield off, typ, size
        off += size
    if off < end:
        yield off, None, end - off  # what follows is copied as it is


def whole_records(data):
    """The length of the whole records data starts with."""
    off = 0
    while off + 8 <= len(data):
        size = struct.unpack_from("<H", data, off + 6)[0]
        if size < 8 or off + size > len(data):
            break
        off += size
    return off


def payload(rec, typ):
    if typ == T_COMPRESSED2:
        return rec[16:16 + struct.unpack_from("<Q", rec, 8)[0]]
    return rec[8:]


def downgrade_records(buf, start, end, pipe):
    """The records of buf[start:end] as perf 6.1 reads them: COMPRESSED2 as
    COMPRESSED (its payload without the data_size word and padding); in a pipe,
    compressed records replaced by what they hold. None when nothing changes."""
    recs = list(records(buf, start, end))
    comp = [(o, t) for o, t, _ in recs if t in (T_COMPRESSED, T_COMPRESSED2)]
    if not comp or (not pipe and all(t == T_COMPRESSED for _, t in comp)):
        return None
    plain = {}
    if pipe:
        parts = unpack_chunks([payload(buf[o:o + sz], t) for o, t, sz in recs
                               if t in (T_COMPRESSED, T_COMPRESSED2)])
        plain = dict(zip([o for o, _ in comp], parts))
    out, carry = bytearray(), b""
    for off, typ, size in recs:
        rec = buf[off:off + size]
        if typ in (T_COMPRESSED, T_COMPRESSED2) and pipe:
            # whole records only: one cut at the payload's end goes on in the
            # next payload (newer perf keeps the rest as well)
            data = carry + plain[off]
            whole = whole_records(data)
            rec, carry = data[:whole], data[whole:]
        elif typ == T_COMPRESSED2:
            data = payload(rec, typ)
            rec = struct.pack("<IHH", T_COMPRESSED, 0, 8 + len(data)) + data
        out += rec
    return out


def downgrade_attrs(buf):
    """File mode: attrs larger than perf 6.1's 128 bytes cut to 128 in place
    when their tail is zero. True when changed."""
    attr_size, a_off, a_size = struct.unpack_from("<QQQ", buf, 16)
    if attr_size <= 128 + 16 or not a_size:
        return False
    n, sz = a_size // attr_size, attr_size - 16
    entries = [buf[a_off + i * attr_size:a_off + (i + 1) * attr_size] for i in range(n)]
    if any(any(e[128:sz]) for e in entries):
        return False
    new = b"".join(e[:4] + struct.pack("<I", 128) + e[8:128] + e[sz:] for e in entries)
    buf[a_off:a_off + len(new)] = new
    struct.pack_into("<QQQ", buf, 16, 144, a_off, len(new))
    return True


def downgrade(src, dst):
    """Write perf 6.1's copy of src to dst; False when none is needed."""
    with open(src, "rb") as f:
        buf = bytearray(f.read())
    if buf[:8] != b"PERFILE2":
        return False
    if struct.unpack_from("<Q", buf, 8)[0] == 16:  # pipe mode
        recs = downgrade_records(buf, 16, len(buf), True)
        if recs is None:
            return False
        buf = buf[:16] + recs
    else:
        changed = downgrade_attrs(buf)
        d_off, d_size = struct.unpack_from("<QQ", buf, 40)
        recs = downgrade_records(buf, d_off, d_off + d_size, False)
        if recs is not None:
            delta = d_size - len(recs)
            feats = bytearray(buf[d_off + d_size:])
            nfeat = sum(bin(w).count("1") for w in struct.unpack_from("<4Q", buf, 72))
            for i in range(nfeat):  # the feature table follows the data
                f_off, f_size = struct.unpack_from("<QQ", feats, 16 * i)
                struct.pack_into("<QQ", feats, 16 * i, f_off - delta, f_size)
            buf = buf[:d_off] + recs + feats
            struct.pack_into("<Q", buf, 48, len(recs))
            changed = True
        if not changed:
            return False
    with open(dst, "wb") as f:
        f.write(buf)
    st = os.stat(src)  # the header's "captured on" is the file's time
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
    return True


def script_fields(perf_file, cwd, env):
    """The sampled fields every event of the file has, as script -F names them."""
    rc, out = run(["perf", "evlist", "-v", "-i", perf_file], cwd, env)
    common = None
    for line in out.splitlines():
        m = re.search(r"sample_type: ([A-Z_|]+)", line)
        bits = set(m.group(1).split("|")) if m else set()
        common = bits if common is None else common & bits
    fields = ["comm", "event"]
    for bit, f in SAMPLE_FIELDS:
        if bit in (common or ()) and f not in fields:
            fields.append(f)
    return ",".join(fields)


def symfs_tree(rel, tmp, names, env):
    """A --symfs tree of the recorded binaries stored beside rel (perfparser's
    `DIR_NAME` for the binary DIR/NAME), placed at the paths the file's build-id
    list names; None without any."""
    folder = os.path.dirname(rel)
    prefix = os.path.basename(rel).split("_perf.data")[0].split(".perf.data")[0] + "_"
    bins = {}
    for n in names:
        b = os.path.basename(n)
        if os.path.dirname(n) == folder and b.startswith(prefix) and not is_perf_file(
                os.path.join(tmp, n)):
            bins[b[len(prefix):]] = os.path.join(tmp, n)
    if not bins:
        return None
    _, out = run(["perf", "buildid-list", "-i", os.path.join(tmp, rel)], tmp, env)
    root = os.path.join(tmp, "symfs", rel.replace("/", "_"))
    for line in out.splitlines():
        path = line.split(None, 1)[-1].strip()
        if path.startswith("/") and os.path.basename(path) in bins:
            dst = root + path
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if not os.path.exists(dst):
                os.symlink(bins[os.path.basename(path)], dst)
    return root if os.path.isdir(root) else None


VDSO_TMP = re.compile(r"^ \.\.\.\.\.\. dso: /tmp/perf-vdso\.so-[A-Za-z0-9]{6}$", re.M)


def dump_normalized(text, perf_file, path):
    """perf's -D text with the test's own traces taken out, nothing else:
    each record's first line names the file perf read, the downgraded copy
    (`0x180@/tmp/.../sleep.data.perf61 [0x28]: event:`), put back to the
    original's name; and a [vdso] sample's dso line names the temporary
    file perf 6.1 copies this host's vDSO into (`/tmp/perf-vdso.so-XXXXXX`,
    random), put back to `[vdso]`."""
    if perf_file != path:
        text = re.sub(r"^(0x[0-9a-f]+)@%s \[" % re.escape(perf_file), r"\1@%s [" % path.replace(
            "\\", "\\\\"), text, flags=re.M)
    return VDSO_TMP.sub(" ...... dso: [vdso]", text)


class Real:
    def __init__(self, pmukit, tmp, only, show):
        self.pk, self.tmp, self.only, self.show = pmukit, tmp, only, show
        self.env = dict(os.environ, HOME=tmp, PERF_BUILDID_DIR=os.path.join(tmp, ".debug"),
                        PERF_PAGER="cat", PAGER="cat", LC_ALL="C")
        self.results = []  # (id, class, same, detail)

    def jobs(self, names):
        """(id, class, perf argv, pmukit argv) of every check of the corpus."""
        out = []
        for rel in names:
            path = os.path.join(self.tmp, rel)
            if not is_perf_file(path):
                continue
            perf_file = path + ".perf61"
            if not downgrade(path, perf_file):
                perf_file = path
            sub = {"F": script_fields(perf_file, self.tmp, self.env),
                   "S": symfs_tree(rel, self.tmp, names, self.env)}
            views = VIEWS + (SYMFS_VIEWS if sub["S"] else []) + \
                (TIE_VIEWS if rel in TIE_FILES else []) + EXTRA_VIEWS.get(rel, [])
            for vid, cls, args in views:
                cid = "real:%s:%s" % (rel, vid)
                if self.only and not fnmatch.fnmatch(cid, self.only):
                    continue
                argv = args.format(**sub).split()
                out.append((cid, cls, ["perf"] + argv + ["-f", "-i", perf_file],
                            [self.pk] + argv + ["-f", "-i", path]))
        return out

    def check(self, job):
        cid, cls, perf_argv, pk_argv = job
        theirs = run(perf_argv, self.tmp, self.env)
        ours = run(pk_argv, self.tmp, self.env)
        if "-D" in perf_argv:
            theirs = (theirs[0], dump_normalized(theirs[1], perf_argv[-1], pk_argv[-1]))
        if perf_argv[1] == "report" and "--stdio" in perf_argv:
            theirs = (theirs[0], drop_tip(theirs[1]))
        same = ours == theirs
        detail, cut = "", False
        if not same and ours[0] == theirs[0] and "report" in perf_argv[1] and \
           cut_agrees(ours[1], theirs[1]):
            cut, detail = True, "perf 6.1 cut a column (docs/perfdata-differences.md, report)"
        if not same and not cut:
            if ours[0] != theirs[0]:
                detail = "exit %d (pmukit) vs %d (perf)" % (ours[0], theirs[0])
            line, x, y = first_difference(ours[1], theirs[1])
            if line:
                detail += "%sline %d\n    pmukit: %.200s\n    perf:   %.200s" % (
                    "; " if detail else "", line, x, y)
            if self.show:
                detail += "\n" + "".join(difflib_lines(theirs[1], ours[1]))
        return cid, cls, same, cut, detail


KINDS = ("perf-wrong", "downgrade", "pmukit-gap")


def entry_kinds(srcdir):
    """(id pattern, kind) of each listed `real:` difference: its entry's
    "[kind]" after the ids (docs/perfdata-differences.md), None without one."""
    out = []
    path = os.path.join(srcdir, "docs", "perfdata-differences.md")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^- ((?:`[^`]+`(?:, )?)+):(?: \[([a-z-]+)\])?", line)
            if m:
                out += [(p, m.group(2)) for p in re.findall(r"`([^`]+)`", m.group(1))
                        if p.startswith("real:")]
    return out


def kind_of(cid, cut, kinds):
    """A difference's kind: perf's column cut is perf's; else its entry's."""
    if cut:
        return "perf-wrong"
    for pat, kind in kinds:
        if fnmatch.fnmatch(cid, pat):
            return kind
    return None


def report(results, allowed, kinds):
    """Print the differences and the counts; the unlisted ids (and listed
    ones without a kind)."""
    unlisted = []
    for cid, _, same, cut, detail in results:
        listed = cut or is_listed(cid, allowed, False)
        if not same:
            kind = kind_of(cid, cut, kinds)
            print("%s %s: %s" % ("listed  " if listed else "UNLISTED", cid, detail))
            if not listed or kind not in KINDS:
                unlisted.append(cid)
        elif cid in allowed:
            print("note: %s is identical now; remove it from docs/perfdata-differences.md"
                  % cid)
    for cls in ("free", "symbol"):
        rs = [r for r in results if r[1] == cls]
        same = sum(1 for r in rs if r[2])
        print("%s views: %d/%d identical (%.1f%%)" % (
            "symbol-free" if cls == "free" else "symbol", same, len(rs),
            100.0 * same / max(len(rs), 1)))
    same = sum(1 for r in results if r[2])
    print("%d/%d identical" % (same, len(results)))
    # the acceptance's figure: a view counts when identical, or differing
    # only where perf 6.1 is wrong or by the test's own downgrade
    for cls in ("free", "symbol"):
        rs = [r for r in results if r[1] == cls]
        ok = [r for r in rs if r[2] or kind_of(r[0], r[3], kinds) in KINDS[:2]]
        gaps = [r[0] for r in rs if not r[2] and kind_of(r[0], r[3], kinds) not in KINDS[:2]]
        print("%s views identical or differing only where perf 6.1 is wrong or by the "
              "test's downgrade: %d/%d (%.1f%%); pmukit gaps: %s" % (
                  "symbol-free" if cls == "free" else "symbol", len(ok), len(rs),
                  100.0 * len(ok) / max(len(rs), 1), " ".join(gaps) or "none"))
    return unlisted


def main():
    opts = parse_args(sys.argv[1:])
    if opts is None:
        print(__doc__)
        return 2
    only, show, keep = opts
    srcdir = os.environ.get("PK_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    pmukit = os.environ.get("PK_PMUKIT")
    if not pmukit:
        print("PK_PMUKIT must name the built pmukit")
        return 2
    for prog in ("perf", "zstd"):
        if not shutil.which(prog):
            print("SKIP: %s is not installed (perf is the reference; zstd makes perf 6.1's "
                  "copies of compressed pipe files)" % prog)
            return 77
    p = subprocess.run(["perf", "version"], capture_output=True, text=True)
    if p.returncode or not re.search(r"perf version 6\.1\b", p.stdout):
        print("SKIP: the reference is perf 6.1, found: %s" % p.stdout.strip())
        return 77
    tmp = keep or tempfile.mkdtemp(prefix="pd_real.")
    os.makedirs(tmp, exist_ok=True)
    try:
        names = unpack(os.path.join(srcdir, "tests", "data", "perfdata-real"), tmp)
        h = Real(os.path.abspath(pmukit), tmp, only, show)
        jobs = h.jobs(names)
        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            results = sorted(pool.map(h.check, jobs))
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    unlisted = report(results, allowed_list(srcdir), entry_kinds(srcdir))
    if unlisted:
        print("%d differences not listed in docs/perfdata-differences.md with a kind "
              "(%s): %s" % (len(unlisted), ", ".join(KINDS), " ".join(unlisted)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
