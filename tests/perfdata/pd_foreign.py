#!/usr/bin/env python3
"""perf.data files from other machines against perf 6.1 (test `perfdata_foreign`,
issue 20 classes 1 and 2): hand-made files whose kernel maps, modules, build
ids and ARCH are chosen here are read by `perf` and by `pmukit` with the same
options (`report -s comm,dso`, `report --no-children`, `script`); their
standard outputs (perf's random tip aside) and exit codes must be the same.

  modules   a foreign kernel (build id not this host's) with module maps
            ("/lib/modules/.../i915.ko" listed with a build id, "ext4.ko" and
            "snd-hda-intel.ko" not, "[drm]"), kernel samples in each and a
            call chain across them: one row per module, no kernel symbol
            from this host
  hostkern  this host's kernel (its build id from /sys/kernel/notes) at this
            host's _text: kallsyms names; the same file with another build id:
            none; without one: kallsyms names (perf's rule for old files); at
            another boot's KASLR slide: the same names (kallsyms moved back by
            the distance of the map's "_text"); without one but recorded on
            another architecture: none (perf 6.1 names them: listed)
  binaries  one program (sym_progs/lines.c, built here) under four paths:
            its build id recorded (names), another build id recorded (none),
            the path gone and the binary in the build-id cache
            (PERF_BUILDID_DIR/.build-id/xx/rest/elf: names), no build id
            recorded (the local file, as perf); a [vdso] of another kernel
  oldvdso   this host's kernel (build id) with a [vdso] map as kernel 3.4
            recorded it (pgoff = its start), no vdso build id: perf zeroes a
            vdso's pgoff and names the samples from this host's image; the
            same under another kernel's build id: [unknown] (pmukit alone);
            under --symfs (the cache moves there): [unknown] in both tools
  foreign   the same without build ids in a file whose ARCH is another
            architecture: pmukit never reads an ELF of another machine type
            (perf 6.1 does, a listed difference): every sample [unknown];
            also in pipe mode (ARCH in a HEADER_FEATURE record)
  debuginfod  the binaries file with the cache empty: "gone" named only from
            a debuginfod server ($DEBUGINFOD_URLS, served by the test; perf 6.1
            here is built without debuginfod: pmukit alone is checked)
  recorded  a file pmukit records here (the same program), read as on
            another machine: the program rebuilt with another build id
            (none), moved away with its copy in the build-id cache (named),
            found under another root with --symfs (named)

HOME and PERF_BUILDID_DIR point into the test's directory for both tools.
Skipped (77) without perf 6.1 or a C compiler.

usage: pd_foreign.py [--show] [--keep DIR]
  env PK_PMUKIT (the pmukit binary), PK_SRCDIR (the source tree)
"""
import os
import platform
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_diff import describe_difference, drop_tip, run, test_args  # noqa: E402

PID_K = 0xFFFFFFFF          # the kernel's maps: pid -1
MISC_KERNEL, MISC_USER = 1, 2
CTX_KERNEL, CTX_USER = (1 << 64) - 128, (1 << 64) - 512
# sample_type IP|TID|TIME|PERIOD|CALLCHAIN; the sample_id trailer TID|TIME
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x100 | 0x20
FEAT_BUILD_ID, FEAT_ARCH = 2, 6
VIEWS = ["report -s comm,dso --stdio", "report --stdio --no-children", "script"]


def align(b, n=8):
    return b + b"\0" * (-len(b) % n)


