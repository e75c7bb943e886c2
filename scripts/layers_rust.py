"""Reading the workspace's Rust source for scripts/check-layers.py: which
module of which crate each file refers to, and which file each `self` call
lands in.

It reads source text, not a compiler's model: comments and literals are
blanked, `#[cfg(test)]` items are left out, the module tree is followed
from each target's root file through its `mod` lines (with `#[path]`), and
every path in a `use` tree or in code is resolved, through `use` bindings
and re-exports (`pub use` in a parent, `pub use other_crate as name` in a
façade) and glob imports, to the module that defines the item it names.
Methods are read from `impl` blocks, wherever their files are, so that a
method in one file calling `self.m()` defined in another is an edge
between the two files.

It deliberately does not expand macros, infer types (`self.m()`,
`Self::m()` and `Type::m()` are followed, and a call on a value only when
the value is named after its type, `supervisor.m()`) or know the standard
library: a path it cannot resolve names no module of the
workspace and is not an edge. A false edge would only make the check
stricter, so where it must guess it guesses towards an edge.
"""

import bisect
import os
import re
from dataclasses import dataclass, field

# Comments, strings (raw and byte ones too) and char literals: blanked to
# spaces, newlines kept, so offsets and line numbers stay those of the
# file and no brace inside them counts. A lifetime (`'a`) is not a char
# literal: one needs its closing quote right after one character.
LITERAL = re.compile(
    r"""//[^\n]*
      | /\*.*?\*/
      | (?<![A-Za-z0-9_])b?r(\#*)".*?"\1
      | (?<![A-Za-z0-9_])[bc]?"(?:\\.|[^"\\])*"
      | (?<![A-Za-z0-9_])b?'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])'
    """,
    re.S | re.X,
)

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
VIS = r"(?:pub(?:\s*\([^)]*\))?\s+)?"
ITEM = re.compile(
    rf"\b{VIS}(?:(?:const|async|unsafe|extern\s+(?:\"C\"\s+)?)\s+)*"
    rf"(struct|enum|union|trait|type|fn|const|static|mod|macro_rules!)\s*({IDENT})"
)
USE = re.compile(rf"\b({VIS})use\s+([^;]*);")
TEST_CFG = re.compile(r"#\[\s*cfg\s*\(\s*(?:test|all\s*\(\s*test\b[^\]]*)\s*\)\s*\]")
ATTR = re.compile(r"\s*#!?\[")
PATH_ATTR = re.compile(r'#\[\s*path\s*=\s*"([^"]+)"\s*\]')
CODE_PATH = re.compile(rf"(?<![A-Za-z0-9_:])((?:{IDENT})(?:::(?:{IDENT}))+)")
SELF_CALL = re.compile(rf"\bself\s*\.\s*({IDENT})\s*(?:::\s*<[^()]*>\s*)?\(")
TYPE_CALL = re.compile(rf"(?<![A-Za-z0-9_:])(Self|[A-Z][A-Za-z0-9_]*)\s*::\s*({IDENT})\s*(?:::\s*<[^()]*>\s*)?\(")
# An `impl` block starts a line (as rustfmt writes it); `impl Trait` in a
# signature does not.
IMPL = re.compile(r"(?m)^[ \t]*(?:unsafe\s+)?impl\b")


def blank(text):
    """The text with comments and literals turned to spaces (newlines kept)."""
    return LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


class Text:
    """One file's blanked text, with its braces matched, depths and lines."""

    def __init__(self, raw):
        self.raw = raw
        self.t = blank(raw)
        self.close = {}
        self.brace_pos, self.brace_depth = [], []
        stack = []
        for m in re.finditer(r"[{}]", self.t):
            p = m.start()
            if self.t[p] == "{":
                stack.append(p)
            elif stack:
                self.close[stack.pop()] = p
            self.brace_pos.append(p)
            self.brace_depth.append(len(stack))
        self.lines = [m.start() for m in re.finditer(r"\n", self.t)]

    def depth(self, pos):
        """How many braces are open just before `pos`."""
        i = bisect.bisect_left(self.brace_pos, pos)
        return self.brace_depth[i - 1] if i else 0

    def line(self, pos):
        return bisect.bisect_left(self.lines, pos) + 1

    def item_end(self, pos):
        """Where the item starting at `pos` ends: its first `;` outside
        brackets, or the brace closing its first block."""
        paren = 0
        i = pos
        t = self.t
        while i < len(t):
            c = t[i]
            if c in "([":
                paren += 1
            elif c in ")]":
                paren -= 1
            elif c == ";" and paren <= 0:
                return i + 1
            elif c == "{":
                return self.close.get(i, len(t) - 1) + 1
            i += 1
        return len(t)


