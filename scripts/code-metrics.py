#!/usr/bin/env python3
"""Dev only: the structure figures of docs/development.md#structure.

Prints Swift lines under Sources/, functions over 60 and 100 lines (with names), files over 300 and 400
lines, and how the folders of one target use each other: the pairs that use each other, the cycles (strongly
connected groups of folders, pairs included) and the uses against the layer order that docs/development.md#structure
states (a folder using one listed after it, or one the order does not list below it).

A folder "uses" another when one of its files names something declared there, outside private scope:
- a top-level type (`struct`, `class`, `enum`, `protocol`, `actor`, `typealias`), named as a word;
- a top-level function, named as `name(` (not after a dot) with the first argument label it declares (none for
  `_`); a top-level `let`/`var`, named as a word (not after a dot, not as an argument label);
- a member declared directly inside an `extension` block: a function named as `.name(` or `name(` (a call through
  the implicit `self` of another extension of the same type) with its first argument label, a property or nested
  type named as `.name`.
Names shorter than 4 characters and a few common ones (STOPLIST) are ignored, and so is a name the using folder
declares itself; a name declared in several folders counts for each. Text-based: comments and string literals are
skipped (interpolations kept), scopes are followed by braces; rough, but enough for this code base.
Usage: scripts/code-metrics.py [--list] [--why] [--undocumented]
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
    folder_report(files)
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


STOPLIST = {"description", "debugDescription", "rawValue", "hashValue", "isEmpty", "count", "first", "last", "value",
            "values", "name", "none", "some", "self", "Type", "init", "encode", "decode", "hash", "main", "next",
            "from", "with", "error", "message", "kind", "index", "data", "path", "size", "time", "duration"}
MODS = (r"(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|"
        r"override|mutating|nonmutating|nonisolated|convenience|required|lazy|weak|unowned|dynamic|indirect|"
        r"consuming|borrowing|isolated)(?:\(\w+\))?\s+)*")
DECL = re.compile(r"^\s*" + MODS + r"(func|let|var|case|struct|class|enum|protocol|actor|typealias|extension|"
                  r"init|deinit|subscript|associatedtype)\b\s*([A-Za-z_]\w*)?")
HIDDEN = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:\w+\s+)*(?:private|fileprivate)\b")
TYPES = {"struct", "class", "enum", "protocol", "actor", "extension"}


def code_text(src):
    """The source with comments dropped and string literals emptied (interpolations kept), lines kept in place."""
    out, i, n, open_strings = [], 0, len(src), []  # open_strings: [delimiter, hashes, paren depth] per interpolation

    def string_body(i, delim, hashes):
        esc = "\\" + "#" * hashes
        while i < n:
            if src.startswith(esc + "(", i):
                open_strings.append([delim, hashes, 1]); out.append(" ("); return i + len(esc) + 1
            if src.startswith(esc, i):
                i += len(esc) + 1; continue
            if src.startswith(delim + "#" * hashes, i):
                out.append('"'); return i + len(delim) + hashes
            if src[i] == "\n":
                out.append("\n")
            i += 1
        return i

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i); i = n if j < 0 else j; continue
        if src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i): depth += 1; i += 2
                elif src.startswith("*/", i): depth -= 1; i += 2
                else:
                    out.append("\n") if src[i] == "\n" else None; i += 1
            continue
        m = re.match(r'(#*)("""|")', src[i:i + 16])
        if m:
            out.append('"'); i = string_body(i + m.end(), m.group(2), len(m.group(1))); continue
        if open_strings and c in "()":
            top = open_strings[-1]; top[2] += 1 if c == "(" else -1
            if top[2] == 0:
                open_strings.pop(); out.append(") "); i = string_body(i + 1, top[0], top[1]); continue
        out.append(c); i += 1
    return "".join(out)


def call_shape(line, m):
    """What follows `name(` in a call of the function declared on the line: its first argument label, `)` for
    none, or a pattern of an unlabelled argument."""
    if m.group(1) != "func":
        return None
    params = re.match(r"\s*(?:<[^>]*>)?\s*\((\s*\)|\s*(\w+)\s*(\w+)?\s*:)?", line[m.end():])
    if not params or not params.group(1):
        return r"(?!\s*\w+\s*:)"  # unknown (parameters on later lines): any argument but a label
    if not params.group(2):
        return r"\s*\)"
    return r"(?!\s*\w+\s*:)" if params.group(2) == "_" else r"\s*" + params.group(2) + r"\s*:"


def declarations(code):
    """(kind, name, where, private, call shape) for each declaration outside function bodies: where is "top", "extension"
    (directly inside an extension block) or "member" (inside a type body, or deeper)."""
    found, stack, pending = [], [], None  # stack: "type", "extension" or "code" per open brace
    for line in code.split("\n"):
        m = DECL.match(line)
        kind = m.group(1) if m else None
        if m and all(s != "code" for s in stack):
            where = "top" if not stack else "extension" if stack == ["extension"] else "member"
            names = [m.group(2)] if m.group(2) else []
            if kind == "case":
                names = re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", re.sub(r"\([^)]*\)|=[^,]*", "", line.split("case", 1)[1]))
            found += [(kind, n, where, bool(HIDDEN.match(line)), call_shape(line, m)) for n in names]
        if kind in TYPES:
            pending = "extension" if kind == "extension" else "type"
        elif m:
            pending = None
        for ch in line:
            if ch == "{":
                stack.append(pending or "code"); pending = None
            elif ch == "}" and stack:
                stack.pop()
    return found


