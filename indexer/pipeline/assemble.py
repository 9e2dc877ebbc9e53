"""Stage 3, assemble: the tree's blob facts -> the snapshot record.

Cross-file facts (marks, import edges, manifests, entry points, fan-in, rank) and the
fingerprint of it all, computed in the indexer's process (`index`) or a worker (`batch`):
nothing here writes to the store.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Callable, ContextManager, Iterator, Mapping, NamedTuple

import msgspec
import pygit2

from indexer.contract.errors import RennetError, TooLarge
from indexer.contract.limits import limits
from indexer.contract.memory_limit import Beside
from indexer.git import read as gitread
from indexer.git.tree_names import TREE_RULES
from indexer.model import BlobFacts, FileEntry, SnapshotRecord
from indexer.pipeline.blob_bytes import check_read_bytes, read_bytes
from indexer.pipeline.collector import collector_paused
from indexer.store import canonical
from indexer.store.facts_table import Summary, summaries_of
from indexer.store.records import pack_tail

if TYPE_CHECKING:
    from indexer.pipeline.plan import Plan
    from indexer.rank.arcs import RankArcs
    from indexer.resolve.imports import Prior
    from indexer.store.records import NameIndex


# A symbolic link's target is a path: no system resolves one longer than this (Linux's PATH_MAX).
LINK_CAP = 4096


class Assembled(NamedTuple):
    record: SnapshotRecord
    arcs: RankArcs  # the rank's arcs, kept beside the record for the next re-index
    tail: bytes  # the record's packed tail (records.pack_tail)


def file_entries(repo: pygit2.Repository, tree: list[gitread.TreeEntry],
                 facts: Mapping[str, Summary]) -> list[FileEntry]:
    """The snapshot's file table: each tree entry with what its facts say of it."""
    files: list[FileEntry] = []
    for e in tree:
        if e.mode == gitread.MODE_COMMIT:
            files.append(FileEntry(e.path, "", e.mode, 0, -1, "submodule", skipped="submodule", target=e.oid))
        elif e.mode == gitread.MODE_LINK:
            if e.oid not in repo.odb:  # a partial clone's: listed, as a missing regular blob is
                files.append(FileEntry(e.path, e.oid, e.mode, 0, -1, "missing", skipped="missing_object"))  # extract.MISSING*
                continue
            size, data = gitread.read_blob_within(repo, e.oid, LINK_CAP)
            if data is None:  # no system resolves such a target: it is not read, nor kept in the record
                files.append(FileEntry(e.path, e.oid, e.mode, size, -1, "symlink", skipped="too_large"))
                continue
            target = data.decode("utf-8", "replace")
            files.append(FileEntry(e.path, e.oid, e.mode, len(target), -1, "symlink", skipped="symlink",
                                   target=target))
        else:
            f = facts.get(e.path)
            if f is None:
                raise RennetError(f"facts for {e.path} missing after extraction", code="store_error")
            # the facts' language: detected from the content where the name left it open,
            # "binary" for binary content whatever the name says
            files.append(FileEntry(e.path, e.oid, e.mode, f.size, f.lines if f.skipped != "binary" else -1,
                                   f.language, skipped=f.skipped))
    return files


def assemble_plan(repo: pygit2.Repository, oid: str, plan: Plan, summaries: Mapping[str, Summary],
                  facts: Mapping[str, BlobFacts], prior: Prior | None = None,
                  earlier_arcs: RankArcs | None = None,
                  names: Callable[[], ContextManager[NameIndex]] | None = None) -> Assembled:
    """The snapshot of a plan whose blobs' facts are all at hand (`summaries` for the file
    table, `facts` for the rest: one mapping may serve both), stamped with when it was
    indexed and how many blob facts it needs; `prior`, `earlier_arcs` and `names` as for
    `assemble`."""
    from indexer.rank import load_numpy

    load_numpy()  # before any work: the rank needs it, and a limit too small for it is said first
    # Checked over the whole tree, whatever was parsed for it, so a re-index gets the verdict a
    # cold index does: extraction checked the blobs it parsed before parsing them.
    counted: set[bytes] = set()
    total = 0
    for path, key in plan.keys.items():
        if key not in counted:
            counted.add(key)
            f = summaries.get(path)
            total += read_bytes(f.size) if f is not None else 0
    check_read_bytes(total, partial=False)
    files = file_entries(repo, plan.tree, summaries)
    record, arcs, tail = assemble(repo, oid, plan.tree_oid, files, facts, plan.version, prior=prior,
                                  earlier_arcs=earlier_arcs, names=names)
    record.indexed_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    record.blob_facts = plan.facts_count
    return Assembled(record, arcs, tail)


