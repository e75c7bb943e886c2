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

Also, two rules that keep the layers honest in ways cargo does not check:

- Test-only names: `SharedRoots::advance_for_tests` (a folder list made
  without a grant) may be named only in tests: after a `#[cfg(test)]` line
  of a source file, or under a crate's `tests/`.
- One graph (`--graphs`, which scripts/test.sh runs): the shipped app's
  build (`-p rootgate -p rootgate-cli -p rootgate-core --features
  tauri/custom-protocol`, as scripts/package.sh and scripts/e2e.sh build it)
  may differ from the tests' build (`--workspace --all-targets`) only in
  Tauri and the shell, so that a clean machine compiles the rest once. It
  reads both unit graphs from cargo (`--unit-graph`, an unstable flag, hence
  RUSTC_BOOTSTRAP=1 for that one read-only call).

Run it from anywhere: `python3 scripts/check-layers.py [--graphs]`.
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


TEST_ONLY = ("advance_for_tests",)


def test_only_misuse():
    """Each place a test-only name is used outside tests, as `file:line`."""
    found = []
    for base in ("crates", "src-tauri"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, base)):
            dirnames[:] = [d for d in dirnames if d not in ("target", "tests", "node_modules")]
            for f in filenames:
                if not f.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, f)
                in_tests = False
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if line.strip() == "#[cfg(test)]":
                            in_tests = True
                        code = line.split("//", 1)[0]
                        for name in TEST_ONLY:
                            if name in code and not in_tests and f"fn {name}" not in code:
                                found.append(f"{os.path.relpath(path, ROOT)}:{n}: {name}")
    return found


# What may differ between the tests' build and the shipped one: Tauri's
# `test` against `custom-protocol` features, and what is built on Tauri.
MAY_DIFFER = {"rootgate", "tauri", "tauri-macros", "tauri-plugin-dialog", "tauri-plugin-fs"}


def unit_graph(args):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    out = subprocess.check_output(
        ["cargo", "build", "--unit-graph", "-Z", "unstable-options", "--locked", *args],
        cwd=ROOT,
        env=env,
    )
    units = json.loads(out)["units"]
    keys = {}

    def key(i):
        if i not in keys:
            u = units[i]
            keys[i] = (
                u["pkg_id"],
                u["target"]["name"],
                u["mode"],
                u["profile"]["name"],
                tuple(sorted(u["features"])),
                tuple(sorted(key(d["index"]) for d in u["dependencies"])),
            )
        return keys[i]

    return {key(i): units[i] for i in range(len(units))}


def package_name(pkg_id):
    # "registry+https://…#tauri@2.11.6" or "path+file:///…/src-tauri#rootgate@0.1.0"
    # or "path+file:///…/crates/rootgate-apps#0.1.0" (a folder named as its package)
    where, _, fragment = pkg_id.rpartition("#")
    if "@" in fragment:
        return fragment.rsplit("@", 1)[0]
    return where.rstrip("/").rsplit("/", 1)[-1]


def graph_differences():
    tests = unit_graph(["--workspace", "--all-targets"])
    shipped = unit_graph(
        ["-p", "rootgate", "-p", "rootgate-cli", "-p", "rootgate-core", "--features", "tauri/custom-protocol"]
    )
    features = {}
    for u in tests.values():
        features.setdefault((u["pkg_id"], u["target"]["name"], u["mode"]), []).append(u["features"])
    out = []
    for k, u in shipped.items():
        if k in tests or package_name(u["pkg_id"]) in MAY_DIFFER:
            continue
        seen = features.get((u["pkg_id"], u["target"]["name"], u["mode"]), [])
        out.append(
            f"{package_name(u['pkg_id'])} ({u['target']['name']}, {u['mode']}): shipped with "
            f"{u['features']}, the tests build {seen or 'no such unit'} (or its dependencies differ)"
        )
    return sorted(out)


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
    for place in test_only_misuse():
        failed = True
        print(f"a test-only name outside tests: {place}")
    if "--graphs" in sys.argv[1:]:
        differences = graph_differences()
        for line in differences:
            failed = True
            print(f"built twice: {line}")
        if differences:
            print(
                "the shipped build differs from the tests' below Tauri: declare the missing "
                "features in the workspace's Cargo.toml (see its \"One graph\" section)"
            )
    if failed:
        sys.exit(1)
    print(f"no import circles in {len(members)} crates; test-only names only in tests")
    if "--graphs" in sys.argv[1:]:
        print("the tests' build and the shipped app's differ only in Tauri and the shell")


if __name__ == "__main__":
    main()
