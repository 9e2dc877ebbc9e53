"""A Rust name on a `use` line resolved by that line's own path, as the resolver recorded its
edges, not by what the file's other imports of the name reach: a private `extern crate` alias
another crate cannot see, and two lines bringing in two modules' `Thing`, one under an alias.
Exact sites, from a real index of tests/fixtures/sites/rust_use_lines.txt, where a comment
beside each line says which sites it holds."""

from __future__ import annotations

from tests.indexed import Asked, NotedSites, sites

SITES = NotedSites("rust_use_lines.txt", "rennet-ctx-rust-use-lines-", "rust use lines")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def _reached(app: Asked, name: str) -> list[tuple[str, int, int, str]]:
    """(path, line, col, definition path:line) of each resolved site of `name`, in the answer's order."""
    r = app.call("context.references", name=name)
    defs = [f"{d.path}:{d.line}" for d in r.data.definitions]
    return [(s.path, s.line, s.col, defs[s.definition]) for s in r.data.sites if s.definition is not None]


def test_each_use_line_reaches_the_definition_its_own_path_walks_to(app):
    # both.rs line 1 is inner's root Thing, line 2 shapes.rs's (its `Thing`, then `Shape`);
    # main.rs line 4 walks `facade::hidden`, which stops at facade's root: no definition's
    assert _reached(app, "Thing") == [
        ("app/src/both.rs", 2, 19, "inner/src/shapes.rs:1"), ("app/src/both.rs", 2, 28, "inner/src/shapes.rs:1"),
        ("app/src/both.rs", 4, 25, "inner/src/shapes.rs:1"),
        ("app/src/both.rs", 1, 11, "inner/src/lib.rs:3"), ("app/src/both.rs", 4, 15, "inner/src/lib.rs:3"),
        ("app/src/main.rs", 3, 19, "inner/src/lib.rs:3"), ("app/src/main.rs", 7, 11, "inner/src/lib.rs:3"),
        ("app/src/main.rs", 7, 19, "inner/src/lib.rs:3")]


def test_a_query_of_one_definition_keeps_only_the_lines_reaching_it(app):
    assert sites(app, "shapes::Thing") == [
        ("app/src/both.rs", 2, "import"), ("app/src/both.rs", 2, "import"), ("app/src/both.rs", 4, "import")]
    assert sites(app, "inner::Thing") == [
        ("app/src/both.rs", 1, "import"), ("app/src/both.rs", 4, "import"),
        ("app/src/main.rs", 3, "import"), ("app/src/main.rs", 7, "import"), ("app/src/main.rs", 7, "import")]


def test_a_use_line_not_reaching_it_says_so(app):
    r = app.call("context.references", name="Thing")
    rules = {(s.path, s.line): s.rule for s in r.data.sites if s.resolution == "name_match"}
    assert rules == {("app/src/main.rs", 4): "`use` of `facade::hidden::Thing`, which does not reach it"}
