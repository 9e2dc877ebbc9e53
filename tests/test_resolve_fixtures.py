"""Import resolution of annotated trees (tests/fixtures/resolve/): every file extracted for
real, the tree resolved, and each import line's outcome compared with the comment beside it:
`-> path, path` (the files it lands on), `-> external`, `-> unresolved`, or `-> nothing`
(an import of the file itself, dropped). A line with no such comment must give nothing."""

from __future__ import annotations

import pytest

from tests.annotated import Case, cases
from tests.test_resolve import resolve_extracted

STATUSES = ("external", "unresolved")


def outcomes(case: Case) -> dict[tuple[str, int], str]:
    """(path, line) -> what resolution made of the imports on that line, in the notes' words."""
    edges, unresolved = resolve_extracted(case.files)
    found: dict[tuple[str, int], list[str]] = {}
    for e in edges:
        found.setdefault((e.source, e.line), []).append(e.target)
    for u in unresolved:
        found.setdefault((u.path, u.line), []).append(u.status)
    return {at: ", ".join(sorted(set(what))) for at, what in found.items()}


@pytest.mark.parametrize("case", cases("resolve"), ids=str)
def test_each_import_lands_where_its_comment_says(case: Case):
    expected = {(n.path, n.line): n.value for n in case.notes if n.value != "nothing"}
    got = outcomes(case)
    wrong = {f"{path}:{line}": (expected.get((path, line), "nothing"), got.get((path, line), "nothing"))
             for path, line in sorted(expected.keys() | got.keys())
             if expected.get((path, line)) != got.get((path, line))}
    assert wrong == {}, "path:line -> (expected, resolved)"
