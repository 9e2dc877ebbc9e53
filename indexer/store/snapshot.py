"""A read view of one snapshot in the store: the Repo Map at one commit OID."""

from __future__ import annotations

import os
import shlex
from bisect import bisect_left
from functools import cached_property
from itertools import compress
from operator import not_
from typing import Callable, Iterator, TypeVar

import msgspec
import pygit2

from indexer.contract.errors import MissingObjects, NotFound, NotIndexed, TooLarge, UnknownRev
from indexer.git import read as gitread
from indexer.git.worktree import WORKTREE
from indexer.model import (
    BlobFacts,
    Edge,
    FileEntry,
    ImportSpec,
    Occurrence,
    SnapshotRecord,
    Symbol,
    UnresolvedImport,
    by_import,
    import_key,
)
from indexer.store import name_runs
from indexer.store.database import Store, unpack
from indexer.store.name_runs import NameRun
from indexer.store.records import (
    NO_FACTS,
    ImportFacts,
    SnapshotTail,
    StoredRecord,
    UseFacts,
    decode_facts,
    decode_imports,
    decode_uses,
    entry_facts_key,
    full_facts,
    indexed_at_in,
    is_oid_start,
    load_facts,
    load_stored_record,
    missing_in,
    name_blobs,
    name_key,
    path_facts_key,
    pin_key,
    pinned_in,
    repo_key,
    repo_key_parts,
)

# Lookups answered without an index before a snapshot builds one: a fresh process asking
# once must not pay for an index; a snapshot asked often must not pay a scan each time.
_UNINDEXED_LOOKUPS = {"_index": 64, "_paths_by_blob": 2, "_edges_by_target": 8, "_edges_by_source": 8}
# A one-off lookup of at most this many blobs searches the blob column for each (a pass in C);
# more of them are found in one pass that asks a set, which costs a few such searches.
_FEW_BLOBS = 4
_NO_FACTS = frozenset(NO_FACTS)
T = TypeVar("T")


def _positions(column: list[str], wanted: list[str]) -> Iterator[int]:
    """Every index of `column` holding one of `wanted` (each searched with list.index)."""
    for value in set(wanted):
        at = -1
        while True:
            try:
                at = column.index(value, at + 1)
            except ValueError:
                break
            yield at