class PerfData:
    """A file-mode perf.data: one cpu-clock attr, records, BUILD_ID and ARCH."""

    def __init__(self, arch):
        self.recs, self.bids, self.arch, self.t = [], [], arch, 1000000000

    def _rec(self, rtype, misc, body, trailer=True):
        if trailer:
            body += struct.pack("<IIQ", 0, 0, self.t)  # pid, tid, time
        self.recs.append(struct.pack("<IHH", rtype, misc, 8 + len(body)) + body)

    def comm(self, pid, name):
        self._rec(3, 0, struct.pack("<II", pid, pid) + align(name.encode() + b"\0"))

    def mmap(self, pid, addr, size, pgoff, name, misc):
        self._rec(1, misc, struct.pack("<IIQQQ", pid, pid if pid != PID_K else 0, addr, size,
                                       pgoff) + align(name.encode() + b"\0"))

    def sample(self, pid, ip, misc, chain=None):
        """A sample at ip; its call chain is the ip alone unless given."""
        if chain is None:
            chain = [CTX_KERNEL if misc == MISC_KERNEL else CTX_USER, ip]
        self.t += 1000
        body = struct.pack("<QIIQQQ", ip, pid, pid, self.t, 1000, len(chain))
        body += b"".join(struct.pack("<Q", a) for a in chain)
        self._rec(9, misc, body, trailer=False)

    def build_id(self, name, hexid, misc):
        raw = bytes.fromhex(hexid).ljust(24, b"\0")
        body = struct.pack("<i", -1) + raw + align(name.encode() + b"\0", 64)
        self.bids.append(struct.pack("<IHH", 0, misc, 8 + len(body)) + body)

    ATTR = struct.pack("<IIQQQQQIIQ", 1, 112, 0, 1000, SAMPLE_TYPE, 0,
                       1 << 18 | 1 << 0, 0, 0, 0).ljust(112, b"\0")  # disabled, sample_id_all

    def arch_feature(self):
        arch = align(self.arch.encode() + b"\0", 64)
        return struct.pack("<I", len(arch)) + arch

    def write_pipe(self, path):
        """The same in pipe mode: HEADER_ATTR, HEADER_FEATURE (ARCH), the
        records (no build ids: perf writes them at the end)."""
        out = b"PERFILE2" + struct.pack("<Q", 16)
        body = self.ATTR + struct.pack("<Q", 7)
        out += struct.pack("<IHH", 64, 0, 8 + len(body)) + body
        body = struct.pack("<Q", FEAT_ARCH) + self.arch_feature()
        out += struct.pack("<IHH", 80, 0, 8 + len(body)) + body
        with open(path, "wb") as f:
            f.write(out + b"".join(self.recs))

    def write(self, path):
        attr = self.ATTR
        ids = struct.pack("<Q", 7)
        data = b"".join(self.recs)
        feats = [(FEAT_BUILD_ID, b"".join(self.bids)), (FEAT_ARCH, self.arch_feature())]
        off_ids = 104
        off_attrs = off_ids + len(ids)
        off_data = off_attrs + len(attr) + 16
        off_feat = off_data + len(data)
        bitmap = 0
        for f, _ in feats:
            bitmap |= 1 << f
        out = b"PERFILE2" + struct.pack("<QQ", 104, len(attr) + 16)
        out += struct.pack("<QQQQQQ", off_attrs, len(attr) + 16, off_data, len(data), 0, 0)
        out += struct.pack("<QQQQ", bitmap, 0, 0, 0)
        out += ids + attr + struct.pack("<QQ", off_ids, len(ids)) + data
        at = off_feat + 16 * len(feats)
        table, blobs = b"", b""
        for _, blob in feats:
            table += struct.pack("<QQ", at + len(blobs), len(blob))
            blobs += blob
        with open(path, "wb") as f:
            f.write(out + table + blobs)


# ---- the files ----

KBASE, MBASE = 0xFFFFFFFF81000000, 0xFFFFFFFFC0000000
MODULES = [("/lib/modules/9.9.9/kernel/drivers/gpu/drm/i915/i915.ko", "ab" * 20),
           ("/lib/modules/9.9.9/kernel/fs/ext4/ext4.ko", None),
           ("/lib/modules/9.9.9/kernel/sound/pci/hda/snd-hda-intel.ko", None),
           ("[drm]", None)]


def kernel_maps(pd, kbase, ksize, kbid):
    pd.mmap(PID_K, kbase, ksize, kbase, "[kernel.kallsyms]_text", MISC_KERNEL)
    if kbid:
        pd.build_id("[kernel.kallsyms]", kbid, MISC_KERNEL)


