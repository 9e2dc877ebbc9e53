"""Stage 1, plan: what indexing a commit starts from, before any blob is read."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, Container, Iterator, Mapping, Sequence

import msgspec
import pygit2

from indexer.git import read as gitread
from indexer.git.loose import Damaged, check_intact
from indexer.git.tree_names import TREE_RULES
from indexer.lang.registry import name_language
from indexer.store.records import (
    NO_FACTS,
    LazyHead,
    PriorRecord,
    entry_facts_key,
    facts_key,
    load_stored_record,
)

if TYPE_CHECKING:
    from indexer.model import BlobFacts
    from indexer.resolve.imports import Prior
    from indexer.store.database import Store


class BlobJob(msgspec.Struct, frozen=True):
    """One blob to extract: its OID, a path it has in the tree, and what that name says of its
    language (the facts key's; extraction detects it from the content where the name leaves
    it open)."""

    blob: str
    path: str
    language: str
    version: str  # the snapshot version whose facts key the result is stored under


NOT_BLOBS = (gitread.MODE_COMMIT, gitread.MODE_LINK)


class Plan:
    """What indexing a commit starts from: its tree, each blob's facts key (by what its name
    says of its language), and the nearest earlier snapshot of its first-parent line (built
    by this extractor version), whose word on a (path, blob) still holds: facts are looked
    up, marks set and imports resolved again only where something changed.

    The keys of the whole tree are made when first asked for: a re-index sends the blobs the
    diff names (`changed`) to be parsed first, and keys the rest while they are."""

    def __init__(self, tree_oid: str, tree: list[gitread.TreeEntry], earlier: PriorRecord | None, version: str,
                 changed: list[gitread.TreeEntry] | None = None) -> None:
        self.tree_oid = tree_oid
        self.tree = tree
        self.earlier = earlier
        self.version = version
        self.changed = changed  # the entries that differ from the earlier snapshot's; None: not known

    @cached_property
    def _keyed(self) -> tuple[dict[str, str], dict[str, bytes], frozenset[str]]:
        version = self.version
        languages: dict[str, str] = {}
        keys: dict[str, bytes] = {}
        tails: dict[str, bytes] = {}  # language -> what its facts keys end with (records.facts_key)
        for e in self.tree:  # one pass: on a large tree each pass over it shows
            if e.mode in NOT_BLOBS:
                continue
            path = e.path
            language = languages[path] = name_language(path)
            tail = tails.get(language)
            if tail is None:
                tail = tails[language] = facts_key("", language, version)
            keys[path] = e.oid.encode() + tail
        if self.earlier is None:
            return languages, keys, frozenset()
        if self.changed is not None:
            # every entry the diff does not name is the earlier one (a blob changing only its
            # mode is named: not carried, so looked up, as a new path would be)
            return languages, keys, frozenset(languages.keys() - {e.path for e in self.changed})
        before = {f.path: f.blob for f in self.earlier.files if f.mode not in NOT_BLOBS}
        return languages, keys, frozenset(e.path for e in self.tree
                                          if e.path in languages and before.get(e.path) == e.oid)

    @property
    def languages(self) -> dict[str, str]:
        """path -> what its name says (languages.name_language), for every blob."""
        return self._keyed[0]

    @property
    def keys(self) -> dict[str, bytes]:
        """path -> facts key, for every blob."""
        return self._keyed[1]

    @property
    def carried(self) -> frozenset[str]:
        """The paths whose blob the earlier snapshot had there: their facts are stored."""
        return self._keyed[2]

    @property
    def facts_count(self) -> int:
        """How many distinct blob facts the tree needs (SnapshotRecord.blob_facts)."""
        return len(set(self.keys.values()))

    def prior(self, earlier_facts: Mapping[str, BlobFacts]) -> Prior | None:
        """The earlier snapshot for assembly to start from, given its facts at
        `earlier_keys`; None without one."""
        if self.earlier is None:
            return None
        from indexer.resolve.imports import Prior
        return Prior(self.earlier.files, self.earlier.edges, self.earlier.unresolved, earlier_facts.get)

    def missing(self, present: Callable[[bytes], bool], known: Container[bytes],
                trust_carried: bool = True) -> Iterator[tuple[bytes, BlobJob]]:
        """(facts key, job) for each blob of the tree whose facts are neither stored (`present`)
        nor in `known`, which the caller fills as it goes: each key comes once. With
        `trust_carried`, blobs the earlier snapshot had at the same path are taken as stored
        without asking (the caller then parses any it finds lost, as `index` does)."""
        carried = self.carried if trust_carried else frozenset()
        for e in self.tree:
            key = self.keys.get(e.path)
            if key is not None and e.path not in carried and key not in known and not present(key):
                yield key, BlobJob(e.oid, e.path, self.languages[e.path], self.version)

    def blobs_besides(self, known: Container[bytes]) -> list[BlobJob]:
        """A job for each blob of the tree whose facts key is not in `known`, each key once: in a
        partial clone, the blobs whose facts are stored (another clone of the project indexed
        them) are asked for too, as the clone may lack them all the same."""
        jobs: dict[bytes, BlobJob] = {}
        for e in self.tree:
            key = self.keys.get(e.path)
            if e.mode not in NOT_BLOBS and key is not None and key not in known and key not in jobs:
                jobs[key] = BlobJob(e.oid, e.path, self.languages[e.path], self.version)
        return list(jobs.values())

    def fresh(self, present: Callable[[bytes], bool], known: Container[bytes]) -> Iterator[tuple[bytes, BlobJob]]:
        """`missing`, trusting carried blobs, from the entries the diff names when the plan has
        them: the rest of the tree is not keyed for it."""
        if self.changed is None:
            yield from self.missing(present, known)
            return
        for e in self.changed:
            if e.mode in NOT_BLOBS:
                continue
            language = name_language(e.path)
            key = facts_key(e.oid, language, self.version)
            if key not in known and not present(key):
                yield key, BlobJob(e.oid, e.path, language, self.version)

    def earlier_keys(self) -> dict[str, bytes]:
        """path -> the earlier snapshot's facts key, for the paths whose facts changed since:
        all that import resolution asks of the earlier facts."""
        if self.earlier is None:
            return {}
        out = {}
        for f in self.earlier.files:
            # a carried path has the same blob and name, so the same key: not computed again
            if f.language not in NO_FACTS and f.path not in self.carried:
                key = entry_facts_key(f, self.version)
                if self.keys.get(f.path) != key:
                    out[f.path] = key
        return out


def plan(store: Store, repo: pygit2.Repository, oid: str, version: str,
         earlier_oids: Sequence[str] | None = None) -> Plan:
    """Walk the tree at `oid` (from the earlier snapshot's, when there is one) and key each
    blob's facts by what its name says of its language: no blob is read here. The earlier
    snapshot is the first stored of `earlier_oids`, or without them the nearest up the
    commit's first-parent line."""
    earlier = earlier_record(store, repo, oid, version) if earlier_oids is None else \
        _first_stored(store, earlier_oids, version)
    if earlier is None:
        return Plan(*gitread.walk_tree(repo, oid), None, version)
    # the earlier snapshot's trees are trusted as checked only if they were checked under
    # these rules; else every tree of the commit is, so what the store holds never decides
    since = gitread.tree_since(repo, oid, earlier.tree, [
        gitread.TreeEntry(f.path, f.mode, f.target if f.mode == gitread.MODE_COMMIT else f.blob)
        for f in earlier.files], base_checked=earlier.tree_rules == TREE_RULES)
    return Plan(since.tree_oid, since.entries, earlier, version, since.changed)


def earlier_record(store: Store, repo: pygit2.Repository, oid: str, version: str) -> PriorRecord | None:
    """The nearest snapshot up the first-parent line built by this extractor version."""
    try:
        commit = repo[oid].peel(pygit2.Commit)
        for _ in range(16):
            if not commit.parent_ids:
                return None
            stored = load_stored_record(store, str(commit.parent_ids[0]), version)
            if stored is not None:
                return stored.prior()
            check_intact(repo, str(commit.parent_ids[0]))  # a damaged loose one would hold libgit2 for good
            commit = repo[commit.parent_ids[0]].peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, Damaged):
        pass  # a shallow or damaged history ends the search, nothing else
    return None


def _first_stored(store: Store, oids: Sequence[str], version: str) -> PriorRecord | None:
    for oid in oids:
        stored = load_stored_record(store, oid, version)
        if stored is not None:
            return stored.prior()
    return None


def existing_head(store: Store, oid: str, version: str,
                  repo: pygit2.Repository | None = None) -> LazyHead | None:
    """The head of the snapshot already stored at `oid`, if any: all that reporting it needs
    (of its columns, the paths, languages and skips). A rev whose snapshot exists needs no
    plan: pinning it is the whole of indexing it. With `repo`, a snapshot whose trees were
    checked under older rules than this code's (`TREE_RULES`) has them checked again first:
    `bad_tree` refuses its commit as an index of it would."""
    stored = load_stored_record(store, oid, version)
    if stored is None:
        return None
    head = stored.lazy_head()
    if repo is not None and head.tree_rules != TREE_RULES:
        gitread.check_tree(repo, oid)
    return head
