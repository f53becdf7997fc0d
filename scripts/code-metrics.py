#!/usr/bin/env python3
"""Dev only: the structure figures of docs/development.md#structure.

Prints Swift lines under Sources/, functions over 60 and 100 lines (with names), files over 300 and 400
lines, and the pairs of folders of one target that use each other (a folder "uses" another when it names a
top-level type declared there). Text-based: braces in strings and comments are skipped roughly, which is enough for
this code base. Usage: scripts/code-metrics.py [--list] [--why] [--undocumented]
"""
import os, re, sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
FUNC = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|"
                  r"class|final|override|mutating|nonisolated|convenience|required|@discardableResult)\s+)*"
                  r"(func\s+([^\s(<]+)|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")
TYPE = re.compile(r"^(?:@\w+\s+)*(?:(?:public|private|fileprivate|internal|package|final|indirect)\s+)*"
                  r"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)")


def strip(line):
    """The line without string literals and // comments (rough)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out, in_block = [], False
    for i, raw in enumerate(lines):
        m = FUNC.match(raw)
        if not m:
            continue
        name = m.group(2) or m.group(1).split("(")[0].split("<")[0].strip()
        depth, started = 0, False
        for j in range(i, len(lines)):
            text = strip(lines[j])
            if not started and "{" not in text and j > i and (text.strip() == "" or FUNC.match(lines[j])):
                break  # a protocol requirement: no body
            for ch in text:
                if ch == "{":
                    depth += 1; started = True
                elif ch == "}":
                    depth -= 1
            if started and depth <= 0:
                out.append((j - i + 1, name, i + 1))
                break
    return out


def main():
    files = []
    for d, _, names in os.walk(ROOT):
        files += [os.path.join(d, n) for n in names if n.endswith(".swift")]
    files.sort()
    total = sum(len(open(f, encoding="utf-8", errors="replace").read().split("\n")) - 1 for f in files)
    funcs = [(n, os.path.relpath(f, ROOT), name, line) for f in files for (n, name, line) in functions(f)]
    long60 = sorted([x for x in funcs if x[0] > 60], reverse=True)
    sizes = sorted(((len(open(f).read().split("\n")) - 1, os.path.relpath(f, ROOT)) for f in files), reverse=True)
    print(f"swift lines in Sources/: {total} in {len(files)} files")
    print(f"functions over 60 lines: {len(long60)}; over 100: {sum(1 for x in long60 if x[0] > 100)}")
    print(f"files over 300 lines: {sum(1 for s in sizes if s[0] > 300)}; over 400: {sum(1 for s in sizes if s[0] > 400)}")
    public, bare = undocumented(files)
    print(f"public declarations: {len(public)}; without ///: {len(bare)} ({100 * len(bare) / max(1, len(public)):.1f} %)")
    pairs = folder_pairs(files)
    print(f"folder pairs that use each other: {len(pairs)}" + "".join(f"\n  {a} <-> {b}" for a, b in pairs))
    if "--undocumented" in sys.argv:
        for where in bare:
            print(f"  undocumented: {where}")
    if "--list" in sys.argv:
        for n, f, name, line in long60:
            print(f"  {n:4d}  {f}:{line}  {name}")
        for n, f in sizes:
            if n > 300:
                print(f"  file {n:4d}  {f}")


def undocumented(files):
    """Public (and open) declarations, and those of them without a `///` comment above (attributes skipped)."""
    decl = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?!import|extension)")
    public, bare = [], []
    for f in files:
        lines = open(f, encoding="utf-8", errors="replace").read().split("\n")
        for i, l in enumerate(lines):
            if not decl.match(l):
                continue
            where = f"{os.path.relpath(f, ROOT)}:{i + 1}"
            public.append(where)
            j = i - 1
            while j >= 0 and re.match(r"^\s*@\w+", lines[j]):
                j -= 1
            if j < 0 or not lines[j].strip().startswith("///") and not lines[j].strip().endswith("*/"):
                bare.append(where)
    return public, bare


def folder_pairs(files):
    """Pairs (a, b) of folders of one target where a names a type of b and b names a type of a."""
    declared, text = defaultdict(set), {}
    folder = lambda f: os.path.dirname(os.path.relpath(f, ROOT))
    for f in files:
        body = open(f, encoding="utf-8", errors="replace").read()
        text[f] = set(re.findall(r"\b[A-Z]\w*\b", "\n".join(strip(l) for l in body.split("\n"))))
        for l in body.split("\n"):
            m = TYPE.match(l)
            if m:
                declared[folder(f)].add(m.group(1))
    owner = {}
    for d, names in declared.items():
        for n in names:
            owner.setdefault((d.split("/")[0], n), set()).add(d)
    uses = defaultdict(set)
    for f in files:
        d = folder(f); target = d.split("/")[0]
        for n in text[f]:
            for other in owner.get((target, n), ()):
                if other != d and n not in declared[d]:
                    uses[d].add(other)
    pairs = sorted({tuple(sorted((a, b))) for a in list(uses) for b in uses[a] if a in uses.get(b, ())})
    if "--why" in sys.argv:
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                names = sorted({f"{n} ({os.path.basename(f)})" for f in files if folder(f) == x
                                for n in text[f] & declared[y] if n not in declared[x]})
                print(f"  {x} -> {y}: {', '.join(names)}")
    return pairs


main()