def modules_file(path):
    pd = PerfData(platform.machine())
    kernel_maps(pd, KBASE, 0x1000000, "11" * 20)
    for i, (name, bid) in enumerate(MODULES):
        pd.mmap(PID_K, MBASE + i * 0x100000, 0x80000, 0, name, MISC_KERNEL)
        if bid:
            pd.build_id(name, bid, MISC_KERNEL)
    pd.comm(100, "Xorg")
    pd.comm(200, "kworker/0:1")
    for k in range(12):
        pd.sample(100, KBASE + 0x1234 + 0x100 * k, MISC_KERNEL)
        mod = MBASE + (k % len(MODULES)) * 0x100000 + 0x500 + 0x40 * k
        pd.sample(100 if k % 3 else 200, mod, MISC_KERNEL,
                  [CTX_KERNEL, mod, MBASE + 0x100000 + 0x77, KBASE + 0x4321])
    pd.write(path)


def host_kernel():
    """This host's _text, a few kernel functions after it, its build id."""
    k = subprocess.run("grep -m1 ' _text$' /proc/kallsyms", shell=True, capture_output=True,
                       text=True).stdout.split()
    if not k or int(k[0], 16) == 0:
        return None
    text = int(k[0], 16)
    funcs = []
    with open("/proc/kallsyms") as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in "tT" and "\t" not in line and int(a, 16) > text + 0x10000:
                funcs.append(int(a, 16))
                if len(funcs) == 8:
                    break
    try:
        notes = open("/sys/kernel/notes", "rb").read()
    except OSError:
        return None
    off = 0
    while off + 12 <= len(notes):
        nsz, dsz, typ = struct.unpack_from("<III", notes, off)
        name = notes[off + 12:off + 12 + nsz]
        desc = off + 12 + ((nsz + 3) & ~3)
        if typ == 3 and name[:3] == b"GNU":
            return text, funcs, notes[desc:desc + dsz].hex()
        off = desc + ((dsz + 3) & ~3)
    return None


def hostkern_file(path, hk, kbid, slide=0, arch=None):
    """This host's kernel recorded at another boot's KASLR slide (slide
    bytes away): its map and samples there."""
    text, funcs, _ = hk
    pd = PerfData(arch or platform.machine())
    kernel_maps(pd, text + slide, 0x2000000, kbid)
    pd.comm(300, "swapper")
    for a in funcs:
        pd.sample(300, a + slide + 4, MISC_KERNEL)
    pd.write(path)


def build_id_of(exe):
    out = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def func_offsets(exe):
    """(file offset, name) of the program's functions of at least 16 bytes."""
    out = subprocess.run(["readelf", "-sW", exe], capture_output=True, text=True).stdout
    return [int(m.group(1), 16) for m in re.finditer(
        r"^\s*\d+: ([0-9a-f]+)\s+(\d+) FUNC\s+\w+\s+\w+\s+\d+ (\w+)", out, re.M)
        if int(m.group(2)) >= 16]


def binaries_file(path, tmp, exe, arch, with_bids, pipe=False):
    bid = build_id_of(exe)
    offs = func_offsets(exe)
    progs = [("ok", bid), ("rebuilt", "22" * 20), ("gone", bid), ("nobid", None)]
    pd = PerfData(arch)
    base = 0x555555554000
    for i, (tag, b) in enumerate(progs):
        pid = 1000 + i
        where = os.path.join(tmp, "bin", "prog_" + tag)
        pd.comm(pid, "prog_" + tag)
        # the whole file mapped at offset 0 (addresses = base + file offset
        # within the first PT_LOAD segments, which start at offset 0)
        pd.mmap(pid, base, 0x100000, 0, where, MISC_USER)
        pd.mmap(pid, 0x7FFF00000000, 0x2000, 0, "[vdso]", MISC_USER)
        if with_bids and b:
            pd.build_id(where, b, MISC_USER)
        for o in offs[:6]:
            pd.sample(pid, base + o + 1, MISC_USER)
        pd.sample(pid, 0x7FFF00000000 + 0x900, MISC_USER)
    if with_bids:
        pd.build_id("[vdso]", "33" * 20, MISC_USER)
    if pipe:
        pd.write_pipe(path)
    else:
        pd.write(path)
    return offs


