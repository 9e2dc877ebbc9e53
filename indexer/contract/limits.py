"""How much one snapshot may hold before it is refused, and the one setting that moves it.

Git stores a blob, a tree or a folder once however many places name it, so a commit of a few
kilobytes can spell out a million files, one module at thousands of paths, or paths of
gigabytes; every stage that works once a path would pay for what git stores once. Each
limit below is checked over the whole tree (never the changed files alone), before the work
it bounds where it can be, so the same commit gets the same verdict cold or from an earlier
snapshot; past one the commit is refused (`bad_tree` or `too_large`) and nothing stored
changes. What the defaults let a commit force is measured in docs/security.md.

A user, never a repository, may move them: `$RENNET_LIMITS` is a comma-separated list of
`name=size` (`symbols=32M,imports=8M`; a size as `indexer.contract.sizes` reads it, so `M`
is 1,048,576). It is read from the environment wherever a limit is checked, so every process
a command starts (a Dask LocalCluster's workers, the MCP server's readers) holds the same
limits as the command. A Dask batch's tasks hold the driver's limits whatever their workers'
environment says (`in_force`), so a job gets the same verdict wherever it runs.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

from indexer.contract.errors import BadInput
from indexer.contract.scoped import scoped
from indexer.contract.sizes import parse_size, show

VARIABLE = "RENNET_LIMITS"


@dataclass(frozen=True)
class Limits:
    # Files, and folders, a tree holds: a walk spends memory and time on every path it spells
    # out. A bundle's record holds no more files either (`indexer.fleet.bundle`).
    files: int = 1 << 20
    # Characters over all of a tree's paths: a deep chain of folders, each stored once, makes
    # every path below it long, so a few megabytes of trees can spell out gigabytes of paths.
    path_chars: int = 128 << 20
    # Definitions over all the snapshot's files, each path counted: one module at many paths.
    symbols: int = 1 << 24
    # Import statements over all the snapshot's files, the edges resolution and rank work on.
    imports: int = 1 << 22
    # Bytes of the manifests (package.json, Cargo.toml, ...) read together, judged from the
    # file table before any is read, and the dependencies, entry points and members they declare.
    manifest_bytes: int = 64 << 20
    manifest_items: int = 1 << 20
    # `.gitattributes` rules made from the tree's distinct attribute files, and the rules a
    # lookup of every file would try (each file tries the rules of every folder above it).
    attribute_rules: int = 1 << 16
    attribute_tries: int = 1 << 24
    # Bytes of the distinct blobs extraction reads (a blob once however many paths hold it),
    # judged from their headers before any is read: git stores a blob of a million lines, and
    # thousands of blobs that differ by a line each, in a few kilobytes of deltas.
    blob_bytes: int = 1 << 30
    # Commits of a `batch --range`, listed before any is indexed: a pull request chooses how
    # many commits `main..HEAD` holds, and each is a snapshot to index and pin.
    range_commits: int = 1 << 15

    def raise_hint(self, name: str) -> str:
        """The words that close a refusal at limit `name`: how a user who trusts the
        repository moves it."""
        return f"${VARIABLE}={name}={show(min(getattr(self, name) * 2, HIGHEST))} raises it"


DEFAULT = Limits()
NAMES = tuple(f.name for f in fields(Limits))
HIGHEST = 1 << 40  # no limit is worth more: past it a count or size is a setting's mistake
_CHOSEN: ContextVar[Limits | None] = ContextVar("rennet_limits", default=None)


def limits() -> Limits:
    """The limits in force: those of an enclosing `in_force`, else the defaults moved by
    `$RENNET_LIMITS`; `bad_input` naming the variable when it is not a list of `name=size`."""
    chosen = _CHOSEN.get()
    if chosen is not None:
        return chosen
    value = os.environ.get(VARIABLE, "")
    return parse_limits(value, what=f"${VARIABLE}") if value else DEFAULT


def in_force(chosen: Limits) -> AbstractContextManager[None]:
    """`chosen` are the limits of this thread's work within the block, whatever the environment
    says: a batch's task on a worker holds its driver's."""
    return scoped(_CHOSEN, chosen)


def keep(chosen: Limits) -> None:
    """`chosen` are the limits of this thread's work from now on: an extraction worker holds
    its indexer's, which a worker from a forkserver would otherwise read from the environment
    the forkserver started with."""
    _CHOSEN.set(chosen)


def parse_limits(text: str, *, what: str) -> Limits:
    """`name=size,...` over the defaults; a name given twice, unknown, or a size not in
    1..2**40 is `bad_input` naming `what`."""
    given: dict[str, int] = {}
    for part in text.split(",", len(NAMES)):
        name, equals, size = part.strip().partition("=")
        if not equals or name not in NAMES:
            shown = part if len(part) <= 40 else part[:40] + "..."
            raise BadInput(f"{what}: {shown!r} is not name=size with a name of {', '.join(NAMES)}")
        if name in given:
            raise BadInput(f"{what}: {name} is given twice")
        given[name] = parse_size(size.strip(), what=f"{what} {name}", low=1, high=HIGHEST)
    return replace(DEFAULT, **given)
