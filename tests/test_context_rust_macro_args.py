"""Rust code inside a macro's arguments, which tree-sitter leaves a token tree: a site there
is read by its line as any other (`println!("{}", x.name())` over `let x = Foo::new()`,
`vec![Foo::new()]`, `assert!(Foo::new().size == 1)`), and a crate-qualified path there is an
import of what it reaches, as in code (`format!("{}", demo::foo::Foo::new())`; was: no
`rust_path` import, so such a path reached nothing unless the file wrote it outside a macro
too: a `name_match`). A `quote!`'s tokens, another crate's code, and a `macro_rules!` body
are not read for paths. Exact sites, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod foo;\n",
    "src/foo.rs": ("pub struct Foo {\n    pub size: usize,\n}\n\n"
                   "impl Foo {\n    pub fn new() -> Foo {\n        Foo { size: 1 }\n    }\n\n"
                   "    pub fn name(&self) -> &str {\n        \"f\"\n    }\n}\n"),
    "src/main.rs": ("use demo::foo::Foo;\n\n"
                    "fn main() {\n"
                    "    let x = Foo::new();\n"  # 4
                    "    println!(\"{}\", x.name());\n"  # 5
                    "    assert_eq!(x.name(), \"f\");\n"  # 6
                    "    let v = vec![Foo::new()];\n"  # 7
                    "    assert!(Foo::new().size == 1);\n"  # 8
                    "    let s = format!(\"{}\", demo::foo::Foo::new().name());\n"  # 9
                    "}\n"),
    "src/bin/edge.rs": "fn main() {\n    println!(\"{}\", demo::foo::Foo::new().size);\n}\n",
    # a file of its own: a path spelled as one of its file's paths in code is that one's
    "src/bin/gen.rs": ("fn main() {\n"
                       "    let t = quote! { demo::foo::Foo::new() };\n"  # 2: another crate's code
                       "}\n\n"
                       "macro_rules! make {\n"
                       "    () => {\n"
                       "        demo::foo::Foo::new()\n"  # 7: a macro's body, not read for paths
                       "    };\n"
                       "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-macro-args-", message="rust macro args")


demo = REPO.fixture()


def _sites(demo, name: str) -> list[tuple[str, int, str]]:
    return sorted(s for s in sites(demo, name) if s[0].startswith("src/") and s[0] != "src/foo.rs")


def test_sites_in_a_macro_s_arguments_are_read_as_code(demo):
    assert _sites(demo, "new") == [
        ("src/bin/edge.rs", 2, "import"),  # println!(.., demo::foo::Foo::new().size)
        ("src/bin/gen.rs", 2, "name_match"),  # quote!: not read for paths
        ("src/bin/gen.rs", 7, "name_match"),  # a macro_rules! body
        ("src/main.rs", 4, "import"),
        ("src/main.rs", 7, "import"),  # vec![Foo::new()]
        ("src/main.rs", 8, "import"),  # assert!(Foo::new().size == 1)
        ("src/main.rs", 9, "import"),  # format!(.., demo::foo::Foo::new()): the path's own import
    ]
    assert _sites(demo, "name") == [
        ("src/main.rs", 5, "import"),
        ("src/main.rs", 6, "import"),
        ("src/main.rs", 9, "import"),
    ]


def test_a_path_in_a_macro_s_arguments_is_an_import_edge(demo):
    """edge.rs's one path to foo.rs is in `println!`'s arguments: an edge as one in code is."""
    meta = demo.call("context.file", path="src/foo.rs").data.meta
    assert meta.importers.items == ["src/bin/edge.rs", "src/lib.rs", "src/main.rs"]
