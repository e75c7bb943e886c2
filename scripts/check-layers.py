#!/usr/bin/env python3
"""Fails on an import circle between the workspace's crates, or between
modules inside one crate.

Crates: the workspace members' normal and build dependencies on each other,
read from `cargo metadata` (dev-dependencies are left out: a test may use a
higher crate, and Cargo itself allows that).

Modules: every `crate::a::b` path in a crate's source (in `use` lines,
including `use crate::{a::X, b}` groups, and in code), outside comments. Each
file is a module (`src/session/actor.rs` is `session::actor`); a reference
counts as an edge between the two sibling modules under the deepest module
both sit in, so `session::actor` using `crate::bridge::relay::Relay` is an
edge `session -> bridge`, and `session::actor` using `crate::session::era` is
an edge `actor -> era` inside `session`. A module using its own parent or
child is containment, not layering, and is not an edge. At every level the
siblings must form no circle.

Run it from anywhere: `python3 scripts/check-layers.py`.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cycles(graph):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def strip_comments(text):
    # Line comments (including doc comments) and block comments; string
    # literals rarely hold `crate::` paths, and a false edge would only make
    # the check stricter.
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def expand_group(prefix, body):
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`]."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    paths = []
    for part in parts:
        part = re.sub(r"\s+", "", part)
        if not part:
            continue
        m = re.match(r"^([A-Za-z0-9_:]*?)(?:::)?\{(.*)\}$", part)
        if m:
            paths += expand_group(prefix + [p for p in m.group(1).split("::") if p], m.group(2))
        else:
            paths.append(prefix + [p for p in part.split(" as ")[0].split("::") if p])
    return paths


def crate_paths(text, here=()):
    """Every `crate::...` path in the text, as lists of segments from the
    crate root; `super::` paths are resolved from `here`, the file's module,
    up to the file's first `#[cfg(test)]`, below which `super` usually names
    the file itself from its inline `mod tests`."""
    paths = []
    head = text.split("#[cfg(test)]")[0]
    for m in re.finditer(r"\b((?:super::)+)(\{?)", head):
        up = m.group(1).count("super")
        if up > len(here):
            continue
        base = list(here[: len(here) - up])
        if m.group(2):
            depth, i = 1, m.end()
            while i < len(head) and depth:
                depth += {"{": 1, "}": -1}.get(head[i], 0)
                i += 1
            paths += [base + p for p in expand_group([], head[m.end() : i - 1])]
        else:
            rest = re.match(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*", head[m.end() :])
            if rest:
                paths.append(base + rest.group(0).split("::"))
    for m in re.finditer(r"\bcrate::\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        paths += expand_group([], text[m.end() : i - 1])
    for m in re.finditer(r"\bcrate((?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        paths.append([p for p in m.group(1).split("::") if p])
    return paths


def module_files(src_dir, root_file):
    """Module path (tuple) -> file, for the files under one crate root."""
    mods = {(): root_file}
    for dirpath, _, files in os.walk(src_dir):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(dirpath, f)
            if full == root_file or os.path.join(dirpath, f).startswith(os.path.join(src_dir, "bin")):
                continue
            rel = os.path.relpath(full, src_dir)[:-3].split(os.sep)
            if rel[-1] in ("main", "lib"):
                continue
            mods[tuple(rel)] = full
    return mods


def module_edges(mods):
    edges = {}
    for mod, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            text = strip_comments(fh.read())
        for ref in crate_paths(text, mod):
            # The deepest module the path names.
            target = ()
            for i in range(1, len(ref) + 1):
                if tuple(ref[:i]) in mods:
                    target = tuple(ref[:i])
            common = 0
            while common < min(len(mod), len(target)) and mod[common] == target[common]:
                common += 1
            if common == len(mod) or common == len(target):
                continue  # self, ancestor or descendant: containment
            parent = mod[:common]
            a, b = mod[common], target[common]
            edges.setdefault(parent, {}).setdefault(a, set()).add(b)
    return edges


def main():
    meta = json.loads(
        subprocess.check_output(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=ROOT
        )
    )
    members = {p["name"]: p for p in meta["packages"]}
    failed = False

    crate_graph = {
        name: {
            d["name"]
            for d in p["dependencies"]
            if d["name"] in members and d.get("kind") in (None, "build")
        }
        for name, p in members.items()
    }
    for comp in cycles(crate_graph):
        failed = True
        print("crate circle: " + " <-> ".join(comp))

    for name, p in sorted(members.items()):
        for target in p["targets"]:
            if not set(target["kind"]) & {"lib", "bin", "proc-macro"}:
                continue
            root_file = target["src_path"]
            src_dir = os.path.dirname(root_file)
            if "bin" in target["kind"] and os.path.basename(src_dir) == "bin":
                continue  # a small binary beside a library: one file
            mods = module_files(src_dir, root_file)
            for parent, graph in sorted(module_edges(mods).items()):
                for comp in cycles(graph):
                    failed = True
                    where = "::".join(parent) or "crate root"
                    print(f"module circle in {name} ({where}): " + " <-> ".join(comp))
                    for a in comp:
                        for b in sorted(graph.get(a, ())):
                            if b in comp:
                                print(f"    {a} -> {b}")
    if failed:
        sys.exit(1)
    print(f"no import circles in {len(members)} crates")


if __name__ == "__main__":
    main()