class Snapshot:
    """Built from the stored record: its head (the file table by column, fan-in and rank)
    decoded column by column as lookups read them, the file table's records made when first
    asked for (a lookup by path or blob reads the columns), the tail (edges, imports,
    packages, entry points) inflated and decoded when first asked for."""

    def __init__(self, store: Store, repo: pygit2.Repository, rev: str, stored: StoredRecord,
                 indexed_at: str) -> None:
        head = self._head = stored.lazy_head()  # columns decoded as lookups read them
        self.store = store
        self.repo = repo
        self.repo_path = gitread.repo_display_path(repo)
        self.repo_id = gitread.repo_identity(repo)
        self.folder = folder_stamp(repo.path)
        self.rev = rev
        self._stored = stored._replace(head=b"")  # the tail, for `record`; the head is decoded
        self.oid = head.oid
        self.fingerprint = head.fingerprint
        self.extractor_version = head.extractor_version
        self.indexed_at = indexed_at or head.indexed_at
        self.symbol_count = head.symbols
        # What is read of a file's facts is kept by their key (the blob, its language, the
        # extractor's version), never by path: git stores a file once however many paths hold
        # it, and a read of each such path would decode and keep the same facts again.
        self._keys: dict[str, bytes | None] = {}  # the paths asked, to their facts' keys
        self._facts: dict[bytes, BlobFacts] = {}
        self._core: dict[bytes, BlobFacts] = {}
        self._imports: dict[bytes, ImportFacts] = {}  # import_facts' reads
        self._uses: dict[bytes, UseFacts] = {}  # uses_of's reads
        self._occ_by_name: dict[bytes, dict[str, list[Occurrence]]] = {}
        self._by_name: dict[bytes, dict[str, list[Symbol]]] = {}  # _symbols_named's
        self._unindexed: dict[str, int] = {}
        self._passed: dict[tuple[str, str], list[Edge]] = {}  # _edges_of's passes
        # a file's imports and edges by the import each is (`import_key`), grouped once a file
        self._specs_by_import: dict[str, dict[tuple[int, str, str], list[ImportSpec]]] = {}
        self._edges_by_import: dict[str, dict[tuple[int, str, str], list[Edge]]] = {}

    @property
    def named(self) -> str:
        """How a message names this snapshot: a commit's by its OID; a working tree's as what it
        is, since an error carries no freshness and an agent that just edited a file must be able
        to tell a miss of its edit from a miss of a commit that lacks it."""
        if self.rev == WORKTREE:
            return f"the working tree as it is now (tree {self.oid[:12]})"
        return self.oid[:12]

    @cached_property
    def missing_objects(self) -> int:
        """How many of the snapshot's blobs the object database lacked when it was indexed
        (`records.missing_in`): a partial snapshot's count, 0 for a complete one."""
        return missing_in(self._head)

    @cached_property
    def files(self) -> list[FileEntry]:
        """The file table, sorted by path."""
        return self._head.files()

    @cached_property
    def rank(self) -> dict[str, float]:
        """path -> rank, every file present."""
        return self._head.rank_map()

    @cached_property
    def _fan_in(self) -> dict[str, int]:
        return self._head.fan_in_map()

    @cached_property
    def record(self) -> SnapshotRecord:
        # the file table, fan-in, rank and tail shared with this view, not decoded twice
        return self._stored.record(self._head, self._fan_in, self.rank, self.files, self._tail)

    @cached_property
    def _tail(self) -> SnapshotTail:
        """Edges, unresolved imports, manifests and entry points: what an import lookup reads,
        without the record's file table made, which holds an object a file."""
        return self._stored.tail()

    # --- files and facts -----------------------------------------------------------------

    @cached_property
    def _paths_by_blob(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        head = self._head
        for path, blob, language in zip(head.paths, head.blobs, head.languages):
            if language not in NO_FACTS:
                out.setdefault(blob, []).append(path)
        return out

    def _without(self, index: str) -> bool:
        """Answer this lookup without the cached `index`? Yes while it is not built and the
        snapshot has not yet been asked its share of such lookups (counted here)."""
        if index in self.__dict__:
            return False
        done = self._unindexed.get(index, 0)
        if done >= _UNINDEXED_LOOKUPS[index]:
            return False
        self._unindexed[index] = done + 1
        return True

    def _position(self, path: str) -> int | None:
        """Where `path` is in the file table (sorted by path), None when it is not there. The
        first lookups bisect; a snapshot asked often builds the path index instead."""
        if self._without("_index"):
            paths = self._head.paths
            i = bisect_left(paths, path)
            return i if i < len(paths) and paths[i] == path else None
        return self._index.get(path)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self._head.paths)}

    @property
    def parse_errors(self) -> tuple[str, ...]:
        """The paths of the files whose parse had errors (`SnapshotRecord.parse_errors`), in path
        order: read with the head, no file's facts decoded."""
        return self._head.parse_errors

    @property
    def paths(self) -> list[str]:
        """Every path of the file table, sorted: a column, no file's record made."""
        return self._head.paths

    def holds_language(self, language: str) -> bool:
        """Is any file of the snapshot in `language`? A pass over a column, in C (decoded the
        first time)."""
        return language in self._head.languages

    def file(self, path: str) -> FileEntry | None:
        i = self._position(path)
        if i is None:
            return None
        return self.files[i] if "files" in self.__dict__ else self._head.entry(i)

    def rank_of(self, path: str) -> float:
        """The file's rank, 0.0 when it is not in the snapshot."""
        i = self._position(path)
        return self._head.rank[i] if i is not None else 0.0

    def _key(self, path: str) -> bytes | None:
        if path in self._keys:
            return self._keys[path]
        i = self._position(path)  # two columns, not the file's whole record
        key = None if i is None or self._head.languages[i] in NO_FACTS else path_facts_key(
            path, self._head.blobs[i], self.extractor_version)
        self._keys[path] = key
        return key

    def facts(self, path: str) -> BlobFacts | None:
        """A file's complete blob facts, occurrences included."""
        key = self._key(path)
        if key is None:
            return None
        cached = self._facts.get(key)
        if cached is not None:
            return cached
        with self.store.env.begin() as txn:
            facts = full_facts(txn, self.store, key)
        if facts is not None and facts.plain_sites:
            # the plain tokenizer's sites, made again from the blob (the store keeps their sums);
            # the tokenizer is imported here, so a reader that meets no text file loads no extraction
            from indexer.extract.tokens import plain_occurrences

            facts = msgspec.structs.replace(facts, occurrences=plain_occurrences(self._blob_of_key(key)), uses={},
                                            occurrence_count=0)
        if facts is not None:
            self._facts[key] = facts
        return facts

    def _blob_of_key(self, key: bytes) -> bytes:
        return self._read_blob(key[:40].decode("ascii", "replace"))

    def _read_blob(self, blob: str, path: str | None = None) -> bytes:
        """The bytes of a blob the file table names (an OID: the head's blobs are checked as
        they are decoded, `records.LazyHead`), at `path` where the caller knows it."""
        try:
            size, data = gitread.read_blob_within(self.repo, blob)
        except MissingObjects as exc:
            # asked of the repository opened afresh: libgit2 counts an object its cache still holds
            # (a commit read before the prune) as present
            if self.oid in gitread.open_repo(self.repo.path):  # a partial clone's, or a damaged object
                raise self._not_local(blob, path) or exc from None
            raise CommitGone(self.rev, self.oid, self.current_oid(), exc.message) from None
        if data is None:  # git inflates an object whole: one of gigabytes is never read for a query
            raise TooLarge(f"blob {blob[:12]} holds {size:,} bytes, over the {gitread.READ_CAP:,} a query reads of "
                           f"one file")
        return data

    def _not_local(self, blob: str, path: str | None) -> MissingObjects | None:
        """What the reader of a blob the object database lacks can do (None: it holds the blob,
        damaged). A partial clone's (`git clone --filter`) is fetched by git on demand, which
        libgit2 never does: the snapshot may be a complete one of the same commit, indexed from
        another clone, so its facts are whole while this repository lacks the file's text."""
        if blob in self.repo.odb:
            return None
        what = f"blob {blob[:12]}" + (f" ({path})" if path is not None else "")
        where = shlex.quote(self.repo_path)  # a command to paste: a folder's spaces stay one argument
        if gitread.partial_clone(self.repo):
            return MissingObjects(
                f"{what} is not local to {self.repo_path}: it is a partial clone (`git clone --filter`), whose "
                f"blobs git fetches when a command needs them, and Rennet reads only those fetched; "
                f"`git -C {where} cat-file -e {blob}` fetches it from the clone's remote, then ask again")
        return MissingObjects(f"{what} is missing from the object database of {self.repo_path} "
                              f"(`git -C {where} fsck` lists what it lacks)")

    def core_facts(self, path: str, keep: bool = True) -> BlobFacts | None:
        """A file's blob facts without the occurrence list (summarized in `uses`): cheap to read.
        `keep=False`: not kept for the next ask (a caller reading each of many files once)."""
        key = self._key(path)
        if key is None:
            return None
        cached = self._core.get(key)
        if cached is not None:
            return cached
        with self.store.env.begin(db=self.store.facts) as txn:
            raw = txn.get(key)
        if raw is None:
            return None
        facts = decode_facts(unpack(bytes(raw)))
        if keep:
            self._core[key] = facts
        return facts

    def import_facts(self, path: str) -> ImportFacts | BlobFacts | None:
        """A file's imports and `__all__` alone, as its core facts hold them (those already read
        serve): what a walk over thousands of importers asks of each, without the time and
        memory their symbols would take, read as core facts."""
        return self._core_part(path, self._imports, decode_imports)

    def uses_of(self, path: str) -> dict[str, int]:
        """name -> the file's sites of it that are not its definition (BlobFacts.uses), read
        alone; {} for a file without facts."""
        found = self._core_part(path, self._uses, decode_uses)
        return found.uses if found is not None else {}

    def _core_part(self, path: str, cache: dict, decode: Callable[[bytes | memoryview], T]) -> T | BlobFacts | None:
        """Some fields of a file's stored core facts, decoded alone and kept in `cache` (its
        core facts serve when already read)."""
        key = self._key(path)
        if key is None:
            return None
        found = cache.get(key) or self._core.get(key)
        if found is not None:
            return found
        with self.store.env.begin(db=self.store.facts, buffers=True) as txn:
            raw = txn.get(key)
            if raw is None:
                return None
            found = cache[key] = decode(unpack(raw))
        return found

    def all_facts(self) -> dict[str, BlobFacts]:
        """path -> core facts of every file that has facts."""
        return load_facts(self.store, {f.path: entry_facts_key(f, self.extractor_version)
                                       for f in self.files if f.language not in NO_FACTS})

    def blob_bytes(self, path: str) -> bytes:
        f = self.file(path)
        if f is None:
            raise NotFound(f"{path} is not a file of snapshot {self.oid[:12]}")
        if f.language == "submodule":
            raise NotFound(f"{path} is a submodule at {f.target[:12]}; its content is in another repository")
        return self._read_blob(f.blob, path)

    # --- symbols and names ---------------------------------------------------------------

    def symbols(self) -> Iterator[tuple[str, Symbol]]:
        for f in self.files:
            facts = self.core_facts(f.path)
            if facts:
                for s in facts.symbols:
                    yield f.path, s

    def _paths_with(self, db, names: list[str]) -> dict[str, list[str]]:
        """name -> paths of this snapshot whose blobs the name index lists under it."""
        with self.store.env.begin(db=db) as txn:
            cursor = txn.cursor()
            blobs_of = {name: [raw.hex() for raw in name_blobs(cursor, name)] for name in names}
        wanted = {blob for blobs in blobs_of.values() for blob in blobs}
        if not wanted:
            return {name: [] for name in blobs_of}
        if self._without("_paths_by_blob"):
            # A one-off lookup (a fresh `rennet context symbol`) finds its blobs in the file
            # table: far cheaper than building the blob -> paths index that repeated lookups
            # want.
            head = self._head
            found = (_positions(head.blobs, list(wanted)) if len(wanted) <= _FEW_BLOBS
                     else compress(range(len(head.blobs)), map(wanted.__contains__, head.blobs)))
            by_blob: dict[str, list[str]] = {}
            for i in found:
                if head.languages[i] not in NO_FACTS:
                    by_blob.setdefault(head.blobs[i], []).append(head.paths[i])
        else:
            by_blob = self._paths_by_blob
        return {name: sorted(p for blob in blobs for p in by_blob.get(blob, ())) for name, blobs in blobs_of.items()}

    def defined_names(self) -> list[str]:
        """Every name some symbol of this snapshot has, sorted: read off the name index, without
        decoding a single file's facts."""
        blobs = {bytes.fromhex(blob) for blob, language in zip(self._head.blobs, self._head.languages)
                 if language not in NO_FACTS}  # OIDs: checked as the column is decoded
        names: list[str] = []
        with self.store.env.begin(db=self.store.defs) as txn:
            cursor = txn.cursor()
            last = None
            for key, blob in cursor.iternext(keys=True, values=True):
                if key != last and blob in blobs:
                    names.append(key.decode("utf-8", "replace"))
                    last = key
        return sorted(set(names))

    @cached_property
    def _blobs_with_facts(self) -> frozenset[str]:
        """The blob OIDs of files that have facts, picked out in C (a fresh near-name lookup
        asks `defines` of a few dozen names)."""
        head = self._head
        return frozenset(compress(head.blobs, map(not_, map(_NO_FACTS.__contains__, head.languages))))

    def name_runs(self) -> list[NameRun]:
        """The names of the store's name index as sorted runs of text (indexer/store/name_runs.py):
        every name any snapshot in the store defines; `defines` tells this one's."""
        return name_runs.load(self.store)

    def defines(self, key: bytes) -> bool:
        """Whether the name index lists a blob of this snapshot under `key` (a name as
        records.name_key keys it): whether `defined_names` lists the key's name."""
        blobs = self._paths_by_blob if "_paths_by_blob" in self.__dict__ else self._blobs_with_facts
        with self.store.env.begin(db=self.store.defs) as txn:
            cursor = txn.cursor()
            return bool(key) and cursor.set_key(key) and any(
                raw.hex() in blobs for raw in cursor.iternext_dup(keys=False))

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        return self.definitions_of([name])[name]

    def defining_paths(self, names: list[str]) -> dict[str, list[str]]:
        """name -> the paths whose facts define it (off the name index: no facts decoded)."""
        return self._paths_with(self.store.defs, names)

    def definitions_of(self, names: list[str]) -> dict[str, list[tuple[str, Symbol]]]:
        """name -> `definitions(name)`, for many names at once (their files found together)."""
        out: dict[str, list[tuple[str, Symbol]]] = {}
        for name, paths in self.defining_paths(names).items():
            found = out[name] = []
            for path in paths:
                found.extend((path, s) for s in self._symbols_named(path).get(name, ()))
        return out

    def _symbols_named(self, path: str) -> dict[str, list[Symbol]]:
        """The file's symbols by name, in its order: made once a blob (a blob at many paths
        too), so a file of many definitions asked for many of its names is not read through
        again for each."""
        key = self._key(path)
        found = self._by_name.get(key) if key is not None else None
        if found is None:
            facts = self.core_facts(path)
            found = {}
            for sym in facts.symbols if facts else ():
                found.setdefault(sym.name, []).append(sym)
            if key is not None:
                self._by_name[key] = found
        return found

    def paths_naming(self, name: str) -> list[str]:
        """The paths whose blobs the occurrence index lists under `name`, sorted (off the index:
        no facts decoded). Each may still hold no site of it (`occurrences_in`)."""
        return self._paths_with(self.store.occ, [name])[name]

    def occurrences(self, name: str) -> list[tuple[str, Occurrence]]:
        out: list[tuple[str, Occurrence]] = []
        for path in self.paths_naming(name):
            sites = self.occurrences_in(path, name)
            if sites:
                out.extend((path, o) for o in sites)
        return out

    def spellings(self, name: str) -> list[str]:
        """The names the occurrence index holds that are `name` but for the case of its ASCII
        letters (PHP's class and function names are case-insensitive), `name` itself included
        when held, sorted; store-wide (`occurrences` keeps this snapshot's). Found by walking
        the sorted keys a character at a time, a seek per case of each character: as many seeks
        as the index holds prefixes of such spellings, never a pass over its keys."""
        key = name_key(name)
        found: list[str] = []
        if not key:
            return found
        with self.store.env.begin(db=self.store.occ) as txn:
            cursor = txn.cursor()
            prefixes = [b""]
            for byte in key:
                cases = dict.fromkeys(bytes([byte]).lower() + bytes([byte]).upper())  # one when no letter
                prefixes = [p + bytes([c]) for p in prefixes for c in cases
                            if cursor.set_range(p + bytes([c])) and cursor.key().startswith(p + bytes([c]))]
            found = [p.decode("utf-8", "replace") for p in prefixes if cursor.set_key(p)]
        return sorted(found)

    def occurrences_in(self, path: str, name: str) -> list[Occurrence]:
        """The sites of `name` in one file, in document order. A text file's (the plain
        tokenizer's sites) are searched for in its blob, that name alone, unless the file's
        sites are all at hand already."""
        key = self._key(path)
        if key is None:
            return []
        if key not in self._occ_by_name and key not in self._facts:
            core = self.core_facts(path)
            if core is not None and core.plain_sites:
                if name not in core.uses:
                    return []
                from indexer.extract.tokens import plain_sites_of

                return plain_sites_of(self._blob_of_key(key), name, core.occurrences_capped)
        return self._sites_by_name(path).get(name, [])

    def occurrences_in_any_case(self, path: str, name: str) -> list[Occurrence]:
        """The sites in one file of `name` spelled in any case (PHP's class and function names
        are case-insensitive), in document order."""
        by_name = self._sites_by_name(path)
        # the names compared in C: a file's few hundred names, asked of each importing file
        spellings = list(compress(by_name, map(name.lower().__eq__, map(str.lower, by_name))))
        if len(spellings) == 1:
            return by_name[spellings[0]]
        return sorted((o for n in spellings for o in by_name[n]), key=lambda o: (o.line, o.col))

    def _sites_by_name(self, path: str) -> dict[str, list[Occurrence]]:
        """A file's occurrences grouped by name (document order kept), made on first use: a
        name's sites then cost a lookup per file, not a pass over all of its occurrences."""
        key = self._key(path)
        if key is None:
            return {}
        by_name = self._occ_by_name.get(key)
        if by_name is None:
            by_name = {}
            facts = self.facts(path)
            for o in facts.occurrences if facts else ():
                sites = by_name.get(o.name)
                if sites is None:
                    by_name[o.name] = [o]
                else:
                    sites.append(o)
            self._occ_by_name[key] = by_name
        return by_name

    # --- graph -----------------------------------------------------------------------------

    @cached_property
    def _edges_by_target(self) -> dict[str, list[Edge]]:
        out: dict[str, list[Edge]] = {}
        for e in self._tail.edges:
            out.setdefault(e.target, []).append(e)
        return out

    @cached_property
    def _edges_by_source(self) -> dict[str, list[Edge]]:
        out: dict[str, list[Edge]] = {}
        for e in self._tail.edges:
            out.setdefault(e.source, []).append(e)
        return out

    def importers(self, path: str) -> list[Edge]:
        return self._edges_of("_edges_by_target", path, lambda e: e.target == path)

    def imports(self, path: str) -> list[Edge]:
        return self._edges_of("_edges_by_source", path, lambda e: e.source == path)

    def edges_of_import(self, path: str, spec: ImportSpec) -> list[Edge]:
        """The edges resolving the file's import `spec`, in the file's order: the file's edges
        grouped once by `import_key`, not each read again for each of its imports (a file of
        thousands of imports made that the square of them)."""
        grouped = self._edges_by_import.get(path)
        if grouped is None:
            grouped = self._edges_by_import[path] = by_import(self.imports(path))
        return grouped.get(import_key(spec), [])

    def specs_of_edge(self, edge: Edge) -> list[ImportSpec]:
        """The imports of the edge's importing file that the edge resolves (its imports alone
        read), grouped once a file as `edges_of_import` groups edges."""
        grouped = self._specs_by_import.get(edge.source)
        if grouped is None:
            facts = self.import_facts(edge.source)
            grouped = self._specs_by_import[edge.source] = by_import(facts.imports if facts else ())
        return grouped.get(import_key(edge), [])

    def unresolved_of(self, path: str) -> list[UnresolvedImport]:
        """The file's imports that reach no file of the tree, as the record marks them, and the
        marks beside the edges of imports resolved short of the tree (resolve.tree.CAVEATS)."""
        return [u for u in self._tail.unresolved if u.path == path]

    def _edges_of(self, index: str, path: str, wanted: Callable[[Edge], bool]) -> list[Edge]:
        """The edges `index` holds under `path`: found by a pass over the edges (far cheaper
        than building the index) while the snapshot has been asked few such
        lookups, each pass's answer kept (a references query asks the same file twice)."""
        passed = self._passed.get((index, path))
        if passed is not None:
            return passed
        if self._without(index):
            found = self._passed[(index, path)] = [e for e in self._tail.edges if wanted(e)]
            return found
        return getattr(self, index).get(path, [])

    def import_graph(self):
        """The import graph as a networkx DiGraph: files as nodes, one arc per (importer,
        imported) pair; a node's in-degree is its fan-in."""
        from indexer.rank.graph import import_graph
        return import_graph(self.files, self.record.edges)

    def fan_in(self, path: str) -> int | None:
        """None when the path is not in the snapshot."""
        i = self._position(path)
        return self._head.fan_in[i] if i is not None else None

    # --- freshness and serialization -------------------------------------------------------

    def current_oid(self) -> str | None:
        try:
            return gitread.resolve_rev(self.repo, self.rev)
        except Exception:  # the rev no longer resolves: freshness says so, it is not an error here
            return None

    def canonical_lines(self) -> Iterator[bytes]:
        # The dump resolves the hierarchy over every file: a read that never dumps does not
        # import it.
        from indexer.store import canonical

        return canonical.lines(self.record, self.all_facts())