def setup_binaries(tmp, exe):
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir, exist_ok=True)
    for tag in ("ok", "rebuilt", "nobid"):
        shutil.copy(exe, os.path.join(bindir, "prog_" + tag))
    # "gone": only perf's build-id cache has it (.build-id/xx/rest/elf)
    bid = build_id_of(exe)
    cache = os.path.join(tmp, "home", ".debug", ".build-id", bid[:2], bid[2:])
    os.makedirs(cache, exist_ok=True)
    shutil.copy(exe, os.path.join(cache, "elf"))


# ---- the checks ----

def compare(pmukit, data, tmp, env, results, show, label):
    for v in VIEWS:
        a = run("%s %s -i %s" % (pmukit, v, data), tmp, env)
        b = run("perf %s -i %s" % (v, data), tmp, env)
        ours, theirs = (a[0], a[1]), (b[0], drop_tip(b[1]))
        detail = describe_difference(a, b, show, ours[1], theirs[1]) if ours != theirs else ""
        results.append(("%s: %s" % (label, v), ours == theirs, detail))
    return run("%s script -i %s" % (pmukit, data), tmp, env)[1]


def expect(results, label, ok, detail):
    results.append((label, bool(ok), "" if ok else "\n" + detail[:1500]))


def other_arch():
    return "x86_64" if platform.machine() in ("aarch64", "arm64") else "aarch64"


def skip_reason(cc):
    if not shutil.which("perf"):
        return "perf is not installed: nothing to compare with"
    p = subprocess.run("perf version", shell=True, capture_output=True, text=True)
    if not re.search(r"perf version 6\.1\b", p.stdout):
        return "the reference is perf 6.1, found: %s" % p.stdout.strip()
    if not cc:
        return "no C compiler (cc, gcc) to build the program"
    if not shutil.which("readelf"):
        return "no readelf"
    return None


def check_modules(pmukit, tmp, env, res, show):
    """Modules of a foreign kernel: a row each, no kernel name of this host."""
    modules_file(os.path.join(tmp, "modules.data"))
    out = compare(pmukit, "modules.data", tmp, env, res, show, "modules")
    rows = run("%s report -s dso --stdio -i modules.data" % pmukit, tmp, env)[1]
    for m in ("[i915]", "[ext4]", "[snd_hda_intel]", "[drm]"):
        expect(res, "modules: a row for %s" % m, re.search(r"%%\s+%s\s*$" % re.escape(m), rows,
               re.M) is not None, rows)
    expect(res, "modules: no kernel symbol of this host", "+0x" not in out, out[:2000])


def check_kernels(pmukit, tmp, env, res, show):
    """This host's kernel, another one, none recorded, another boot's slide;
    each also under another root (--symfs: perf reads no kallsyms there,
    even a copy of this one); none recorded by another architecture."""
    hk = host_kernel()
    if not hk:
        print("no readable kallsyms or kernel build id: host kernel checks skipped")
        return
    symfs = os.path.join(tmp, "kroot")
    os.makedirs(os.path.join(symfs, "proc"), exist_ok=True)
    shutil.copy("/proc/kallsyms", os.path.join(symfs, "proc", "kallsyms"))
    for label, kbid, slide in (("hostkern", hk[2], 0), ("otherkern", "44" * 20, 0),
                               ("nokbid", None, 0), ("kaslr", hk[2], 0x3400000)):
        hostkern_file(os.path.join(tmp, label + ".data"), hk, kbid, slide)
        out = compare(pmukit, label + ".data", tmp, env, res, show, label)
        compare(pmukit, label + ".data --symfs " + symfs, tmp, env, res, show,
                label + " --symfs")
        named = len(re.findall(r" \S+\+0x[0-9a-f]+ \(\[kernel", out))
        expect(res, "%s: kernel names %s" % (label, "none" if kbid == "44" * 20 else "all"),
               named == (0 if kbid == "44" * 20 else len(hk[1])), out)
    # (perf 6.1 names this one from this host's kallsyms: listed)
    hostkern_file(os.path.join(tmp, "archkern.data"), hk, None, 0, other_arch())
    out = run("%s script -i archkern.data" % pmukit, tmp, env)[1]
    expect(res, "archkern: no kernel names from this host's kallsyms",
           " [unknown] ([kernel" in out and "+0x" not in out, out)


