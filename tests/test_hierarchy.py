"""The class hierarchy in the Repo Map: each declared base an `inherits` edge of the canonical
dump, from the class's file to the base's, with both names; unresolved bases kept with their
status. Exact edges, from a real index of tests/fixtures/hierarchy/python_bases.txt, where a
comment beside each class says what its bases resolve to."""

from __future__ import annotations

import json

import pytest

from indexer.extract.blob import extract_blob
from tests.annotated import FIXTURES, load
from tests.indexed import Indexed

CASE = load(FIXTURES / "hierarchy" / "python_bases.txt", keys=("inherits:",))
REPO = Indexed(CASE.files, "rennet-hierarchy-", message="hierarchy")


def _noted() -> list[tuple[str, int, str, str, str | None, str | None]]:
    out = []
    for n in CASE.notes:
        for item in n.value.split(","):
            spec, status, *where = item.split()
            to, base = where if where else (None, None)
            out.append((n.path, n.line, spec, status, to, base))
    return sorted(out)


@pytest.fixture(scope="module")
def dumped() -> list[dict]:
    from indexer.api import open_store, snapshot

    repo, store_path = REPO.paths
    with open_store(store_path) as store:
        lines = snapshot(repo, "main", store=store).canonical_lines()
        return [json.loads(line) for line in lines]


def test_each_base_is_an_inherits_edge_as_its_comment_says(dumped):
    edges = [d for d in dumped if d["type"] == "edge" and d["kind"] == "inherits"]
    assert sorted((d["from"], d["line"], d["spec"], d["status"], d["to"], d["base"]) for d in edges) == _noted()


def test_an_inherits_edge_names_its_class(dumped):
    edges = {(d["from"], d["spec"]): d["class"] for d in dumped if d["type"] == "edge" and d["kind"] == "inherits"}
    assert edges[("app.py", "web.Plain")] == "Sub.Inner"
    assert edges[("app.py", "Base")] == "factory.Made"
    assert edges[("pkg/web.py", "Root")] == "Handler"


def test_inherits_edges_cast_no_vote_in_fan_in(dumped):
    # a base is not an import: pkg/base.py's fan-in is its two importers, not more
    files = {d["path"]: d for d in dumped if d["type"] == "file"}
    assert files["pkg/base.py"]["fan_in"] == 2


@pytest.mark.parametrize(("source", "bases"), [
    ("class A(B, C): pass\n", [("A", "B"), ("A", "C")]),
    ("class A(m.n.B, metaclass=M): pass\n", [("A", "m.n.B")]),
    ("class A(Generic[T], Mapping[str, int]): pass\n", [("A", "Generic"), ("A", "Mapping")]),
    ("class A(f(), *mixins, **kw): pass\n", []),
    ("class A: pass\n", []),
    ("class A:\n    class B(A): pass\n", [("A.B", "A")]),
    ("@d\nclass A(B): pass\n", [("A", "B")]),
])
def test_the_bases_read_from_the_tree(source, bases):
    facts = extract_blob(source.encode(), "m.py", "python")
    assert [(b.cls, b.base) for b in facts.bases] == bases