def assemble(repo: pygit2.Repository, oid: str, tree_oid: str, files: list[FileEntry],
             facts: Mapping[str, BlobFacts], version: str, prior: Prior | None = None,
             earlier_arcs: RankArcs | None = None,
             names: Callable[[], ContextManager[NameIndex]] | None = None) -> Assembled:
    """Cross-file facts: marks, import edges, manifests, entry points, fan-in and rank, and the
    fingerprint of it all; the rank's arcs, to keep beside the record; and the record's
    packed tail. `prior` (an earlier snapshot) lets marking and import resolution redo only
    what changed; with that snapshot's `earlier_arcs` and the store's name index (`names`
    opens it), only the arcs a change reaches are computed again."""
    from indexer.git import attributes as marks
    from indexer.manifests import entrypoints
    from indexer.manifests import read as manifests
    from indexer.rank import arcs as rank_arcs
    from indexer.rank import boilerplate, graph
    from indexer.resolve import imports as resolve

    summaries = summaries_of(facts)
    # Counted before assembly over every path (git stores a file once however many paths hold
    # it): ranking, fan-in and the fingerprint each cost every path's definitions and imports.
    cap = limits()
    symbols = sum(f.symbol_total for f in summaries.values())
    if symbols > cap.symbols:
        raise TooLarge(f"the files of {oid[:12]} define {symbols:,} symbols together, over the "
                       f"{cap.symbols:,} a snapshot holds ({cap.raise_hint('symbols')}); not indexed")
    imports = sum(f.import_total for f in summaries.values())
    if imports > cap.imports:
        raise TooLarge(f"the files of {oid[:12]} write {imports:,} imports together, over the "
                       f"{cap.imports:,} a snapshot resolves ({cap.raise_hint('imports')}); not indexed")
    with collector_paused():
        blobs = {f.path: f.blob for f in files if f.language not in ("submodule", "symlink", "missing")}

        def read(path: str) -> bytes:
            blob = blobs.get(path)
            if blob is None:
                raise KeyError(path)
            return gitread.read_blob(repo, blob)

        file_marks = marks.mark_files(files, facts, read, prior.files if prior is not None else None)
        files = [msgspec.structs.replace(f, mark=file_marks[f.path][0], mark_rule=file_marks[f.path][1])
                 if f.path in file_marks else f for f in files]
        found = manifests.parse_manifests(files, read)
        bad = {p.path: p.reason for p in found.problems if p.path in blobs}  # a missing one stays missing_object
        if bad:
            # A manifest that does not parse stays in the map, listed as skipped with why.
            files = [msgspec.structs.replace(f, skipped=bad[f.path]) if f.path in bad else f for f in files]
        tree = resolve.tree_of(files)
        edges, unresolved, redone = resolve.resolve_since(files, facts, read, prior, tree)
        pairs = graph.import_pairs(edges)
        nodes = sorted(f.path for f in files)  # a tree's paths: distinct
        arcs = None
        if prior is not None and earlier_arcs is not None and names is not None:
            earlier = rank_arcs.EarlierArcs(prior.files, lambda: graph.import_pairs(prior.edges), earlier_arcs,
                                            prior.facts)
            with names() as index:
                arcs = rank_arcs.update(nodes, files, facts, pairs, earlier, index, redone)
        if arcs is None:
            arcs = rank_arcs.from_weights(nodes, graph.rank_weights(files, facts, edges, pairs))
        rank = graph.rounded(nodes, boilerplate.below_definers(
            nodes, graph.pagerank(arcs, graph.teleport_to(nodes, None)), facts)) if nodes else {}
        record = SnapshotRecord(
            oid=oid, tree=tree_oid, extractor_version=version, files=files, edges=edges, unresolved=unresolved,
            packages=found.packages, dependencies=found.dependencies,
            entry_points=entrypoints.find_entry_points(files, facts, read, tree, found),
            fan_in=graph.fan_in(files, edges, pairs, nodes), rank=rank,
            symbols=symbols,
            parse_errors=tuple(sorted(path for path, f in summaries.items() if f.parse_error_total)),
            tree_rules=TREE_RULES,  # the plan's walk checked every tree it did not trust under them
        )
        # zlib lets go of the interpreter lock: the stored tail is packed beside the fingerprint
        with packed_beside(record) as tail:
            record.fingerprint = canonical.fingerprint(record, facts)
        return Assembled(record, arcs, tail())


@contextmanager
def packed_beside(record: SnapshotRecord) -> Iterator[Callable[[], bytes]]:
    """`pack_tail(record)` made in a thread of its own while the block runs, then waited for:
    what the block gets gives its bytes, or raises what packing raised (`memory_limit.Beside`:
    never a future waited on for good, short of memory)."""
    side = Beside(lambda: pack_tail(record), "rennet-tail", "the snapshot's tail was not packed")
    try:
        yield side.outcome
    finally:
        side.join()