def check_binaries(pmukit, exe, tmp, env, res, show):
    """The recorded program, a rebuilt one, one from the cache, one without a
    build id, a foreign vdso; then another architecture without build ids:
    never this host's binaries (perf 6.1 reads them: listed, so pmukit alone
    is checked, and that perf still does)."""
    setup_binaries(tmp, exe)
    binaries_file(os.path.join(tmp, "binaries.data"), tmp, exe, platform.machine(), True)
    out = compare(pmukit, "binaries.data", tmp, env, res, show, "binaries")
    for tag, named in (("ok", True), ("rebuilt", False), ("gone", True), ("nobid", True)):
        lines, unk = named_lines(out, "prog_" + tag)
        expect(res, "binaries: prog_%s %s" % (tag, "named" if named else "[unknown]"),
               lines and unk == (0 if named else len(lines)), "\n".join(lines))
    vdso = [x for x in out.splitlines() if "([vdso])" in x]
    expect(res, "binaries: a foreign [vdso] is [unknown]",
           vdso and all("[unknown]" in x for x in vdso), "\n".join(vdso))
    for name, pipe in (("foreign", False), ("foreign.pipe", True)):
        binaries_file(os.path.join(tmp, name + ".data"), tmp, exe, other_arch(), False, pipe)
        out = run("%s script -i %s.data" % (pmukit, name), tmp, env)[1]
        lines = [x for x in out.splitlines() if x.startswith("\t")]
        expect(res, "%s: no symbol from a binary of another architecture" % name,
               lines and all("[unknown]" in x for x in lines), "\n".join(lines[:20]))
        theirs = run("perf script -i %s.data" % name, tmp, env)[1]
        expect(res, "%s: perf 6.1 names them (the listed difference still holds)" % name,
               "[unknown] (%s" % os.path.join(tmp, "bin", "prog_nobid") not in theirs,
               theirs[:2000])


def host_vdso_funcs(tmp):
    """This host's vDSO image copied out of this process (every process of a
    kernel maps the same one): its functions' offsets; None without one."""
    with open("/proc/self/maps") as f:
        m = [ln.split("-")[0:2] for ln in f if ln.rstrip().endswith("[vdso]")]
    if not m:
        return None
    start, end = int(m[0][0], 16), int(m[0][1].split()[0], 16)
    with open("/proc/self/mem", "rb") as f:
        f.seek(start)
        image = f.read(end - start)
    path = os.path.join(tmp, "host-vdso.so")
    with open(path, "wb") as f:
        f.write(image)
    return func_offsets(path)


def oldvdso_file(path, hk, kbid, offs):
    """A [vdso] map as kernel 3.4 recorded it (its start address as pgoff),
    no build id for it, samples in its functions; the kernel's build id kbid."""
    text, _, _ = hk
    pd = PerfData(platform.machine())
    kernel_maps(pd, text, 0x2000000, kbid)
    pd.comm(500, "powerd")
    vdso = 0x7FFF17D28000
    pd.mmap(500, vdso, 0x2000, vdso, "[vdso]", MISC_USER)
    for o in offs:
        pd.sample(500, vdso + o + 4, MISC_USER)
    pd.write(path)


