"""Each Rust and Go site resolved by its own syntax (`Bindings.site_syntax`): a Rust path by
where it walks, a Go selector by its package or the type of its receiver, `self` and a typed
variable by their type, a struct literal's key, a parameter or a local of the same spelling
no site; each site says which binding decided it (`rule`). Exact sites, from real indexes of
tests/fixtures/sites/{rust_paths,go_selectors}.txt, where a comment beside each line says
which sites it holds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.bindings import of_language
from tests.annotated import FIXTURES, load, noted_sites
from tests.examples import examples
from tests.indexed import Asked, Indexed, sites

RUST = load(FIXTURES / "sites" / "rust_paths.txt", keys=("site:",))
GO = load(FIXTURES / "sites" / "go_selectors.txt", keys=("site:",))
RUST_REPO = Indexed(RUST.files, "rennet-ctx-rust-syntax-", message="rust syntax")
GO_REPO = Indexed(GO.files, "rennet-ctx-go-syntax-", message="go syntax")
# a query narrowed to one of the name's definitions (the fixture's other one is elsewhere)
GO_PATHS = {"Encode": "server/"}


rust = RUST_REPO.fixture()


go = GO_REPO.fixture()


@pytest.mark.parametrize("name", sorted(noted_sites(RUST)))
def test_each_rust_site_is_where_its_comment_says(rust, name):
    assert sorted(sites(rust, name)) == noted_sites(RUST)[name]


@pytest.mark.parametrize("name", sorted(noted_sites(GO)))
def test_each_go_site_is_where_its_comment_says(go, name):
    more = {"path": GO_PATHS[name]} if name in GO_PATHS else {}
    assert sorted(sites(go, name, **more)) == noted_sites(GO)[name]


def _rules(asked: Asked, name: str, **more) -> dict[tuple[str, int], str]:
    r = asked.call("context.references", name=name, **more)
    return {(s.path, s.line): s.rule for s in r.data.sites}


def test_each_rust_site_says_which_binding_decided_it(rust):
    helper = _rules(rust, "helper")
    assert helper[("app/src/main.rs", 15)] == "import"
    assert helper[("app/src/main.rs", 17)] == "path `other`, which does not reach it"
    assert helper[("app/src/main.rs", 18)] == "path `gauge`, which reaches no file of the tree"
    bump = _rules(rust, "bump")
    assert bump[("app/src/main.rs", 23)] == "path through `Counter`, not its type"
    assert bump[("app/src/main.rs", 25)] == "attribute of an untyped receiver `v`"


def test_each_go_site_says_which_binding_decided_it(go):
    encode = _rules(go, "Encode", path="server/")
    assert encode[("server/server.go", 15)] == "attribute of module `codec`, which does not reach it"
    assert encode[("server/server.go", 32)] == "attribute of an untyped receiver `other`"
    assert encode[("server/server.go", 33)] == "bare name, not a method's"
    new = _rules(go, "New")
    assert new[("server/server.go", 21)] == "attribute of module `errors`, which does not reach it"


@pytest.mark.parametrize(("line", "col", "name", "form", "receiver"), [
    ("a::b::f(x)", 6, "f", "path", ("a", "b")),
    ("Self::new()", 6, "new", "path", ("Self",)),
    ("<T as Tr>::new()", 11, "new", "path", ()),
    ("Vec::<u8>::new()", 11, "new", "path", ()),
    ("self.bump()", 5, "bump", "attribute", ("self",)),
    ("make().bump()", 7, "bump", "attribute", ()),
    ("P { size: 1 }", 4, "size", "key", ()),
    ("    size: 1,", 4, "size", "key", ()),
    ("let size = 1;", 4, "size", "bare", ()),
    ("x::y", 3, "y", "path", ("x",)),
])
def test_the_form_of_a_rust_site_read_from_its_line(line, col, name, form, receiver):
    found = of_language("rust").site_syntax(line.encode(), col, name)
    assert found is not None and (found.form, found.receiver) == (form, receiver)


@pytest.mark.parametrize(("line", "col", "name", "form", "receiver"), [
    ("codec.Encode(s)", 6, "Encode", "attribute", ("codec",)),
    ("s.c.Level", 4, "Level", "attribute", ("s", "c")),
    ("New(1).Encode(s)", 7, "Encode", "attribute", ()),
    ("&Codec{Level: 1}", 7, "Level", "key", ()),
    ("case Level:", 5, "Level", "bare", ()),
    ("x := Level", 5, "Level", "bare", ()),
])
def test_the_form_of_a_go_site_read_from_its_line(line, col, name, form, receiver):
    found = of_language("go").site_syntax(line.encode(), col, name)
    assert found is not None and (found.form, found.receiver) == (form, receiver)


@pytest.mark.parametrize(("name", "line", "typed"), [
    ("s", "s := &Server{}", "Server"),
    ("s", "s = pkg.Server{Addr: a}", "Server"),  # an assignment of a composite literal too
    ("s", "ss := Server{}", None),  # another variable ending so
    ("s", "x.s = Server{}", None),  # a field, not the variable
    ("s", "var s *pkg.Server", "Server"),
    ("s", "func (s *Server) Run() {", "Server"),  # a receiver
    ("s", "func f(a int, s *Server) {", "Server"),  # a parameter after another
    ("s", "func f(s Server, b int) {", "Server"),  # before another
    ("s", "func f(s int) {", "int"),
])
def test_the_type_a_go_line_gives_a_variable(name, line, typed):
    found = [m.group(1).decode() for p in of_language("go").typings(name) if (m := p.search(line.encode()))]
    assert found[:1] == ([typed] if typed else [])


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=200), st.integers(min_value=0, max_value=220), st.sampled_from(["rust", "go"]))
def test_any_line_gives_a_form_never_an_error(line, col, language):
    # a source line is what the commit under review holds: whatever its bytes, a form comes back
    found = of_language(language).site_syntax(line, min(col, len(line)), "name")
    assert found is not None and found.form in ("bare", "attribute", "path", "key")