def drop_tests(text):
    """Blanks every `#[cfg(test)]` item; returns the names of the test-only
    `mod NAME;` lines (their files are not read)."""
    t = text.t
    test_mods = set()
    spans = []
    for m in TEST_CFG.finditer(t):
        i = m.end()
        while True:  # further attributes on the same item
            a = ATTR.match(t, i)
            if not a:
                break
            j, depth = a.end(), 1
            while j < len(t) and depth:
                depth += {"[": 1, "]": -1}.get(t[j], 0)
                j += 1
            i = j
        end = text.item_end(i)
        mod = re.match(rf"\s*{VIS}mod\s+({IDENT})\s*;", t[i:end])
        if mod:
            test_mods.add(mod.group(1))
        spans.append((m.start(), end))
    if spans:
        chars = list(t)
        for s, e in spans:
            for k in range(s, e):
                if chars[k] != "\n":
                    chars[k] = " "
        text.t = "".join(chars)
    return test_mods


def expand_use(body):
    """`a::{b, c::{d as e, *}, self}` -> [(segments, alias)], where alias
    is the name bound (None for a glob `*`)."""
    out = []

    def walk(prefix, part):
        part = re.sub(r"\s+", " ", part).strip()
        if not part:
            return
        m = re.match(r"^((?:[A-Za-z0-9_]+\s*::\s*)*)\{(.*)\}$", part, re.S)
        if m:
            head = [p.strip() for p in m.group(1).split("::") if p.strip()]
            depth, cur = 0, ""
            for ch in m.group(2):
                depth += {"{": 1, "}": -1}.get(ch, 0)
                if ch == "," and depth == 0:
                    walk(prefix + head, cur)
                    cur = ""
                else:
                    cur += ch
            walk(prefix + head, cur)
            return
        alias = None
        am = re.match(rf"^(.*?)\s+as\s+({IDENT})$", part)
        if am:
            part, alias = am.group(1), am.group(2)
        segs = prefix + [p.strip() for p in part.split("::") if p.strip()]
        if not segs:
            return
        if segs[-1] == "*":
            out.append((segs[:-1], None))
            return
        if segs[-1] == "self":
            segs = segs[:-1]
            if not segs:
                return
        out.append((segs, alias or segs[-1]))

    walk([], body.lstrip(":"))
    return out


@dataclass
class Module:
    crate: str
    path: tuple
    file: str
    node: tuple  # the module of the file it is written in
    text: Text
    span: tuple  # (start, end) of its body in the file's text
    depth: int  # brace depth of its body
    items: set = field(default_factory=set)
    mods: dict = field(default_factory=dict)  # name -> child module path
    bindings: dict = field(default_factory=dict)  # name -> [segments]
    globs: list = field(default_factory=list)  # [(segments, position)]
    inner: list = field(default_factory=list)  # inline child modules: (open, close, name)


@dataclass
class Ref:
    """A reference from a file to a module: an import or a call."""

    crate: str
    node: tuple  # the referring file's module
    file: str
    line: int
    to_crate: str  # the package
    to_target: str  # its target (a library, or the same package's binary)
    to: tuple  # the module the referenced item is defined in
    what: str  # for the reader: `use super::X` or `self.m()`
    first: str = ""  # the crate the path was written through, when another
    call: bool = False  # a method call rather than an import or a path