def check_old_vdso(pmukit, tmp, env, res, show):
    """A vdso map's pgoff is 0 whatever was recorded (perf's rule: kernel 3.4
    wrote the map's start there), and its image is this host's only when the
    recorded kernel is this host's (by build id): named as perf names them;
    under another kernel, [unknown] (perf 6.1 takes this host's image all the
    same: listed, so pmukit alone is checked there)."""
    hk, offs = host_kernel(), host_vdso_funcs(tmp)
    if not hk or not offs:
        print("no kernel build id or no vDSO: old vdso checks skipped")
        return
    oldvdso_file(os.path.join(tmp, "oldvdso.data"), hk, hk[2], offs)
    out = compare(pmukit, "oldvdso.data", tmp, env, res, show, "oldvdso")
    named = len(re.findall(r" \S+\+0x[0-9a-f]+ \(\[vdso\]\)", out))
    expect(res, "oldvdso: this kernel's vdso names all", named == len(offs), out)
    # under --symfs the build-id cache is <symfs>/.debug (perf 6.1): the host's
    # image does not stand in for it, so neither tool names a vdso sample
    os.makedirs(os.path.join(tmp, "emptyroot"), exist_ok=True)
    for tool in (pmukit, "perf"):
        out = run("%s script --symfs emptyroot -i oldvdso.data" % tool, tmp, env)[1]
        lines = [x for x in out.splitlines() if "([vdso])" in x]
        expect(res, "oldvdso --symfs: %s names no vdso sample" % os.path.basename(tool),
               len(lines) == len(offs) and all("[unknown]" in x for x in lines), out)
    oldvdso_file(os.path.join(tmp, "oldvdso.other.data"), hk, "44" * 20, offs)
    out = run("%s script -i oldvdso.other.data" % pmukit, tmp, env)[1]
    lines = [x for x in out.splitlines() if "([vdso])" in x]
    expect(res, "oldvdso.other: another kernel's vdso is [unknown]",
           len(lines) == len(offs) and all("[unknown]" in x for x in lines), out)


def checks(pmukit, cc, srcdir, tmp, show):
    res = []
    env = dict(os.environ, HOME=os.path.join(tmp, "home"),
               PERF_BUILDID_DIR=os.path.join(tmp, "home", ".debug"), PMUKIT_KALLSYMS_CACHE="")
    os.makedirs(env["PERF_BUILDID_DIR"], exist_ok=True)
    check_modules(pmukit, tmp, env, res, show)
    check_kernels(pmukit, tmp, env, res, show)
    check_old_vdso(pmukit, tmp, env, res, show)
    exe = os.path.join(tmp, "lines")
    p = subprocess.run("%s -O2 -Wl,--build-id -o %s %s" % (cc, exe, os.path.join(
        srcdir, "tests", "perfdata", "sym_progs", "lines.c")), shell=True, capture_output=True,
        text=True)
    if p.returncode:
        raise SystemExit("cannot build lines.c: " + p.stderr)
    check_binaries(pmukit, exe, tmp, env, res, show)
    debuginfod(pmukit, exe, tmp, env, res)
    recorded(pmukit, cc, srcdir, tmp, env, res, show)
    return res


def debuginfod(pmukit, exe, tmp, env, res):
    """The binaries file with the build-id cache empty: "gone" is named
    only from a debuginfod server ($DEBUGINFOD_URLS, served here); perf
    6.1 built without debuginfod, pmukit alone is checked."""
    import ctypes.util
    import http.server
    import threading
    if not ctypes.util.find_library("debuginfod"):
        print("no libdebuginfod: debuginfod checks skipped")
        return
    bid, body = build_id_of(exe), open(exe, "rb").read()

    class Server(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ok = self.path == "/buildid/%s/executable" % bid
            self.send_response(200 if ok else 404)
            self.send_header("Content-Length", str(len(body) if ok else 0))
            self.end_headers()
            if ok:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    shutil.rmtree(os.path.join(env["PERF_BUILDID_DIR"], ".build-id"), ignore_errors=True)
    srv = http.server.HTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        for urls, named in (("", False), ("http://127.0.0.1:%d" % srv.server_port, True)):
            e = dict(env, DEBUGINFOD_URLS=urls,
                     DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "dcache"))
            out = run("%s script -i binaries.data" % pmukit, tmp, e)[1]
            gone, unk = named_lines(out, "prog_gone")
            expect(res, "debuginfod %s: prog_gone %s" % ("on" if urls else "off",
                   "named" if named else "[unknown]"),
                   gone and unk == (0 if named else len(gone)), "\n".join(gone))
            bad, unk = named_lines(out, "prog_rebuilt")
            expect(res, "debuginfod %s: prog_rebuilt [unknown]" % ("on" if urls else "off"),
                   bad and unk == len(bad), "\n".join(bad))
    finally:
        srv.shutdown()


