"""A name several Python definitions share: each resolved site is attributed to the definition
its binding reaches (`Site.definition`), never listed under another of the same spelling, and
the answer groups the sites by definition (issue 26, items 1 and 2). Renamed imports bind their
alias, not the name they import. Exact answers, from a real index of
tests/fixtures/sites/python_definitions.txt, where a comment beside each line says which
definition each site on it reaches."""

from __future__ import annotations

from typing import Callable

import pytest

from tests.annotated import FIXTURES, load, noted_reaches
from tests.indexed import Asked, Indexed

CASE = load(FIXTURES / "sites" / "python_definitions.txt", keys=("reaches:",))
REPO = Indexed(CASE.files, "rennet-ctx-python-definitions-", message="python definitions")


app = REPO.fixture()


def reached(app: Asked, name: str) -> list[tuple[str, int, str]]:
    """(path, line, definition path:line) of each resolved site of `name`."""
    r = app.call("context.references", name=name)
    defs = [f"{d.path}:{d.line}" for d in r.data.definitions]
    return sorted((s.path, s.line, defs[s.definition]) for s in r.data.sites if s.definition is not None)


@pytest.mark.parametrize("name", sorted(noted_reaches(CASE)))
def test_each_site_reaches_the_definition_its_comment_names(app, name):
    assert reached(app, name) == noted_reaches(CASE)[name]


def test_unattributed_sites_are_the_unresolved_ones(app):
    r = app.call("context.references", name="get")
    assert all((s.definition is None) == (s.resolution in ("name_match", "text")) for s in r.data.sites)


def test_sites_are_grouped_by_definition_in_the_definitions_order(app):
    r = app.call("context.references", name="get")
    owners = [s.definition for s in r.data.sites if s.definition is not None]
    assert owners == sorted(owners)
    # and after them the name matches
    tail = [s.definition for s in r.data.sites][len(owners):]
    assert tail == [None] * len(tail)
    # each definition counts the sites reaching it
    counts = {f"{d.path}:{d.line}": d.sites for d in r.data.definitions}
    expected: dict[str, int] = {}
    for _, _, definition in noted_reaches(CASE)["get"]:
        expected[definition] = expected.get(definition, 0) + 1
    assert counts == {key: expected.get(key, 0) for key in counts}


def test_a_qualified_query_keeps_its_own_definition_sites(app):
    # the same-file site first, then the importing file's: `Store().get(6)`, `c.get(12)`, `s.get(13)`
    # in `with Store() as s`; not `pkg.api.get(3)`, a module's attribute
    r = app.call("context.references", name="Store.get")
    assert [(s.path, s.line, s.resolution) for s in r.data.sites] == [
        ("pkg/api.py", 21, "same_file"), ("app.py", 16, "import"), ("app.py", 33, "import"), ("app.py", 38, "import"),
        ("consumers.py", 4, "import"),  # `store.get(15)`: pkg/shared.py's `store = Store()`
        ("factories.py", 5, "import")]  # `made = make_store()`, which returns `Store()`
    rules = {(s.path, s.line): s.rule for s in app.call("context.references", name="get").data.sites}
    assert rules[("app.py", 13)] == "import"  # the function's, through `import pkg.api`
    assert rules[("consumers.py", 5)] == "instance `shared.client` of Client"


def test_the_rule_of_each_site_that_binds_nothing(app):
    r = app.call("context.references", name="Request")
    rules = {(s.path, s.line): s.rule for s in r.data.sites if s.definition is None}
    assert rules[("renamed.py", 3)] == "bare name no import binds"
    c = app.call("context.references", name="cli")
    rules = {(s.path, s.line): s.rule for s in c.data.sites if s.definition is None}
    assert rules[("commands.py", 1)] == "import of another module's name"  # `from pkg import cli`: the module
    assert rules[("commands.py", 4)] == "bare name no import binds"
    s = app.call("context.references", name="str")
    assert {(x.path, x.line): x.rule for x in s.data.sites}[("pkg/other.py", 9)] == "bare name outside its definition's scope"


def _snapshot_sites(name: str, keep: Callable[[list], list] = lambda defs: defs):
    """(definitions, sites) of `name` as `sites_of` resolves them against `keep(definitions)`,
    and how many times each file's bytes were read on the way."""
    from collections import Counter

    from context_tools.faces.packs.context import ReferencesInput
    from context_tools.query.symbols.lookup import find_exact
    from context_tools.query.symbols.sites import sites_of
    from indexer.api import open_store, snapshot

    repo, store_path = REPO.paths
    with open_store(store_path) as store:
        snap = snapshot(repo, "main", store=store)
        reads: Counter[str] = Counter()
        read = snap.blob_bytes

        def counted(path: str) -> bytes:
            reads[path] += 1
            return read(path)

        snap.blob_bytes = counted  # type: ignore[method-assign]
        defs = keep(find_exact(snap, name))
        sites = sites_of(snap, ReferencesInput(name=name), defs, one_by_one=len(defs)).sites
    return defs, sites, reads


def test_each_definitions_pass_reads_each_file_once_for_all():
    defs, sites, reads = _snapshot_sites("get")
    assert len(defs) > 2 and sites
    assert max(reads.values()) == 1, reads


def test_a_site_attributed_to_a_definition_is_one_it_reaches_alone():
    defs, sites, _ = _snapshot_sites("get")
    owned = {(s.path, s.line, s.col): s.definition for s in sites if s.definition is not None}
    assert sorted(set(owned.values())) == list(range(len(defs)))
    for i, d in enumerate(defs):
        _, alone, _ = _snapshot_sites("get", lambda found: [f for f in found if f[0] == d[0] and f[1].line == d[1].line])
        reached = {(s.path, s.line, s.col) for s in alone if s.definition is not None}
        assert {key for key, owner in owned.items() if owner == i} <= reached, d[1].qualified


MANY = 30  # definitions of one name: more than the references answer shows (20)
MANY_REPO = Indexed({**{f"pkg/m{i:02d}.py": "def tally(x):\n    return x\n" for i in range(MANY)},
                     **{f"use/u{i:02d}.py": f"from pkg.m{i:02d} import tally\n\ntally({i})\n" for i in range(MANY)}},
                    "rennet-ctx-many-definitions-", message="many definitions")


def test_a_name_defined_many_times_is_told_apart_for_the_definitions_shown(monkeypatch):
    from context_tools.query.symbols import sites as site_module

    passes = []
    one = site_module._sites_one
    monkeypatch.setattr(site_module, "_sites_one", lambda *a: passes.append(a) or one(*a))
    r = MANY_REPO.asked().call("context.references", name="tally")
    shown = {d.path for d in r.data.definitions}
    assert r.data.definitions_total == MANY and len(shown) == r.data.definitions_attributed == 20
    # a pass over the sites for each definition shown, and one for the others together: a pass
    # for each definition would make a name defined thousands of times cost thousands of passes
    assert len(passes) == 21
    for i in range(MANY):
        (site,) = [s for s in r.data.sites if s.path == f"use/u{i:02d}.py" and s.line == 3]
        assert site.resolution == "import"
        if f"pkg/m{i:02d}.py" in shown:
            assert r.data.definitions[site.definition].path == f"pkg/m{i:02d}.py"
        else:
            assert site.definition is None
