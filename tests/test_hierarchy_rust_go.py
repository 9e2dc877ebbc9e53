"""The class hierarchy of Rust and Go in the Repo Map: Rust `impl Trait for Type` and a
trait's supertraits, Go embedding, as `inherits` edges of the canonical dump; and members
found through them, in each language's order (Rust: the type's own impls, then its traits as
declared, depth first; Go: by depth of embedding). Exact answers, from real indexes of
tests/fixtures/hierarchy/{rust,go}_bases.txt, where a comment beside each base says what it
resolves to."""

from __future__ import annotations

import json

import pytest

from indexer.contract.errors import NotFound
from indexer.extract.blob import extract_blob
from tests.annotated import FIXTURES, load, noted_sites
from tests.indexed import Indexed, sites
from tests.test_hierarchy import _noted

RUST = load(FIXTURES / "hierarchy" / "rust_bases.txt", keys=("inherits:", "site:"))
GO = load(FIXTURES / "hierarchy" / "go_bases.txt", keys=("inherits:", "site:"))
RUST_MODULES = load(FIXTURES / "hierarchy" / "rust_bases_through_modules.txt", keys=("inherits:",))
RUST_REPO = Indexed(RUST.files, "rennet-hierarchy-rust-", message="hierarchy rust")
GO_REPO = Indexed(GO.files, "rennet-hierarchy-go-", message="hierarchy go")
RUST_MODULES_REPO = Indexed(RUST_MODULES.files, "rennet-hierarchy-rust-modules-", message="hierarchy rust modules")


def _edges(repo: Indexed) -> list[tuple]:
    from indexer.api import open_store, snapshot

    path, store_path = repo.paths
    with open_store(store_path) as store:
        dumped = [json.loads(line) for line in snapshot(path, "main", store=store).canonical_lines()]
    return sorted((d["from"], d["line"], d["spec"], d["status"], d["to"], d["base"])
                  for d in dumped if d["type"] == "edge" and d["kind"] == "inherits")


@pytest.mark.parametrize(("repo", "case"), [(RUST_REPO, RUST), (GO_REPO, GO), (RUST_MODULES_REPO, RUST_MODULES)],
                         ids=["rust", "go", "rust_modules"])
def test_each_base_is_an_inherits_edge_as_its_comment_says(repo, case):
    assert _edges(repo) == _noted(case)


@pytest.mark.parametrize(("source", "bases"), [
    ("impl A for B {}\n", [("B", "A")]),
    ("impl<T> fmt::Display for Wrap<T> {}\n", [("Wrap", "fmt::Display")]),
    ("impl Iterator<Item = u8> for &mut a::Cursor {}\n", [("Cursor", "Iterator")]),
    ("impl B {}\n", []),
    ("impl T for (u8, u8) {}\n", []),
    ("trait R: S + io::Read + 'static {}\n", [("R", "S"), ("R", "io::Read")]),
    ("mod m { impl A for B {} }\n", [("m.B", "A")]),
    ("fn f() { impl A for B {} }\n", []),
    ("impl fmt :: Display for S {}\n", [("S", "fmt::Display")]),
    # in document order, an inline module's too
    ("mod m { impl A for B {} }\nimpl C for D {}\n", [("m.B", "A"), ("D", "C")]),
])
def test_rust_bases_read_from_the_tree(source, bases):
    facts = extract_blob(source.encode(), "m.rs", "rust")
    assert [(b.cls, b.base) for b in facts.bases] == bases


@pytest.mark.parametrize("target", ["(u8, u8)", "&dyn U", "[u8; 4]", "fn() -> u8", "*const u8", "!"])
def test_a_rust_impl_for_a_type_with_no_name_records_no_base_and_the_file_is_read(target):
    facts = extract_blob(f"trait T {{}}\nimpl T for {target} {{}}\nstruct S;\n".encode(), "m.rs", "rust")
    assert facts.skipped == "" and facts.bases == [] and [s.name for s in facts.symbols] == ["T", "S"]


