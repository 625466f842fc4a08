#!/usr/bin/env python3
"""Renders an SVG chart of tools/pmukit/plot_svg.c in headless Chromium and
checks the picture, not the text.

    svg_check.py SVG OUTDIR --band ID COLOR=SHARE... [--band ID ...]

The SVG must parse as XML. Chromium draws it at its own size with one CSS
pixel per image pixel (OUTDIR/<name>.png); the PNG is decoded here (zlib
and the PNG filters, Python's standard library only). For each band (the
<g id=ID> holding a rect of class plot-area) every COLOR must cover SHARE of
the plot area, within 0.03 (edges are antialiased), and the regions around
it must be drawn: the y axis labels on the left, the x axis labels below,
the legend on the right (with a swatch of each colour), the title on top.

Exit 0: all good; 1: a check failed (each failure printed); 77: Chromium is
not installed (the reason printed), so the caller can skip."""
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

SVG_NS = "{http://www.w3.org/2000/svg}"
TOLERANCE = 0.03


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def render(svg, width, height, png, outdir):
    profile = os.path.join(outdir, "chromium-profile")
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--force-device-scale-factor=1", "--force-color-profile=srgb",
           "--user-data-dir=" + profile, "--window-size=%d,%d" % (width, height),
           "--screenshot=" + png, "file://" + os.path.abspath(svg)]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    if run.returncode != 0 or not os.path.exists(png):
        sys.exit("chromium failed (%d):\n%s" % (run.returncode, run.stdout.decode(errors="replace")))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(path):
    """Returns (width, height, rows) with rows[y] a bytes of RGB triples."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("%s: unsupported PNG (depth %d, type %d, interlace %d)"
                                 % (path, depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[ftype]) & 0xFF
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return width, height, rows


def hex_rgb(color):
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


def pixel(rows, x, y):
    return tuple(rows[y][3 * x:3 * x + 3])


def near(p, rgb, tol=6):
    return all(abs(a - b) <= tol for a, b in zip(p, rgb))


def region_ink(rows, x0, y0, x1, y1):
    """Pixels clearly darker than the white background in the region."""
    return sum(1 for y in range(max(y0, 0), min(y1, len(rows)))
               for x in range(max(x0, 0), min(x1, len(rows[0]) // 3))
               if sum(pixel(rows, x, y)) < 3 * 170)


def check_band(rows, g, expect, failures):
    area = next((r for r in g.iter(SVG_NS + "rect") if r.get("class") == "plot-area"), None)
    if area is None:
        failures.append("band %s: no plot-area" % g.get("id"))
        return
    x, y = int(float(area.get("x"))), int(float(area.get("y")))
    w, h = int(float(area.get("width"))), int(float(area.get("height")))
    inside = [pixel(rows, px, py) for py in range(y + 1, y + h - 1) for px in range(x + 1, x + w - 1)]
    for color, share in expect:
        got = sum(1 for p in inside if near(p, hex_rgb(color))) / len(inside)
        ok = abs(got - share) <= TOLERANCE
        print("  %s %s: %.3f of the plot area, expected %.3f%s"
              % (g.get("id"), color, got, share, "" if ok else "  <-- WRONG"))
        if not ok:
            failures.append("band %s: %s covers %.3f, expected %.3f" % (g.get("id"), color, got, share))
        legend = sum(1 for py in range(y, y + h) for px in range(x + w + 10, x + w + 40)
                     if near(pixel(rows, px, py), hex_rgb(color)))
        if legend < 50:
            failures.append("band %s: no legend swatch of %s" % (g.get("id"), color))
    for name, box in (("y axis labels", (x - 40, y - 6, x - 4, y + h + 6)),
                      ("x axis labels", (x, y + h + 6, x + w, y + h + 44)),
                      ("legend text", (x + w + 36, y, x + w + 210, y + h))):
        ink = region_ink(rows, *box)
        if ink < 40:
            failures.append("band %s: %s not drawn (%d dark pixels)" % (g.get("id"), name, ink))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    svg, outdir, bands, cur = argv[1], argv[2], [], None
    for arg in argv[3:]:
        if arg == "--band":
            cur = None
        elif cur is None:
            cur = (arg, [])
            bands.append(cur)
        else:
            color, share = arg.split("=")
            cur[1].append((color, float(share)))
    root = ET.parse(svg).getroot()  # well-formed, or an exception
    if not chromium():
        print("chromium is not installed (Debian package chromium)")
        return 77
    width, height = int(float(root.get("width"))), int(float(root.get("height")))
    png = os.path.join(outdir, os.path.splitext(os.path.basename(svg))[0] + ".png")
    render(svg, width, height, png, outdir)
    pw, ph, rows = decode_png(png)
    failures = []
    if (pw, ph) != (width, height):
        failures.append("PNG is %dx%d, the SVG %dx%d" % (pw, ph, width, height))
    if region_ink(rows, 0, 0, width, 40) < 100:
        failures.append("no title drawn")
    for band, expect in bands:
        g = next((e for e in root.iter(SVG_NS + "g") if e.get("id") == band), None)
        if g is None:
            failures.append("no band %s in the SVG" % band)
        else:
            check_band(rows, g, expect, failures)
    for f in failures:
        print("FAIL: " + f)
    print("%s: %s (%s)" % (os.path.basename(svg), "ok" if not failures else "%d failures" % len(failures), png))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