class Crate:
    """One target of one package: its modules, read from its root file."""

    def __init__(self, package, name, root_file, externs):
        self.package = package
        self.name = name
        self.externs = externs  # crate name in source -> package
        self.modules = {}
        self.files = {}  # node -> file
        self.test_files = set()
        self._load((), root_file, True)

    def _load(self, path, file, is_root):
        try:
            with open(file, encoding="utf-8") as fh:
                text = Text(fh.read())
        except OSError:
            return
        tests = drop_tests(text)
        self.files[path] = file
        base = os.path.basename(file)
        if is_root or base == "mod.rs":
            child_dir = os.path.dirname(file)
        else:
            child_dir = os.path.join(os.path.dirname(file), base[:-3])
        self._read_block(path, file, path, text, (0, len(text.t)), 0, child_dir, tests)

    def _read_block(self, path, file, node, text, span, depth, child_dir, tests):
        mod = Module(self.package, path, file, node, text, span, depth)
        self.modules[path] = mod
        t = text.t
        s, e = span
        for m in ITEM.finditer(t, s, e):
            if text.depth(m.start()) != depth:
                continue
            kind, name = m.group(1), m.group(2)
            if kind != "mod":
                mod.items.add(name)
                continue
            after = re.match(r"\s*(;|\{)", t[m.end() : m.end() + 50])
            if not after:
                continue
            child = path + (name,)
            mod.mods[name] = child
            if after.group(1) == "{":
                open_at = m.end() + after.end() - 1
                close_at = text.close.get(open_at, e)
                mod.inner.append((open_at, close_at, name))
                self._read_block(
                    child, file, node, text, (open_at + 1, close_at), depth + 1,
                    os.path.join(child_dir, name), tests,
                )
            elif name not in tests or depth:
                attrs = re.search(r"(?:#\[[^\]]*\]\s*)+$", text.raw[max(0, m.start() - 300) : m.start()])
                attr = PATH_ATTR.search(attrs.group(0)) if attrs else None
                if attr:
                    where = os.path.normpath(os.path.join(os.path.dirname(file), attr.group(1)))
                    self._load(child, where, False)
                    continue
                for cand in (os.path.join(child_dir, name + ".rs"), os.path.join(child_dir, name, "mod.rs")):
                    if os.path.exists(cand):
                        self._load(child, cand, False)
                        break
        for m in USE.finditer(t, s, e):
            if text.depth(m.start()) != depth:
                continue
            for segs, alias in expand_use(m.group(2)):
                if alias is None:
                    mod.globs.append((segs, m.start()))
                elif alias != "_":
                    mod.bindings.setdefault(alias, []).append(segs)

    def context(self, node, pos):
        """The module a position of the file `node` is in (inline modules
        included)."""
        mod = self.modules[node]
        while True:
            for s, e, name in mod.inner:
                if s < pos < e:
                    mod = self.modules[mod.path + (name,)]
                    break
            else:
                return mod