@pytest.mark.parametrize(("source", "bases"), [
    ("package p\ntype A struct { B; *c.D; E[int]; f int; G, H int }\n", [("A", "B"), ("A", "c.D"), ("A", "E")]),
    ("package p\ntype I interface { J; io.Reader; ~int | string; M() }\n", [("I", "J"), ("I", "io.Reader")]),
    ("package p\nfunc f() { type A struct { B } }\n", []),
    ("package p\ntype (\n\tA struct{ B }\n\tC interface{ D }\n)\n", [("A", "B"), ("C", "D")]),
    # a comment in a `type (...)` block is no type; a defined type of no struct or interface
    # takes nothing from the struct before it
    ("package p\ntype (\n\t// c\n\tA struct{ B }\n\tN int\n\tC interface{ D }\n)\n", [("A", "B"), ("C", "D")]),
    # an interface's type terms are a constraint's type set, no embedded interface: a union, a
    # `~T`, a type literal, a pointer (an interface is never a pointer type)
    ("package p\ntype I interface { int | string; ~int; []int; *T; J }\n", [("I", "J")]),
    ("package p\ntype A struct { *List[int]; *pkg.Box[T] }\n", [("A", "List"), ("A", "pkg.Box")]),
    # a qualified name may be spaced or broken after its dot
    ("package p\ntype A struct { c . D; c.\n\tE }\n", [("A", "c.D"), ("A", "c.E")]),
    # an alias of a struct or interface literal is that type, promoting what it embeds
    ("package p\ntype A = struct { B }\ntype I = interface { J }\ntype K = L\n", [("A", "B"), ("I", "J")]),
])
def test_go_bases_read_from_the_tree(source, bases):
    facts = extract_blob(source.encode(), "p.go", "go")
    assert [(b.cls, b.base) for b in facts.bases] == bases


def _one(repo: Indexed, name: str):
    d, = repo.asked().call("context.symbol", name=name, fuzzy=False).data.definitions
    return d


def _chain(d) -> list[str]:
    return [c.qualified for c in d.chain]


# --- Rust: a type's impls, then its traits as declared -----------------------------------------

def test_a_trait_default_method_is_a_member_of_the_type_implementing_it():
    d = _one(RUST_REPO, "Square.hello")
    assert (d.path, d.qualified, d.line, d.match) == ("shapes/src/greet.rs", "Greet.hello", 2, "inherited")
    assert (d.inherited_from.qualified, d.inherited_from.path) == ("Greet", "shapes/src/greet.rs")
    assert _chain(d) == ["Square", "Greet"]


def test_a_supertrait_default_method_comes_through_its_subtrait_in_declaration_order():
    # Square implements N (Named) first, then Area (whose supertrait is Named): Named is found
    # on the first path, where it is declared
    d = _one(RUST_REPO, "Square.report")
    assert (d.qualified, d.match, _chain(d)) == ("Area.report", "inherited", ["Square", "Area"])
    d = _one(RUST_REPO, "Square.local")
    assert (d.path, d.qualified, _chain(d)) == ("app/src/traits.rs", "Local.local", ["Square", "Local"])


def test_an_inherent_method_comes_first_and_a_trait_impl_method_overrides_the_trait():
    d = _one(RUST_REPO, "Square.describe")
    assert (d.path, d.line, d.match) == ("app/src/main.rs", 14, "exact")
    assert (d.overrides.qualified, d.overrides.path, d.overrides.line) == ("Named.describe", "shapes/src/lib.rs", 5)
    d = _one(RUST_REPO, "Square.name")
    assert (d.line, d.overrides.qualified) == (20, "Named.name")


def test_the_hierarchy_of_a_rust_type_lists_its_traits_then_what_is_outside():
    r = RUST_REPO.asked().call("context.symbol", name="Square", hierarchy=True)
    assert [(x.relation, x.spec, x.status, x.path) for x in r.data.hierarchy] == [
        ("base", "Named", "resolved", "shapes/src/lib.rs"),
        ("base", "Area", "resolved", "shapes/src/lib.rs"),
        ("base", "Greet", "resolved", "shapes/src/greet.rs"),
        ("base", "Local", "resolved", "app/src/traits.rs"),
        ("base", "Wave", "resolved", "app/src/more.rs"),  # its impl is in more.rs, which imports Square's file
        ("base", "fmt::Display", "external", ""),
        ("base", "Clone", "external", ""),
    ]
    r = RUST_REPO.asked().call("context.symbol", name="Named", hierarchy=True)
    assert [(x.relation, x.spec, x.path) for x in r.data.hierarchy] == [
        ("subclass", "Square", "app/src/main.rs"), ("subclass", "Area", "shapes/src/lib.rs")]


