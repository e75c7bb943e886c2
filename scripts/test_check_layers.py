"""scripts/check-layers.py's own test: on a tiny workspace written to a
temporary folder, it must fail on a planted circle through a parent's
re-exports, on one through `self` calls across files, and on a crate
naming one its rules forbid (in Cargo.toml, or through a re-export),
naming each; and pass on the same tree without them. Known circles pass
while they exist and fail once they are gone.

Run: `python3 -m unittest scripts/test_check_layers.py` (scripts/test.sh
runs it beside the check). Each case runs the script as the test command
does, on its own tree; `cargo metadata --no-deps` is the only tool it
needs, and the whole file takes a few seconds.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "check-layers.py")
sys.path.insert(0, HERE)
import layers_rust  # noqa: E402

RULES = """
[may-name]
low = []
apps = ["low"]
bridge = ["low"]
top = ["low", "apps", "bridge"]
shell = ["top"]

[may-reach]
shell = ["low", "bridge"]

[why-not]
"bridge -> apps" = "the bridge does not name the apps"
"""

# A workspace with no circle: `bridge` and `apps` both name `low`'s words,
# `top` is a façade re-exporting the layers, and `shell` names only `top`.
# `top`'s `hub` is one type whose methods are in two files, calling each
# other only one way, and whose children import from their parent what
# the parent itself defines (containment, not a circle).
CLEAN = {
    "Cargo.toml": """
        [workspace]
        resolver = "2"
        members = ["crates/*"]
    """,
    "crates/low/Cargo.toml": """
        [package]
        name = "low"
        version = "0.1.0"
        edition = "2021"
    """,
    "crates/low/src/lib.rs": """
        //! The vocabulary.
        pub mod kinds;
        pub use kinds::Kind;
    """,
    "crates/low/src/kinds.rs": """
        /// Which app.
        pub enum Kind { One, Two }
    """,
    "crates/apps/Cargo.toml": """
        [package]
        name = "apps"
        version = "0.1.0"
        edition = "2021"
        [dependencies]
        low = { path = "../low" }
    """,
    "crates/apps/src/lib.rs": """
        pub use low::Kind;
        pub struct ConfigFile;
    """,
    "crates/bridge/Cargo.toml": """
        [package]
        name = "bridge"
        version = "0.1.0"
        edition = "2021"
        [dependencies]
        low = { path = "../low" }
    """,
    "crates/bridge/src/lib.rs": """
        pub struct Request { pub app: low::kinds::Kind }
    """,
    "crates/top/Cargo.toml": """
        [package]
        name = "top"
        version = "0.1.0"
        edition = "2021"
        [dependencies]
        low = { path = "../low" }
        apps = { path = "../apps" }
        bridge = { path = "../bridge" }
    """,
    "crates/top/src/lib.rs": """
        pub use apps;
        pub use bridge;
        pub use low::kinds;
        pub mod hub;
    """,
    "crates/top/src/hub.rs": """
        mod one;
        mod two;
        pub use one::First;
        pub use two::Second;

        /// One type, its methods in two files.
        pub struct Hub { count: u32 }

        impl Hub {
            pub fn new() -> Hub { Hub { count: 0 } }
        }
    """,
    "crates/top/src/hub/one.rs": """
        use super::Hub;
        use super::Second;

        pub struct First;

        impl Hub {
            pub fn first(&self) -> u32 {
                // A call into two.rs: one way only.
                let s = "self.first_again() in a string is not a call { ";
                let _ = (s, Second);
                self.second() + 1
            }
        }
    """,
    "crates/top/src/hub/two.rs": """
        use super::Hub;

        pub struct Second;

        impl Hub {
            pub fn second(&self) -> u32 {
                self.count
            }
        }

        #[cfg(test)]
        mod tests {
            // Tests are left out: this is no edge back to one.rs.
            use super::super::First;
        }
    """,
    "crates/shell/Cargo.toml": """
        [package]
        name = "shell"
        version = "0.1.0"
        edition = "2021"
        [dependencies]
        top = { path = "../top" }
    """,
    "crates/shell/src/lib.rs": """
        use top::bridge::Request;
        use top::kinds::Kind;
        pub fn look(_: Request, _: Kind) {}
    """,
}


def write(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text).lstrip())


def run(files, rules=RULES):
    with tempfile.TemporaryDirectory() as root:
        write(root, {**files, "scripts/layers.toml": rules})
        done = subprocess.run(
            [sys.executable, SCRIPT, "--root", root], capture_output=True, text=True, timeout=120
        )
    return done.returncode, done.stdout + done.stderr


class CheckLayers(unittest.TestCase):
    def test_a_tree_without_circles_passes(self):
        code, out = run(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("no import or call circles in 5 crates", out)

    def test_a_circle_through_a_parents_re_exports_fails_naming_its_files(self):
        # one.rs imports `Second` through the parent; two.rs now imports
        # `First` the same way: neither names the other's file.
        tree = dict(CLEAN)
        tree["crates/top/src/hub/two.rs"] = CLEAN["crates/top/src/hub/two.rs"].replace(
            "use super::Hub;", "use super::{First, Hub};"
        ) + "\n        pub fn first() -> First { First }\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("module circle in top (hub), 2 files: src/hub/one.rs, src/hub/two.rs", out)
        self.assertIn("src/hub/one.rs -> src/hub/two.rs -> src/hub/one.rs", out)
        self.assertIn("src/hub/two.rs -> src/hub/one.rs: use super::First (src/hub/two.rs:1)", out)

    def test_a_circle_through_a_glob_import_of_the_parent_fails(self):
        # two.rs takes everything of its parent and names `First` in code.
        tree = dict(CLEAN)
        tree["crates/top/src/hub/two.rs"] = CLEAN["crates/top/src/hub/two.rs"].replace(
            "use super::Hub;", "use super::*;"
        ) + "\n        pub fn first() -> First { First }\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("src/hub/two.rs -> src/hub/one.rs: First through use super::* (src/hub/two.rs:1)", out)

    def test_a_circle_through_self_calls_across_files_fails_naming_them(self):
        # two.rs calls back a method defined in one.rs, through `self` only.
        tree = dict(CLEAN)
        tree["crates/top/src/hub/two.rs"] = CLEAN["crates/top/src/hub/two.rs"].replace(
            "self.count", "if self.count > 9 { self.first() } else { self.count }"
        )
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("module circle in top (hub), 2 files: src/hub/one.rs, src/hub/two.rs", out)
        self.assertIn("src/hub/two.rs -> src/hub/one.rs: self.first() of Hub (src/hub/two.rs:7)", out)

    def test_calls_between_a_parents_own_file_and_a_childs_are_a_circle(self):
        # hub.rs calls a method in one.rs, which calls back one in hub.rs:
        # importing from a parent is containment, calling it back is not.
        tree = dict(CLEAN)
        tree["crates/top/src/hub.rs"] = CLEAN["crates/top/src/hub.rs"].replace(
            "pub fn new() -> Hub { Hub { count: 0 } }",
            "pub fn new() -> Hub { Hub { count: 0 } }\n            pub fn total(&self) -> u32 { self.first() }\n"
            "            fn base(&self) -> u32 { 1 }",
        )
        tree["crates/top/src/hub/one.rs"] = CLEAN["crates/top/src/hub/one.rs"].replace(
            "self.second() + 1", "self.second() + self.base()"
        )
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("module circle in top (hub), 2 files: src/hub.rs, src/hub/one.rs", out)
        self.assertIn("src/hub.rs -> src/hub/one.rs: self.first() of Hub (src/hub.rs:11)", out)
        self.assertIn("src/hub/one.rs -> src/hub.rs: self.base() of Hub (src/hub/one.rs:11)", out)

    def test_a_forbidden_crate_fails_in_cargo_toml_and_in_source(self):
        tree = dict(CLEAN)
        tree["crates/bridge/Cargo.toml"] = CLEAN["crates/bridge/Cargo.toml"] + '        apps = { path = "../apps" }\n'
        tree["crates/bridge/src/lib.rs"] = "pub struct Request { pub app: apps::Kind, pub file: apps::ConfigFile }\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("crate rule: bridge names apps, which it may not: the bridge does not name the apps", out)
        self.assertIn("Cargo.toml [dependencies]", out)
        self.assertIn("src/lib.rs:1 apps::ConfigFile", out)

    def test_a_crate_reached_through_a_re_export_counts(self):
        # The shell may reach `bridge` and `low` through the façade, not `apps`.
        tree = dict(CLEAN)
        tree["crates/shell/src/lib.rs"] = CLEAN["crates/shell/src/lib.rs"] + "pub use top::apps::ConfigFile;\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("crate rule: shell names apps, which it may not", out)
        self.assertIn("src/lib.rs:4 use top::apps::ConfigFile (through top)", out)

    def test_a_known_circle_passes_and_a_gone_one_fails(self):
        tree = dict(CLEAN)
        tree["crates/top/src/hub/two.rs"] = CLEAN["crates/top/src/hub/two.rs"].replace(
            "self.count", "self.first()"
        )
        known = RULES + textwrap.dedent(
            """
            [[known-circle]]
            crate = "top"
            files = ["src/hub/one.rs", "src/hub/two.rs"]
            why = "planted"
            """
        )
        code, out = run(tree, known)
        self.assertEqual(code, 0, out)
        self.assertIn("known module circle in top (hub), 2 files: src/hub/one.rs, src/hub/two.rs", out)
        self.assertIn("why it is still there: planted", out)
        code, out = run(CLEAN, known)
        self.assertEqual(code, 1, out)
        self.assertIn("a known circle no longer exists as listed in scripts/layers.toml (top:", out)


class ReadingRust(unittest.TestCase):
    def test_comments_and_literals_hold_no_braces_or_paths(self):
        text = layers_rust.Text('let a = "}// {"; // crate::x {\nlet b = \'{\'; /* } */ let c: &\'static str = r#"}"#;\n')
        self.assertNotIn("crate", text.t)
        self.assertEqual(text.t.count("{") + text.t.count("}"), 0)
        self.assertEqual(len(text.t), len(text.raw))
        self.assertIn("'static", text.t)

    def test_use_trees_expand_with_aliases_and_globs(self):
        self.assertEqual(
            layers_rust.expand_use("crate::{a::{self, B as C}, d::*}"),
            [(["crate", "a"], "a"), (["crate", "a", "B"], "C"), (["crate", "d"], None)],
        )

    def test_the_type_an_impl_is_for(self):
        self.assertEqual(layers_rust.self_type("<T: Fn() -> u8> Trait<T> for a::Hub<T> where T: Send "), ("Hub", False))
        self.assertEqual(layers_rust.self_type(" Hub "), ("Hub", True))


if __name__ == "__main__":
    unittest.main()
