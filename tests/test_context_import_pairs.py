"""A file's imports and the edges resolving them are paired once a file (`Snapshot.
edges_of_import`, `specs_of_edge`), not each import against each edge: a module of thousands of
`from m import *` lines (160 kB for 10,000 of them) held `context references` for 14 s and
`context symbol hub.other` for 6 s, growing as the square of its lines. The work is counted
here as the lines of Rennet's code a query runs, for a file of N imports and one of 2N: twice
the imports may cost about twice the lines, never four times."""

from __future__ import annotations

import pytest

from indexer.contract.errors import NotFound
from tests.indexed import Indexed
from tests.lines_run import lines_run

SMALL, LARGE = 300, 600


def _repo(n: int) -> Indexed:
    return Indexed({"m.py": "def other():\n    pass\n", "hub.py": "from m import *\n" * n,
                    "use.py": "import hub\n\nhub.other()\nhub.Thing()\n"}, f"rennet-import-pairs-{n}-", message="hub")


REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _ask(n: int, command: str, **args) -> None:
    try:
        REPOS[n].asked().call(command, **args)
    except NotFound:  # `hub.Thing`: nothing reaches it, found out after the same walk
        pass


def _lines_run(n: int, command: str, **args) -> int:
    _ask(n, command, **args)  # once first: what a query reads and keeps once a snapshot is not counted
    return lines_run(lambda: _ask(n, command, **args))


@pytest.mark.parametrize(("command", "args"), [
    ("context.references", {"name": "other"}),
    ("context.symbol", {"name": "hub.other", "fuzzy": False}),
    ("context.symbol", {"name": "hub.Thing", "fuzzy": False}),
])
def test_a_module_of_many_imports_costs_lines_in_proportion_to_them(command, args):
    small, large = _lines_run(SMALL, command, **args), _lines_run(LARGE, command, **args)
    assert large <= 2.5 * small, (small, large)