class Workspace:
    """Every target's modules, and resolution of paths across them."""

    def __init__(self):
        self.libs = {}  # package -> Crate (its library)
        self.targets = []  # every Crate read
        self._memo = {}
        self._refs = {}

    def add(self, crate, is_lib):
        self.targets.append(crate)
        if is_lib:
            self.libs[crate.package] = crate

    # --- resolution -------------------------------------------------------

    def lookup(self, crate, path, name, seen):
        """What `name` is in module `path` of `crate`: ("mod", crate, path)
        for a module, ("item", crate, path) for an item defined in module
        `path`, or None."""
        key = (crate.name, crate.package, path, name)
        if key in self._memo:
            return self._memo[key]
        if key in seen:
            return None
        seen = seen | {key}
        mod = crate.modules.get(path)
        out = None
        if mod is not None:
            if name in mod.mods and mod.mods[name] in crate.modules:
                out = ("mod", crate, mod.mods[name])
            elif name in mod.items:
                out = ("item", crate, path)
            elif name in mod.bindings:
                for segs in mod.bindings[name]:
                    out = self.resolve(crate, path, segs, seen)
                    if out:
                        break
            if out is None:
                for segs, _ in mod.globs:
                    src = self.resolve(crate, path, segs, seen)
                    if src and src[0] == "mod":
                        out = self.lookup(src[1], src[2], name, seen)
                        if out:
                            break
        self._memo[key] = out
        return out

    def resolve(self, crate, path, segs, seen=frozenset()):
        """The module a path written in module `path` leads to: as
        `lookup`, or ("partial", crate, module) when it leaves the modules
        it can follow (an enum's variant, a method, a foreign item)."""
        if not segs:
            return None
        first, rest = segs[0], list(segs[1:])
        if first == "crate":
            cur = ("mod", crate, ())
        elif first == "self":
            cur = ("mod", crate, path)
        elif first == "super":
            up = path[:-1] if path else ()
            while rest and rest[0] == "super":
                up = up[:-1]
                rest.pop(0)
            cur = ("mod", crate, up)
        elif first == "Self":
            return None
        else:
            cur = self.lookup(crate, path, first, seen)
            if cur is None:
                package = crate.externs.get(first)
                if package is None or package not in self.libs:
                    return None
                cur = ("mod", self.libs[package], ())
        for seg in rest:
            if cur[0] != "mod":
                return cur
            nxt = self.lookup(cur[1], cur[2], seg, seen)
            if nxt is None:
                return ("partial",) + cur[1:]
            cur = nxt
        return cur

    # --- references -------------------------------------------------------

    def references(self, crate):
        """Every reference of the crate's files to a module, as `Ref`s."""
        if id(crate) not in self._refs:
            self._refs[id(crate)] = self._references(crate)
        return self._refs[id(crate)]

    def _references(self, crate):
        refs = []
        for node, file in crate.files.items():
            mod = crate.modules[node]
            text = mod.text
            t = text.t

            def add(pos, segs, what):
                ctx = crate.context(node, pos)
                r = self.resolve(crate, ctx.path, segs)
                if not r:
                    return
                first = ""
                if segs[0] in crate.externs and segs[0] not in ctx.bindings and crate.externs[segs[0]] != r[1].package:
                    first = crate.externs[segs[0]]
                refs.append(Ref(crate.package, node, file, text.line(pos), r[1].package, r[1].name, r[2], what, first))

            for m in USE.finditer(t):
                for segs, alias in expand_use(m.group(2)):
                    if segs:
                        add(m.start(), segs, "use " + "::".join(segs) + ("::*" if alias is None else ""))
            in_use = [(m.start(), m.end()) for m in USE.finditer(t)]
            starts = [s for s, _ in in_use]
            for m in CODE_PATH.finditer(t):
                i = bisect.bisect_right(starts, m.start()) - 1
                if i >= 0 and in_use[i][0] <= m.start() < in_use[i][1]:
                    continue
                segs = m.group(1).split("::")
                if segs[0] in ("crate", "super", "self") or segs[0] in crate.externs:
                    add(m.start(), segs, "::".join(segs))
            # Names a glob import brings in (`use super::*`): each word of
            # the file that the glob's module has, and the file does not
            # define or import itself.
            words = modules_named = None
            for path, m in [(p, mm) for p, mm in crate.modules.items() if mm.node == node]:
                for segs, at in m.globs:
                    src = self.resolve(crate, path, segs)
                    if not src or src[0] != "mod":
                        continue
                    if words is None:
                        # A word after `.` is a field or a method, and a
                        # module is named only as a path's start.
                        words = set(re.findall(rf"(?<![.\w]){IDENT}", t))
                        modules_named = set(re.findall(rf"(?<![.\w:])({IDENT})\s*::", t))
                    gm = src[1].modules.get(src[2])
                    if gm is None:
                        continue
                    for name in sorted((gm.items | set(gm.mods) | set(gm.bindings)) & words):
                        if name in m.items or name in m.bindings or name in m.mods:
                            continue
                        if name in gm.mods and name not in modules_named:
                            continue
                        r = self.lookup(src[1], src[2], name, frozenset())
                        if r:
                            line = text.line(at)
                            refs.append(Ref(crate.package, node, file, line, r[1].package, r[1].name, r[2],
                                            f"{name} through use {'::'.join(segs)}::*"))
        return refs

    def impl_blocks(self, crate):
        """Each `impl` of the crate: (node, type key, body span, text,
        whether it is inherent rather than a trait's)."""
        out = []
        for node in crate.files:
            for mod in [m for m in crate.modules.values() if m.node == node]:
                text = mod.text
                t = text.t
                s, e = mod.span
                for m in IMPL.finditer(t[s:e]):
                    at = s + m.start()
                    if text.depth(at) != mod.depth:
                        continue
                    brace = t.find("{", at)
                    if brace < 0 or brace not in text.close:
                        continue
                    header = t[m.end() + s : brace]
                    name, inherent = self_type(header)
                    if not name:
                        continue
                    r = self.lookup(crate, mod.path, name, frozenset())
                    where = (r[1].package, r[2]) if r else (crate.package, mod.path)
                    out.append((node, where + (name,), (brace + 1, text.close[brace]), text, inherent))
        return out

    def method_calls(self, crate):
        """`self.m()` and `Type::m()` calls from one file to a method of the
        same type defined in another file, as `Ref`s."""
        blocks = self.impl_blocks(crate)
        defined = {}  # type key -> method -> {node}
        for node, key, (s, e), text, inherent in blocks:
            body_depth = text.depth(s)
            for m in re.finditer(rf"\bfn\s+({IDENT})", text.t[s:e]):
                if text.depth(s + m.start()) == body_depth:
                    defined.setdefault(key, {}).setdefault(m.group(1), {}).setdefault(node, False)
                    defined[key][m.group(1)][node] |= inherent
        refs = []
        for node, key, (s, e), text, _ in blocks:
            methods = defined.get(key, {})
            body = text.t[s:e]
            calls = [(m.start(), m.group(1), "self.") for m in SELF_CALL.finditer(body)]
            calls += [(m.start(), m.group(2), "Self::") for m in TYPE_CALL.finditer(body) if m.group(1) == "Self"]
            for pos, name, how in calls:
                for there in callee_files(methods.get(name, {})):
                    if there != node:
                        refs.append(Ref(crate.package, node, crate.files[node], text.line(s + pos),
                                        crate.package, crate.name, there, f"{how}{name}() of {key[2]}", call=True))
        # For a type whose methods are spread over files: `Type::m()`
        # anywhere in the crate, and `value.m()` on a value named after the
        # type (`supervisor.m()`, as a task holding an upgraded `Weak<Self>`
        # calls it), the one kind of value call read without types.
        spread = {k: v for k, v in defined.items() if len({n for ns in v.values() for n in ns}) > 1}
        by_value = {}
        for key in spread:
            by_value.setdefault(re.sub(r"(?<!^)(?=[A-Z])", "_", key[2]).lower(), []).append(key)
        value_call = re.compile(
            rf"(?<![A-Za-z0-9_])({'|'.join(sorted(by_value)) or '(?!)'})\s*\.\s*({IDENT})\s*(?:::\s*<[^()]*>\s*)?\("
        )
        if spread:
            for node, file in crate.files.items():
                text = crate.modules[node].text
                for m in TYPE_CALL.finditer(text.t):
                    if m.group(1) == "Self":
                        continue
                    ctx = crate.context(node, m.start())
                    r = self.lookup(crate, ctx.path, m.group(1), frozenset())
                    if not r:
                        continue
                    key = (r[1].package, r[2], m.group(1))
                    for there in callee_files(spread.get(key, {}).get(m.group(2), {})):
                        if there != node:
                            refs.append(Ref(crate.package, node, file, text.line(m.start()), crate.package,
                                            crate.name, there, f"{m.group(1)}::{m.group(2)}()", call=True))
                for m in value_call.finditer(text.t):
                    for key in by_value[m.group(1)]:
                        for there in callee_files(spread[key].get(m.group(2), {})):
                            if there != node:
                                refs.append(Ref(crate.package, node, file, text.line(m.start()), crate.package,
                                                crate.name, there, f"{m.group(1)}.{m.group(2)}() of {key[2]}", call=True))
        return refs


