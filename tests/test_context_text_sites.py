"""Code first, text apart: the name in a file of prose, markup or data is a `text` site, after
every code site, filtered by `resolution`, and counted apart (`code_sites`, `text_sites`).
Exact sites, from a real index of tests/fixtures/sites/text_apart.txt."""

from __future__ import annotations

from tests.indexed import NotedSites, sites

SITES = NotedSites("text_apart.txt", "rennet-ctx-text-apart-", "text apart")
app = SITES.app()


TEXT = [(".editorconfig", 1, "text"), (".gitignore", 1, "text"), ("CHANGES.md", 1, "text"),
        ("config.yaml", 1, "text"), ("docs/guide.rst", 1, "text"), ("docs/guide.rst", 1, "text"),
        ("notes.txt", 1, "text"), ("setup.cfg", 2, "text")]


def test_each_site_is_where_its_comment_says(app):
    assert sorted(sites(app, "render")) == sorted(SITES.noted["render"] + TEXT)


def test_text_sites_come_after_every_code_site_and_are_counted_apart(app):
    r = app.call("context.references", name="render")
    order = [s.resolution for s in r.data.sites]
    assert order == ["same_file"] + ["import"] * 2 + ["name_match"] + ["text"] * 8
    assert r.data.by_resolution == {"import": 2, "same_file": 1, "same_package": 0, "name_match": 1, "text": 8}
    assert (r.data.code_sites, r.data.text_sites) == (4, 8)


def test_resolution_text_keeps_only_text_and_the_totals_stay(app):
    r = app.call("context.references", name="render", resolution="text")
    assert {s.resolution for s in r.data.sites} == {"text"}
    assert len(r.data.sites) == 8
    assert (r.data.code_sites, r.data.text_sites) == (4, 8)
    code = app.call("context.references", name="render", resolution="name_match")
    assert [(s.path, s.resolution) for s in code.data.sites] == [("other/stray.py", "name_match")]


def test_a_qualified_query_lists_no_text(app):
    r = app.call("context.references", name="core.render")
    assert {s.resolution for s in r.data.sites} == {"same_file", "import"}
    assert r.data.text_sites == 0