def test_a_trait_implemented_in_another_file_importing_the_type():
    d = _one(RUST_REPO, "Square.wave")
    assert (d.path, d.qualified, d.match, _chain(d)) == ("app/src/more.rs", "Wave.wave", "inherited", ["Square", "Wave"])


def test_a_member_no_trait_of_the_type_defines_is_not_found():
    with pytest.raises(NotFound):
        _one(RUST_REPO, "Square.missing")


# --- Go: promoted through embedding, by depth ---------------------------------------------------

def test_a_method_promoted_through_embedding_is_found_with_its_chain():
    d = _one(GO_REPO, "Dog.Walk")
    assert (d.path, d.qualified, d.match, _chain(d)) == ("animal/walker.go", "Walker.Walk", "inherited", ["Dog", "Walker"])


def test_a_method_two_embeddings_deep_in_another_file_of_its_package():
    d = _one(GO_REPO, "Dog.Describe")
    assert (d.path, d.qualified, d.line) == ("animal/describe.go", "Base.Describe", 3)
    assert _chain(d) == ["Dog", "Walker", "Base"]
    assert (d.inherited_from.qualified, d.inherited_from.path) == ("Base", "animal/animal.go")


def test_a_method_promoted_through_a_dot_import_or_a_literal_alias():
    # `import . "example.com/zoo/animal"` brings Walker into zoo/dot.go; `type Pup = struct { Tail }`
    # is the struct it names, promoting Tail's methods
    found = [(d.path, d.qualified, d.match, _chain(d))
             for d in (_one(GO_REPO, n) for n in ("Spot.Walk", "Spot.Describe", "Pup.Wag"))]
    assert found == [("animal/walker.go", "Walker.Walk", "inherited", ["Spot", "Walker"]),
                     ("animal/describe.go", "Base.Describe", "inherited", ["Spot", "Walker", "Base"]),
                     ("zoo/dog.go", "Tail.Wag", "inherited", ["Pup", "Tail"])]


def test_the_shallowest_embedding_wins():
    # Base.Sound is two embeddings down (Dog -> Walker -> Base), Tail.Sound one
    d = _one(GO_REPO, "Dog.Sound")
    assert (d.path, d.qualified, _chain(d)) == ("zoo/dog.go", "Tail.Sound", ["Dog", "Tail"])


def test_a_promoted_field_and_an_override():
    d = _one(GO_REPO, "Dog.Legs")
    assert (d.qualified, d.kind, _chain(d)) == ("Walker.Legs", "field", ["Dog", "Walker"])
    d = _one(GO_REPO, "Dog.Name")
    assert (d.match, d.overrides.qualified, d.overrides.path) == ("exact", "Base.Name", "animal/animal.go")


def test_the_hierarchy_of_a_go_type_by_depth():
    r = GO_REPO.asked().call("context.symbol", name="Dog", hierarchy=True)
    assert [(x.relation, x.spec, x.status, x.path) for x in r.data.hierarchy] == [
        ("base", "Walker", "resolved", "animal/walker.go"),
        ("base", "Tail", "resolved", "zoo/dog.go"),
        ("base", "Base", "resolved", "animal/animal.go"),
        ("base", "fmt.Stringer", "external", ""),
        ("base", "Missing", "unresolved", ""),
    ]
    r = GO_REPO.asked().call("context.symbol", name="Namer", hierarchy=True)
    assert [(x.relation, x.spec, x.path) for x in r.data.hierarchy] == [
        ("subclass", "Speaker", "zoo/dog.go"),
        # the types whose method sets hold Name(): Go declares no implementation
        ("implementation", "Base", "animal/animal.go"),
        ("implementation", "Walker", "animal/walker.go"),  # promoted from Base
        ("implementation", "Dog", "zoo/dog.go"),
        ("implementation", "Spot", "zoo/dot.go"),  # through Walker, then Base
        ("implementation", "Line", "zoo/line.go"),  # through a.Base, another package's
    ]


