#!/usr/bin/env python3
"""Keeps the layers: fails on a circle between the workspace's crates or
between the files of one crate, on a crate naming one its floor may not
name, and on a test-only name outside tests.

Crates: the workspace members' normal and build dependencies on each
other, read from `cargo metadata` (dev-dependencies are left out: a test
may use a higher crate, and Cargo itself allows that), must form no circle,
and each crate may name only the crates `scripts/layers.toml` lists for it
(`[may-name]`), whether in its Cargo.toml's [dependencies] or in its source
outside tests: a `use` or a path, also through another crate's re-export
(the shell naming `rootgate_core::apps::X` names rootgate-apps).

Files: every reference of a file to a module of its own crate is an edge,
read by `layers_rust.py` beside this script: `use` trees and paths in code,
resolved through re-exports to the module that defines the item (a child's
`use super::X`, where the parent has `pub use sibling::X`, is an edge to
the sibling), and calls through `self` (or `Self::`, or `Type::`) to a
method of the same type defined in another file (`impl Supervisor` spread
over several files). An edge between two files counts between the two
sibling modules under the deepest module both sit in, so `session::actor`
naming `crate::bridge::relay::Relay` is an edge `session -> bridge`; a
module naming its own parent's or child's items is containment, not
layering, and is not an edge, but a call between a parent's own file and
a child's is (at the parent's level, the parent's own file stands beside
its children). At every level these must form no circle. A circle is
printed with its files, short circles through them that together pass
every file, and each edge with where it is made.

A circle still to be removed can be listed in `scripts/layers.toml` as a
`[[known-circle]]`, with its files and why: it is then printed as known and
does not fail the check; an entry that no longer matches a circle exactly
fails, so the list only shrinks (a circle that lost files is printed with
the entry to write instead).

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

Run it from anywhere: `python3 scripts/check-layers.py [--graphs] [--edges]
[--root DIR] [--rules FILE]`: `--root` checks another checkout (read only;
the rules are its own `scripts/layers.toml` unless `--rules` names one),
`--edges` also lists every edge between files. Its own test:
`python3 -m unittest scripts/test_check_layers.py`.
"""

import argparse
import json
import os
import subprocess
import sys
import tomllib
from collections import deque

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers_rust import Crate, Workspace  # noqa: E402

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


def circles_through(graph, comp):
    """Simple circles that together pass every node of the strongly
    connected `comp`: for each node not passed yet, the shortest circle
    back to it, as a list of nodes from it to it."""
    inside = set(comp)

    def shortest(a):
        prev, todo = {}, deque([a])
        while todo:
            v = todo.popleft()
            for w in sorted(graph.get(v, ())):
                if w not in inside or w in prev:
                    continue
                prev[w] = v
                if w == a:
                    out = [a]
                    while out[-1] != a or len(out) == 1:
                        out.append(prev[out[-1]])
                    return out[::-1]
                todo.append(w)
        return [a]

    out, passed = [], set()
    for v in comp:
        if v not in passed:
            circle = shortest(v)
            out.append(circle)
            passed |= set(circle)
    return out