def named_lines(out, prog):
    """The script lines of samples in prog, and how many are [unknown]."""
    lines = [x for x in out.splitlines() if x.rstrip().endswith("/%s)" % prog)]
    return lines, sum("[unknown]" in x for x in lines)


def recorded(pmukit, cc, srcdir, tmp, env, res, show):
    """A file pmukit records here, read "on another machine": the program
    moved away (the build-id cache has it, as `perf buildid-cache -a` left
    it), rebuilt with another build id, or found under --symfs."""
    rec = os.path.join(tmp, "rec")
    os.makedirs(rec, exist_ok=True)
    # the same program, built alike, is in the cache from the checks before
    shutil.rmtree(os.path.join(env["PERF_BUILDID_DIR"], ".build-id"), ignore_errors=True)
    src = os.path.join(srcdir, "tests", "perfdata", "sym_progs", "lines.c")
    prog = os.path.join(rec, "prog")
    if run("%s -O2 -o %s %s" % (cc, prog, src), tmp, env)[0]:
        raise SystemExit("cannot build lines.c")
    # -N: record keeps no copy in the build-id cache (as on another machine)
    rc, _, err = run("%s record -N -e cpu-clock -o rec.data -- %s 300000" % (pmukit, prog), tmp,
                     env)
    if rc:
        print("pmukit cannot record here (%s): recorded-file checks skipped" % err.strip()[-200:])
        return
    compare(pmukit, "rec.data", tmp, env, res, show, "recorded")
    # the program rebuilt: another build id at the same path
    os.rename(prog, prog + ".orig")
    run("%s -O1 -DREBUILT -o %s %s" % (cc, prog, src), tmp, env)
    out = compare(pmukit, "rec.data", tmp, env, res, show, "recorded, rebuilt")
    lines, unk = named_lines(out, "prog")
    expect(res, "recorded, rebuilt: [unknown]", lines and unk == len(lines), "\n".join(lines))
    # moved away, its copy in the build-id cache
    os.unlink(prog)
    bid = build_id_of(prog + ".orig")
    cache = os.path.join(env["PERF_BUILDID_DIR"], ".build-id", bid[:2], bid[2:])
    os.makedirs(cache, exist_ok=True)
    shutil.copy(prog + ".orig", os.path.join(cache, "elf"))
    out = compare(pmukit, "rec.data", tmp, env, res, show, "recorded, moved")
    lines, unk = named_lines(out, "prog")
    expect(res, "recorded, moved: named from the cache", lines and unk == 0, "\n".join(lines))
    shutil.rmtree(cache)
    # another root (--symfs): the program there, nothing else
    symfs = os.path.join(tmp, "symfs")
    os.makedirs(symfs + rec, exist_ok=True)
    shutil.copy(prog + ".orig", symfs + prog)
    out = compare(pmukit, "rec.data --symfs " + symfs, tmp, env, res, show, "recorded, --symfs")
    lines, unk = named_lines(out, "prog")
    expect(res, "recorded, --symfs: named from there", lines and unk == 0, "\n".join(lines))


def main():
    got = test_args(__doc__, skip_reason, "pd_foreign.")
    if isinstance(got, int):
        return got
    show, keep, srcdir, pmukit, cc, tmp = got
    try:
        results = checks(pmukit, cc, srcdir, tmp, show)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    bad = 0
    for cid, same, detail in results:
        print("%s %s%s" % ("same     " if same else "DIFFERENT", cid, "" if same else ": " + detail))
        bad += not same
    print("%d/%d as expected" % (len(results) - bad, len(results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