# --- references through the hierarchy ---------------------------------------------------------

@pytest.mark.parametrize(("repo", "case", "name"), [(RUST_REPO, RUST, n) for n in sorted(noted_sites(RUST))]
                         + [(GO_REPO, GO, n) for n in sorted(noted_sites(GO))])
def test_references_of_an_inherited_member_through_the_type(repo, case, name):
    assert sorted(sites(repo.asked(), name)) == noted_sites(case)[name]


@pytest.mark.parametrize("repo", [RUST_REPO, GO_REPO], ids=["rust", "go"])
def test_the_fingerprint_from_the_stored_facts_is_the_indexed_one(repo):
    # as a bundle's check recomputes it: a base of the file's own (`trait Area: Named`) resolves
    # alike whether assembly's facts keep their symbols encoded or not
    from indexer.api import open_store, snapshot
    from indexer.fleet.bundle import NO_FACTS
    from indexer.store.canonical import fingerprint
    from indexer.store.records import entry_facts_key, load_facts

    path, store_path = repo.paths
    with open_store(store_path) as store:
        record = snapshot(path, "main", store=store).record
        keys = {f.path: entry_facts_key(f, record.extractor_version) for f in record.files if f.language not in NO_FACTS}
        assert fingerprint(record, load_facts(store, keys)) == record.fingerprint


# A top-level type's impls are read in the files importing its file; a type of the same name
# in a file not importing it, or nested in an inline module, has impls of its own.
SAME_NAMES = Indexed({
    "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/main.rs": "mod more;\nmod other;\n\npub struct Square;\n\npub mod inner {\n    pub struct Square;\n}\n",
    "src/more.rs": "use crate::Square;\n\npub trait Wave {\n    fn wave(&self) -> u8 {\n        3\n    }\n}\n\n"
                   "impl Wave for Square {}\n",
    "src/other.rs": "pub struct Square;\n\npub trait Shout {\n    fn shout(&self) -> u8 {\n        4\n    }\n}\n\n"
                    "impl Shout for Square {}\n",
}, "rennet-hierarchy-rust-same-names-", message="same names")


@pytest.mark.parametrize(("name", "path", "bases"), [
    ("Square", "src/main.rs", [("Wave", "src/more.rs")]),  # not other.rs's Shout: it imports no main.rs
    ("inner.Square", "src/main.rs", []),  # more.rs's `impl Wave for Square` is the top-level one's
    ("Square", "src/other.rs", [("Shout", "src/other.rs")]),
])
def test_a_rust_types_impls_are_those_of_the_files_importing_it(name, path, bases):
    r = SAME_NAMES.asked().call("context.symbol", name=name, path=path, fuzzy=False, hierarchy=True)
    assert (r.data.definitions[0].qualified, r.data.definitions[0].path) == (name, path)  # whose hierarchy it is
    assert [(x.spec, x.path) for x in r.data.hierarchy if x.relation == "base"] == bases


def test_a_go_method_in_another_file_of_its_package_overrides_what_its_type_embeds(indexed_files):
    """A Go method's receiver type may be declared in any file of its package: Dog.Speak in
    speak.go overrides the Speak Dog's embedded Base gives it, as if written beside Dog."""
    app = indexed_files({
        "go.mod": "module example.com/zoo\n\ngo 1.21\n",
        "zoo/base.go": "package zoo\n\ntype Base struct{}\n\nfunc (b Base) Speak() string { return \"\" }\n",
        "zoo/dog.go": "package zoo\n\ntype Dog struct {\n\tBase\n}\n",
        "zoo/speak.go": "package zoo\n\nfunc (d Dog) Speak() string { return \"woof\" }\n",
    })
    d, = app.call("context.symbol", name="Dog.Speak", fuzzy=False).data.definitions
    assert (d.path, d.match, d.overrides.qualified, d.overrides.path) == ("zoo/speak.go", "exact", "Base.Speak",
                                                                          "zoo/base.go")
