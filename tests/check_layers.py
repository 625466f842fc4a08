#!/usr/bin/env python3
"""The library's layering, from the #include lines (issue 21).

A module is a directory of lib/ (lib/core, lib/pmu, ...); its public
headers in include/pmukit/ belong to it (X.h to lib/X, the others by the
table PUBLIC below). Module A imports module B when a file of A (or one of
A's public headers) includes a header of B: "B/name.h" (an internal
header, found through -Ilib) or <pmukit/name.h>. A quoted name without a
directory is a header of the including file's own directory.

Checks, each a function, each naming what it found:
  - cycles: the import graph of lib/ has no cycle (one is printed as
    a -> b -> a, with the include lines that make each edge);
  - model: nothing in lib/ but lib/model imports lib/model (the PMU model
    is one implementation of the kernel seam, not a dependency);
  - tools: files in tools/ include only public headers (<pmukit/...>) and
    headers of their own directory, no exception (the build compiles them
    against include/ alone, issue 21).

Usage: check_layers.py SRCDIR          run the checks (exit 1 on a failure)
       check_layers.py SRCDIR --dot    print lib/'s import graph (Graphviz)
Prints cmocka's summary lines so that scripts/test-totals.py counts it.
"""
import pathlib
import re
import sys

# public headers whose module is not their name
PUBLIC = {
    "error.h": "core", "cpumap.h": "core", "regs.h": "core", "util.h": "core", "timerange.h": "core", "cpuid.h": "pmu",
    "tracepoint.h": "events", "datasrc.h": "perfdata", "tracedata.h": "perfdata",
    "spe_record.h": "spe", "likwid/likwid-marker.h": "region",
    "recording.h": "record", "stat.h": "counting", "workload.h": "counting",
    "script.h": "session", "diff.h": "hist", "inject.h": "record", "lock.h": "hist",
    "bench.h": "counting",
    "probe.h": "symbols",
    "buildid_cache.h": "record",
    "flame.h": "session",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCES = ("*.c", "*.h")


def files(root):
    for pat in SOURCES:
        yield from root.rglob(pat)


def includes(path):
    """(line number, '<' or '"', name) of each #include of a file."""
    text = path.read_text(errors="replace")
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)


def module_of_public(name, modules):
    """The module a <pmukit/name> header belongs to, or None."""
    if name in PUBLIC:
        return PUBLIC[name]
    stem = name[:-2] if name.endswith(".h") else name
    return stem if stem in modules else None


def edges(src):
    """{(a, b): [where, ...]}: module a imports module b, with the lines."""
    lib = src / "lib"
    modules = {p.name for p in lib.iterdir() if p.is_dir()}
    sources = [(f, f.parent.name) for f in files(lib)]
    pub = src / "include" / "pmukit"
    for f in files(pub):
        rel = f.relative_to(pub).as_posix()
        sources.append((f, module_of_public(rel, modules)))
    out, unknown = {}, []
    for f, mod in sources:
        if mod is None:
            unknown.append(f"{f.relative_to(src)}: a public header of no module (PUBLIC)")
            continue
        for line, kind, name in includes(f):
            if kind == "<":
                if not name.startswith("pmukit/"):
                    continue
                to = module_of_public(name[len("pmukit/"):], modules)
                if to is None:
                    unknown.append(f"{f.relative_to(src)}:{line}: <{name}>: of no module (PUBLIC)")
                    continue
            else:
                to = name.split("/")[0] if "/" in name else mod
                if to not in modules:
                    continue  # a generated or system header
            if to != mod:
                out.setdefault((mod, to), []).append(f"{f.relative_to(src)}:{line}: {name}")
    return out, unknown


def find_cycle(graph):
    """One cycle of the graph as a list of nodes (first repeated last), or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def check_cycles(imp):
    graph = {}
    for a, b in imp:
        graph.setdefault(a, set()).add(b)
    c = find_cycle(graph)
    if not c:
        return []
    why = [f"  {a} -> {b}: {imp[(a, b)][0]}" for a, b in zip(c, c[1:])]
    return ["a module cycle: " + " -> ".join(c)] + why


def check_model(imp):
    return [f"lib/{a} imports lib/model (only the CLI and tests may): {w[0]}"
            for (a, b), w in sorted(imp.items()) if b == "model" and a != "model"]


def check_tools(src):
    """Headers of tools/ outside include/ and the file's own directory."""
    found = set()
    for f in sorted(files(src / "tools")):
        for line, kind, name in includes(f):
            if kind != '"' or (f.parent / name).is_file() and "/" not in name:
                continue
            found.add((f.relative_to(src).as_posix(), name, line))
    return [f"{f}:{line}: includes \"{name}\" (only <pmukit/...> and its own directory's)"
            for f, name, line in sorted(found)]


def dot(imp):
    lines = ["digraph libpmukit {", "  rankdir=BT;", "  node [shape=box];"]
    lines += [f'  "{a}" -> "{b}";' for a, b in sorted(imp)]
    return "\n".join(lines + ["}"])


def main():
    src = pathlib.Path(sys.argv[1])
    imp, unknown = edges(src)
    if "--dot" in sys.argv[2:]:
        print(dot(imp))
        return 0
    checks = [("cycles", check_cycles(imp)), ("model", check_model(imp)),
              ("tools", check_tools(src)), ("headers", unknown)]
    failed = 0
    for name, problems in checks:
        print(f"[ {'FAILED' if problems else '    OK'} ] layers_{name}")
        for p in problems:
            print("    " + p)
        failed += bool(problems)
    print(f"[  PASSED  ] {len(checks) - failed} test(s).")
    if failed:
        print(f"[  FAILED  ] {failed} test(s), listed above.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