def load(root):
    """The workspace: its packages (from cargo) and every target's modules."""
    meta = json.loads(
        subprocess.check_output(["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=root)
    )
    members = {p["name"]: p for p in meta["packages"]}
    lib_name = {
        name: next((t["name"] for t in p["targets"] if set(t["kind"]) & {"lib", "proc-macro", "rlib"}), None)
        for name, p in members.items()
    }
    ws = Workspace()
    for name, p in sorted(members.items()):
        externs = {}
        for d in p["dependencies"]:
            if d["name"] in members and d.get("kind") in (None, "build") and lib_name[d["name"]]:
                externs[(d.get("rename") or lib_name[d["name"]]).replace("-", "_")] = d["name"]
        for target in p["targets"]:
            kinds = set(target["kind"])
            if not kinds & {"lib", "bin", "proc-macro", "rlib"}:
                continue
            is_lib = "bin" not in kinds
            own = dict(externs)
            if not is_lib and lib_name[name]:
                own[lib_name[name]] = name  # a binary names its package's library
            ws.add(Crate(name, target["name"], target["src_path"], own), is_lib)
    return members, ws


def rel(members, package, file):
    return os.path.relpath(file, os.path.dirname(members[package]["manifest_path"]))


# At the level of a module with children, the node standing for the
# module's own file (as against the module with its children).
OWN = ""


def file_edges(ws, crate):
    """The crate's edges between sibling modules: {parent: {a: {b: [Ref]}}}
    (a Ref says where the edge is made), and the number of references.

    A module naming its parent's or child's items is containment, not an
    edge; a method call is an edge whatever the two files' places in the
    tree, so a call between a parent's own file and a child's file is an
    edge at the parent's level between `OWN` and the child."""
    edges = {}
    refs = ws.references(crate) + ws.method_calls(crate)
    for r in refs:
        if r.to_target != crate.name or r.to not in crate.modules:
            continue
        here, there = r.node, crate.modules[r.to].node
        common = 0
        while common < min(len(here), len(there)) and here[common] == there[common]:
            common += 1
        if here == there or (not r.call and common in (len(here), len(there))):
            continue
        parent = here[:common]
        a = here[common] if common < len(here) else OWN
        b = there[common] if common < len(there) else OWN
        edges.setdefault(parent, {}).setdefault(a, {}).setdefault(b, []).append(r)
    return edges, refs


def module_circles(members, ws, show_edges):
    """Every circle between sibling modules, as dicts for `judge`; prints
    the edges too when asked."""
    found = []
    count = {}
    for crate in ws.targets:
        edges, _ = file_edges(ws, crate)
        for parent, graph in sorted(edges.items()):

            def label(x, parent=parent, crate=crate):
                if x == OWN:
                    return rel(members, crate.package, crate.files[parent])
                path = parent + (x,)
                file = crate.files.get(path)
                if file is None:
                    return "::".join(path)
                has_children = any(len(p) > len(path) and p[: len(path)] == path for p in crate.files)
                return rel(members, crate.package, file) + (" (and its modules)" if has_children else "")

            n = sum(len(bs) for bs in graph.values())
            count[crate.package] = count.get(crate.package, 0) + n
            if show_edges:
                for a in sorted(graph):
                    for b in sorted(graph[a]):
                        kinds = sorted({"call" if "()" in r.what else "import" for r in graph[a][b]})
                        print(f"edge in {crate.package}: {label(a)} -> {label(b)} ({', '.join(kinds)})")
            for comp in cycles({a: set(bs) for a, bs in graph.items()}):
                simple = {a: set(bs) for a, bs in graph.items()}
                walks = [
                    " -> ".join(label(x).split(" ")[0] for x in circle) for circle in circles_through(simple, comp)
                ]
                lines = []
                for a in comp:
                    for b in sorted(graph.get(a, ())):
                        if b not in comp:
                            continue
                        where = graph[a][b]
                        first = where[0]
                        more = f"; and {len(where) - 1} more" if len(where) > 1 else ""
                        lines.append(
                            f"    {label(a).split(' ')[0]} -> {label(b).split(' ')[0]}: {first.what} "
                            f"({rel(members, crate.package, first.file)}:{first.line}){more}"
                        )
                found.append(
                    {
                        "crate": crate.package,
                        "target": crate.name,
                        "where": "::".join(parent) or "crate root",
                        "files": sorted(label(x).split(" ")[0] for x in comp),
                        "walks": walks,
                        "edges": lines,
                    }
                )
    return found, count


def judge_circles(found, known):
    """Prints each circle, known or not; returns whether the check fails."""
    failed = False
    entries = [(k, frozenset(k.get("files", ()))) for k in known]
    matched = set()
    for c in found:
        files = frozenset(c["files"])
        hit = next((i for i, (k, fs) in enumerate(entries) if k.get("crate") == c["crate"] and fs == files), None)
        head = f"module circle in {c['crate']} ({c['where']}), {len(files)} files"
        if hit is not None:
            matched.add(hit)
            print(f"known {head}: {', '.join(sorted(files))}")
            print(f"    why it is still there: {entries[hit][0].get('why', 'no reason given')}")
            continue
        failed = True
        print(f"{head}: {', '.join(sorted(files))}")
        print("  circles through them:")
        for walk in c["walks"]:
            print(f"    {walk}")
        print("  the edges (an import or a call, and where it is made):")
        print("\n".join(c["edges"]))
        for k, fs in entries:
            if k.get("crate") == c["crate"] and files < fs:
                print(
                    "  it is (part of) what is left of a known circle: to keep it known, list it in "
                    "scripts/layers.toml in place of that entry:"
                )
                print("  files = [" + ", ".join(f'"{f}"' for f in sorted(files)) + "]")
    for i, (k, fs) in enumerate(entries):
        if i not in matched:
            failed = True
            print(
                f"a known circle no longer exists as listed in scripts/layers.toml ({k.get('crate')}: "
                f"{', '.join(sorted(fs))}): remove the entry, or list the files its circle has now"
            )
    return failed


def crate_names(members, ws):
    """Which workspace crate each crate names, and where: {a: {b: [(where,
    direct)]}}, direct when `a` names `b` itself (its Cargo.toml, or a
    path's first crate) rather than reaching it through a re-export."""
    names = {name: {} for name in members}
    for name, p in members.items():
        for d in p["dependencies"]:
            kind = d.get("kind")
            if d["name"] in members and kind in (None, "build"):
                section = "[build-dependencies]" if kind == "build" else "[dependencies]"
                names[name].setdefault(d["name"], []).append((f"Cargo.toml {section}", True))
    for crate in ws.targets:
        for r in ws.references(crate):
            if r.first and r.first != crate.package:
                where = f"{rel(members, crate.package, r.file)}:{r.line} {r.what}"
                names[crate.package].setdefault(r.first, []).append((where, True))
            if r.to_crate != crate.package:
                direct = not r.first or r.first == r.to_crate
                through = "" if direct else f" (through {r.first})"
                where = f"{rel(members, crate.package, r.file)}:{r.line} {r.what}{through}"
                names[crate.package].setdefault(r.to_crate, []).append((where, direct))
    return names


def crate_rules(members, ws, rules):
    """Prints each crate that names one its rules do not allow; returns
    whether any does."""
    may = rules.get("may-name", {})
    reach = rules.get("may-reach", {})
    why = rules.get("why-not", {})
    failed = False
    for name in sorted((set(may) | set(reach)) - set(members)):
        failed = True
        print(f"crate rule for {name}, which is not in the workspace: remove it from scripts/layers.toml")
    for name, named in sorted(crate_names(members, ws).items()):
        if name not in may:
            failed = True
            print(f"crate rule missing: add {name} to scripts/layers.toml [may-name] (it names {sorted(named) or 'none'})")
            continue
        for other, places in sorted(named.items()):
            if other == name:
                continue
            bad = sorted(
                {w for w, direct in places if other not in may[name] and (direct or other not in reach.get(name, []))}
            )
            if not bad:
                continue
            failed = True
            reason = why.get(f"{name} -> {other}")
            print(f"crate rule: {name} names {other}, which it may not" + (f": {reason}" if reason else ""))
            allowed = may[name] + [f"{c} (through a re-export)" for c in reach.get(name, [])]
            print(f"    {name} may name: {', '.join(allowed) or 'no crate of the workspace'}")
            for w in bad[:8]:
                print(f"    {w}")
            if len(bad) > 8:
                print(f"    and {len(bad) - 8} more")
    return failed


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
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", action="store_true", help="also compare the tests' and the shipped unit graphs")
    ap.add_argument("--edges", action="store_true", help="also list every edge between files")
    ap.add_argument("--root", help="the checkout to check (default: this script's)")
    ap.add_argument("--rules", help="the rules file (default: ROOT/scripts/layers.toml)")
    args = ap.parse_args()
    if args.root:
        ROOT = os.path.abspath(args.root)
    rules_file = args.rules or os.path.join(ROOT, "scripts", "layers.toml")
    with open(rules_file, "rb") as fh:
        rules = tomllib.load(fh)

    members, ws = load(ROOT)
    failed = False
    crate_graph = {
        name: {d["name"] for d in p["dependencies"] if d["name"] in members and d.get("kind") in (None, "build")}
        for name, p in members.items()
    }
    for comp in cycles(crate_graph):
        failed = True
        print("crate circle: " + " <-> ".join(comp))
    failed |= crate_rules(members, ws, rules)
    found, count = module_circles(members, ws, args.edges)
    failed |= judge_circles(found, rules.get("known-circle", []))
    for place in test_only_misuse():
        failed = True
        print(f"a test-only name outside tests: {place}")
    if args.graphs:
        differences = graph_differences()
        for line in differences:
            failed = True
            print(f"built twice: {line}")
        if differences:
            print(
                "the shipped build differs from the tests' below Tauri: declare the missing "
                "features in the workspace's Cargo.toml (see its \"One graph\" section)"
            )
    edges = ", ".join(f"{n} {c}" for c, n in sorted(count.items()) if n)
    print(f"edges between files: {sum(count.values())} ({edges})")
    if failed:
        sys.exit(1)
    known = len(rules.get("known-circle", []))
    print(
        f"no import or call circles in {len(members)} crates"
        + (f" but the {known} known ones" if known else "")
        + "; every crate names only what scripts/layers.toml allows; test-only names only in tests"
    )
    if args.graphs:
        print("the tests' build and the shipped app's differ only in Tauri and the shell")


if __name__ == "__main__":
    main()