def folder_graph(files):
    """Per target, the folders each folder uses, and the names behind each use: {(a, b): {name: files}}."""
    folder = lambda f: os.path.dirname(os.path.relpath(f, ROOT))
    code, words, declared, own = {}, {}, defaultdict(set), defaultdict(set)
    patterns = {}  # (folder, name) -> compiled pattern of a use
    for f in files:
        code[f] = code_text(open(f, encoding="utf-8", errors="replace").read())
        words[f] = set(re.findall(r"\b[A-Za-z_]\w*\b", code[f]))
        d = folder(f)
        for kind, name, where, private, shape in declarations(code[f]):
            own[d].add(name)
            if private or kind in ("init", "deinit", "subscript", "case", "associatedtype") or name in STOPLIST:
                continue
            if where == "top" and kind in TYPES - {"extension"} | {"typealias"}:
                pattern = r"\b%s\b"
            elif where == "top" and kind == "func" and len(name) >= 4:
                pattern = r"(?<![\w.])%s\s*\(" + shape
            elif where == "top" and kind in ("let", "var") and len(name) >= 4:
                pattern = r"(?<![\w.])%s\b(?!\s*:)"
            elif where == "extension" and len(name) >= 4:
                pattern = r"(?<![\w])\.?%s\s*\(" + shape if kind == "func" else r"\.%s\b"
            else:
                continue
            declared[d].add(name)
            patterns[(d, name)] = re.compile(pattern.replace("%s", re.escape(name)))
    owners = defaultdict(set)
    for d, names in declared.items():
        for n in names:
            owners[(d.split("/")[0], n)].add(d)
    edges = defaultdict(lambda: defaultdict(set))
    for f in files:
        d = folder(f); target = d.split("/")[0]
        for n in words[f]:
            if n in own[d]:
                continue
            for other in owners.get((target, n), ()):
                if other != d and patterns[(other, n)].search(code[f]):
                    edges[(d, other)][n].add(os.path.basename(f))
    return edges


def cycles(edges):
    """The strongly connected groups of two or more folders (Tarjan), each as one closed path through all of it
    where there is one, else through some of it."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index); stack.append(v); on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop(); on.discard(w); group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [(group, closed_path(group, graph)) for group in sorted(groups)]


def closed_path(group, graph):
    """A longest simple cycle inside the group found by a bounded depth-first search (groups are small)."""
    best, start = [], group[0]

    def walk(path):
        nonlocal best
        for w in sorted(graph[path[-1]] & set(group)):
            if w == start and len(path) > len(best):
                best = list(path)
            elif w not in path:
                walk(path + [w])

    walk([start])
    return best + [start]


def layer_order():
    """{target: {folder: folders it may use}} from docs/development.md#structure: each bullet
    `- **Target**: A, B → C → …; X sits on Y` (a folder may use those listed before it; parenthesised text
    ignored); a target's own top level comes last."""
    doc = open(os.path.join(ROOT, "..", "docs", "development.md"), encoding="utf-8").read()
    section = doc.split("## Structure", 1)[1].split("\n#", 1)[0]
    orders = {}
    for bullet in re.findall(r"^- \*\*(\w+)\*\*: (.*(?:\n  .*)*)", section, re.M):
        target, text = bullet
        text = re.sub(r"\([^()]*\)", "", text.replace("\n", " "))
        chain, *extras = text.split(";")
        folders = {os.path.basename(d) for d, _, _ in os.walk(os.path.join(ROOT, target))}
        allowed, below = {}, set()
        for n in re.findall(r"`(\w+)`", chain):
            if n in folders:
                allowed[f"{target}/{n}"] = set(below); below.add(f"{target}/{n}")
        for extra in extras:
            m = re.search(r"`(\w+)`\s+sits\s+on\s+`(\w+)`", extra)
            if m:
                x, y = (f"{target}/{n}" for n in m.groups())
                allowed[x] = {y} | allowed.get(y, set())
        allowed[target] = set(allowed) | {target}
        orders[target] = allowed
    return orders


def folder_report(files):
    """Prints the pairs, the cycles and the uses against the layer order (with --why, the names behind each)."""
    edges = folder_graph(files)
    why = "--why" in sys.argv
    show = lambda a, b: (f"\n      {a} -> {b}: " + ", ".join(f"{n} ({', '.join(sorted(fs))})"
                                                              for n, fs in sorted(edges[(a, b)].items()))) if why else ""
    pairs = sorted({tuple(sorted(e)) for e in edges if e[::-1] in edges})
    print(f"folder pairs that use each other: {len(pairs)}" + "".join(f"\n  {a} <-> {b}" + show(a, b) + show(b, a)
                                                                     for a, b in pairs))
    found = cycles(edges)
    print(f"folder cycles: {len(found)}" + "".join(
        f"\n  {' -> '.join(path)}" + (f" (of {', '.join(group)})" if len(path) - 1 < len(group) else "")
        + "".join(show(a, b) for a, b in zip(path, path[1:])) for group, path in found))
    orders, wrong = layer_order(), []
    for a, b in sorted(edges):
        order = orders.get(a.split("/")[0])
        if order is not None and b not in order.get(a, set()):
            wrong.append((a, b))
    print(f"layer order violations: {len(wrong)}" + "".join(f"\n  {a} -> {b}" + show(a, b) for a, b in wrong))
    return pairs

main()