def callee_files(where):
    """The files a call of a method defined in `where` ({file: inherent})
    may land in: an inherent method is chosen before a trait's."""
    inherent = sorted(n for n, inh in where.items() if inh)
    return inherent or sorted(where)


def self_type(header):
    """The type an `impl` header is for, and whether the impl is inherent:
    `impl<T> Trait for a::Type<T> where ...` -> (`Type`, False); None for a
    reference, a tuple or `dyn`."""
    h = header.replace("->", "  ")
    h = re.split(r"\bwhere\b", h)[0]
    # Drop the impl's own generics.
    h = h.strip()
    if h.startswith("<"):
        depth = 0
        for i, c in enumerate(h):
            depth += {"<": 1, ">": -1}.get(c, 0)
            if depth == 0:
                h = h[i + 1 :]
                break
    # `Trait for Type`: the part after ` for ` outside angle brackets.
    depth, cut = 0, None
    for m in re.finditer(r"[<>]|\bfor\b", h):
        tok = m.group(0)
        if tok == "<":
            depth += 1
        elif tok == ">":
            depth -= 1
        elif depth == 0:
            cut = m.end()
    if cut is not None:
        h = h[cut:]
    h = h.strip()
    m = re.match(rf"((?:{IDENT}\s*::\s*)*)({IDENT})", h)
    if not m or m.group(2) in ("dyn", "impl"):
        return None, False
    return m.group(2), cut is None
