#!/usr/bin/env python3
"""The shared library exports exactly the public API, each name listed.

Public means: a function declared in include/pmukit/*.h. Everything else the
library defines is internal (a `pki_` name, or static) and must not be in the
dynamic symbol table, so that programs cannot come to depend on it.

lib/libpmukit.map is the export list, one name per line under a version node
(as libperf's map lists its names; no wildcard): a name is added to the API
by declaring it in a header and listing it in the map. Three checks:
  - the map lists every declared function and no other name;
  - every exported symbol is declared, and every declared one exported (a
    declaration without a definition, or one hidden by mistake, fails here
    rather than at a user's link);
  - every exported symbol carries one of the map's versions.

Usage: check_exports.py NM LIBPMUKIT_SO INCLUDE_DIR MAP
       check_exports.py --write INCLUDE_DIR MAP   (rewrite a one-node map
                                                   from the headers)
Prints cmocka's summary lines so that scripts/test-totals.py counts it.
"""
import pathlib
import re
import subprocess
import sys


def exported(nm, lib):
    """{name: version} of the defined dynamic symbols."""
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":  # A: the version node
            name, _, version = parts[2].partition("@")
            names[name] = version.lstrip("@")
    return names


def uncomment(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def without_bodies(text):
    """text without the bodies of the functions it defines (a header's
    static inline ones): a {...} block that follows ')' becomes ';'."""
    out, i = [], 0
    while i < len(text):
        j = text.find("{", i)
        if j < 0 or not text[:j].rstrip().endswith(")"):
            end = len(text) if j < 0 else j + 1
            out.append(text[i:end])
            i = end
            continue
        out.append(text[i:j] + ";")
        depth = 0
        for k in range(j, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                break
        i = k + 1
    return "".join(out)


def declared(incdir):
    """{name: header} of the pk_ functions the public headers declare."""
    names = {}
    for h in sorted(pathlib.Path(incdir).glob("*.h")):
        text = without_bodies(uncomment(h.read_text()))
        text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
        for decl in text.split(";"):
            if "typedef" in decl or "static" in decl:
                continue
            m = re.search(r"\b(pk_\w+)\s*\(", decl)
            if m:
                names.setdefault(m.group(1), h.name)
    return names


def read_map(path):
    """(nodes, names, problems): the version nodes in order, {name: node},
    and what makes the map other than an explicit list."""
    text = uncomment(pathlib.Path(path).read_text())
    nodes, names, problems = [], {}, []
    for m in re.finditer(r"(\w[\w.]*)\s*\{(.*?)\}\s*([\w.]*)\s*;", text, flags=re.S):
        node, body = m.group(1), m.group(2)
        nodes.append(node)
        scope = None
        for item in body.split(";"):
            item = item.strip()
            if ":" in item:
                scope, _, item = item.partition(":")
                scope, item = scope.strip(), item.strip()
            if not item:
                continue
            if scope == "local":
                if item != "*" or node != nodes[0]:
                    problems.append(f"{node}: local: {item} (only `local: *;`, in the first node)")
            elif any(c in item for c in "*?["):
                problems.append(f"{node}: the pattern {item} (list each name)")
            elif item in names:
                problems.append(f"{item} listed twice ({names[item]}, {node})")
            else:
                names[item] = node
    if not nodes:
        problems.append("no version node")
    return nodes, names, problems


def write_map(incdir, path):
    """Rewrites a map of one version node from the headers, names grouped
    by header and sorted, keeping the comment and node name at its top."""
    text = pathlib.Path(path).read_text()
    head = re.match(r"\s*(/\*.*?\*/\s*)?", text, flags=re.S).group(0)
    nodes, _, _ = read_map(path)
    if len(nodes) != 1:
        sys.exit(f"{path}: {len(nodes)} version nodes; add new names to the newest one by hand")
    byhdr = {}
    for name, hdr in declared(incdir).items():
        byhdr.setdefault(hdr, []).append(name)
    lines = [head.rstrip() + "\n" if head.strip() else "", f"{nodes[0]} {{\n", "  global:\n"]
    for hdr in sorted(byhdr):
        lines.append(f"    /* {hdr} */\n")
        lines += [f"    {n};\n" for n in sorted(byhdr[hdr])]
    lines += ["  local:\n", "    *;\n", "};\n"]
    pathlib.Path(path).write_text("".join(lines))


def main():
    if sys.argv[1] == "--write":
        write_map(sys.argv[2], sys.argv[3])
        return 0
    nm, lib, incdir, mapfile = sys.argv[1:5]
    exp, dec = exported(nm, lib), declared(incdir)
    nodes, listed, problems = read_map(mapfile)
    regen = f"(check_exports.py --write {incdir} {mapfile} rewrites it)"
    checks = [
        (f"problems in {mapfile} (an explicit, versioned list)", problems),
        (f"declared in include/pmukit but not listed in {mapfile} {regen}",
         sorted(set(dec) - set(listed))),
        (f"listed in {mapfile} but declared by no header in include/pmukit {regen}",
         sorted(set(listed) - set(dec))),
        ("exported but not declared in include/pmukit (make it static or "
         "name it pki_)", sorted(set(exp) - set(dec))),
        ("declared in include/pmukit but not exported", sorted(set(dec) - set(exp))),
        (f"exported without one of the map's versions {nodes}",
         sorted(f"{n}@{v}" for n, v in exp.items() if v not in nodes)),
    ]
    failed = 0
    for what, names in checks:
        if names:
            failed += 1
            print(f"{len(names)} {what}:")
            for n in names:
                print(f"  {n}")
    print(f"{len(exp)} exported, {len(dec)} declared, {len(listed)} listed in {nodes}")
    if failed:
        print(f"[  FAILED  ] {failed} test(s)")
    print(f"[  PASSED  ] {len(checks) - failed} test(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