def folder_stamp(path: str) -> tuple[int, int] | None:
    """The device and inode of a repository's git folder, None when it is gone: a folder moved
    or deleted, or another one (another repository) put at its path, has another or none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class CommitGone(MissingObjects):
    """A blob of a stored snapshot that the repository no longer holds, nor the commit the
    snapshot is of: the history was rewritten and pruned since it was indexed (`git gc` after a
    reset or an amend), or the folder now holds another repository. What only the repository
    held (a file's lines, reference sites) cannot be read from it any more; the snapshot of what
    `rev` names now (`now`, None when it names nothing) can. The face ends the message with how
    its reader indexes that (`advised`)."""

    def __init__(self, rev: str, oid: str, now: str | None, message: str) -> None:
        super().__init__(message)
        self.rev, self.oid, self.now = rev, oid, now

    def __reduce__(self):
        return type(self), (self.rev, self.oid, self.now, self.message)

    def advised(self, refresh: str) -> MissingObjects:
        """The typed error its reader is told: `refresh` says how to index `rev` again."""
        then = (f"{self.rev} names {self.now[:12]} now: {refresh}, then ask again" if self.now is not None else
                f"{self.rev} no longer resolves in the repository either: ask of a rev that does")
        return MissingObjects(f"{self.message}, and so is the commit {self.oid[:12]} that {self.rev} was pinned to "
                              f"when it was indexed (a history rewritten, then pruned, or another repository at its "
                              f"path): its files' lines cannot be read; {then}")


def pinned_oid(store: Store, repo: pygit2.Repository, rev: str) -> str | None:
    """The OID a rev was pinned to when it was last indexed, if ever."""
    key = pin_key(gitread.repo_identity(repo), rev)
    with store.env.begin(db=store.repos) as txn:
        raw = txn.get(key)
        return pinned_in(bytes(raw), key, store.home) if raw is not None else None


def load(store: Store, repo_path: str, rev: str = "HEAD") -> Snapshot:
    """The pinned snapshot of `rev`: the one indexed for it last (stale if the rev moved since).
    A read never indexes: a rev with no snapshot is `not_indexed` (`indexer.api.snapshot` is
    where a caller asks for indexing on the way)."""
    repo = gitread.open_repo(repo_path)
    pinned = pinned_oid(store, repo, rev)
    try:
        oid = pinned or gitread.resolve_rev(repo, rev)  # a full OID names itself and needs no pin
    except UnknownRev:
        indexed = indexed_commit(store, repo, rev)
        if indexed is None or indexed in repo:  # still held: the rev failed for another reason (an ambiguous start)
            raise
        oid = indexed
    stored = load_stored_record(store, oid)
    if stored is None:
        raise NotIndexed(f"{rev} of {gitread.repo_display_path(repo)} is not indexed; run `rennet index --rev {rev}`")
    with store.env.begin(db=store.repos) as txn:
        stamp = txn.get(repo_key(gitread.repo_identity(repo), oid))
    indexed_at = indexed_at_in(bytes(stamp), oid, store.home) if stamp is not None else ""
    return Snapshot(store, repo, rev, stored, indexed_at)


def indexed_commit(store: Store, repo: pygit2.Repository, rev: str) -> str | None:
    """The commit `rev` names as an OID or its start (4 hex digits at least, as git takes),
    among those this repository indexed, when one alone matches: a commit pruned from the
    repository since it was indexed is still served from its snapshot, as a pin to it is, with
    a freshness saying it no longer resolves (was: `unknown_rev` unless a pin named it)."""
    start = rev.lower()
    if not is_oid_start(start):
        return None
    prefix = repo_key(gitread.repo_identity(repo), start)
    found: list[str] = []
    with store.env.begin(db=store.repos) as txn:
        cursor = txn.cursor()
        if cursor.set_range(prefix):
            for key in cursor.iternext(values=False):
                if not bytes(key).startswith(prefix):
                    break
                found.append(repo_key_parts(bytes(key))[1])
                if len(found) > 1:  # ambiguous: the rev's own error stands
                    break
    return found[0] if len(found) == 1 else None


def open_at(store: Store, repo_path: str, oid: str, rev: str, indexed_at: str = "") -> Snapshot | None:
    """The snapshot of exactly `oid` (whatever `rev` is pinned to now), None when not stored."""
    stored = load_stored_record(store, oid)
    return Snapshot(store, gitread.open_repo(repo_path), rev, stored, indexed_at) if stored is not None else None
