"""context.novelty: what a head introduces against a base, read from their two snapshots.

Files are added, removed, modified (blob changed) or renamed: a removed and an added file
paired by git's rename rules and similarity score (`indexer.git.renames`), so a file moved and
edited on the way is one rename, as `git diff -M` shows it. Symbols are keyed by (path,
qualified name, kind); a renamed file's symbols are compared with its old path's, under its
new path. A symbol is changed when its signature line differs. Public API is
the symbols a language makes visible: Python names without a leading underscore (dunders
count), Go capitalized names, Rust `pub`, Java/C#/Kotlin/PHP `public` (or an interface
member), JS/TS `export`ed top-level definitions and their class members, C/C++ top-level
definitions that are not `static`; elsewhere top-level definitions (`basis` says which rule
applied). New identifiers are names occurring in head's
added or modified files that occur nowhere in the base snapshot.

One answer compares at most NOVELTY_SYMBOLS definitions over both sides, a file's whole at a
time in path order: git stores a file once however many paths hold it, so a commit of
kilobytes can add a module of thousands of definitions at hundreds of paths. A file past the
bound is counted in `files_unassessed`, and its symbols, public API and identifiers are in no
section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, TypeVar

import msgspec
from msgspec import Struct

from context_tools.query.pinned import answer_advice, freshness_of, not_indexed, open_pinned
from context_tools.query.sections import Section, refuse_paging_without_section, summary_section
from indexer.contract.errors import BadInput
from indexer.contract.result import Freshness, Result
from indexer.contract.standing import Advice
from indexer.git import renames

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import NoveltyInput
    from indexer.model import BlobFacts, Dependency, Symbol
    from indexer.store.snapshot import Snapshot


T = TypeVar("T")
# The most definitions one answer compares, over both sides of every changed file
NOVELTY_SYMBOLS = 1 << 18


class Side(Struct):
    rev: str
    oid: str
    fingerprint: str


class FileChange(Struct, omit_defaults=True):
    path: str
    change: str  # added removed modified renamed
    language: str
    previous_path: str | None = None  # renamed only
    similarity: int | None = None  # renamed: git's score, 0-100


class SymbolChange(Struct, omit_defaults=True):
    path: str
    qualified: str
    kind: str
    change: str  # added removed changed
    line: int  # in head (in base for removed)
    signature: str
    previous_signature: str | None = None  # changed only


class ApiChange(Struct):
    path: str
    qualified: str
    kind: str
    change: str
    signature: str
    basis: str  # the visibility rule that made it public


class DependencyChange(Struct):
    name: str
    ecosystem: str
    change: str  # added removed changed
    spec: str
    previous_spec: str
    scope: str
    manifest: str


class Novelty(Struct):
    base: Side
    head: Side
    base_freshness: Freshness
    files: Section[FileChange]
    symbols: Section[SymbolChange]
    public_api: Section[ApiChange]
    dependencies: Section[DependencyChange]
    identifiers: Section[str]
    # changed files whose symbols were not compared, past NOVELTY_SYMBOLS: in no section but files
    files_unassessed: int = 0
    # changed files whose head side's parse had errors, in path order: a symbol lost in or after
    # an error reads as removed, or one misread as added (`context.file` says where)
    parse_errors: list[str] = msgspec.field(default_factory=list)
    # where those files do not parse (the first few), and that no word of those lines is listed
    # in `identifiers`; absent when every changed file parsed cleanly
    parse_errors_note: str | None = None


class NoveltySection(Struct):
    base: Side
    head: Side
    section: str
    items: list
    files_unassessed: int = 0  # as Novelty's


def _file_changes(base: Snapshot, head: Snapshot) -> list[FileChange]:
    b = {f.path: f for f in base.files}
    h = {f.path: f for f in head.files}
    removed = [p for p in b if p not in h]
    added = [p for p in h if p not in b]
    sources = [renames.Candidate(p, b[p].mode, b[p].blob) for p in removed if b[p].blob]
    dests = [renames.Candidate(p, h[p].mode, h[p].blob) for p in added if h[p].blob]
    where = {**{b[p].blob: (base, b[p]) for p in removed}, **{h[p].blob: (head, h[p]) for p in added}}
    renamed: dict[str, tuple[str, int]] = {}  # head path -> (base path, similarity)
    for pair in renames.pair(sources, dests, read=lambda oid: where[oid][0].blob_bytes(where[oid][1].path),
                             size=lambda oid: where[oid][1].size):
        if pair.renamed:  # a copy from a removed file stays an addition
            renamed[pair.dest.path] = (pair.source.path, pair.similarity)
    gone = {old for old, _ in renamed.values()}
    changes = [FileChange(p, "added", h[p].language) for p in added if p not in renamed]
    changes += [FileChange(p, "renamed", h[p].language, old, sim) for p, (old, sim) in renamed.items()]
    changes += [FileChange(p, "removed", b[p].language) for p in removed if p not in gone]
    changes += [FileChange(p, "modified", h[p].language) for p in h if p in b and h[p].blob != b[p].blob]
    changes.sort(key=lambda c: (c.path, c.change))
    return changes


def _facts_of(snap: Snapshot, path: str | None) -> BlobFacts | None:
    return snap.core_facts(path) if path is not None else None


def _symbols_of(facts: BlobFacts | None) -> dict[tuple[str, str], Symbol]:
    return {(s.qualified, s.kind): s for s in (facts.symbols if facts else ())}


def _symbol_changes(base: Snapshot, head: Snapshot, files: list[FileChange]
                    ) -> tuple[list[SymbolChange], set[str]]:
    """The symbols changed, and the paths whose symbols were not compared (NOVELTY_SYMBOLS)."""
    out: list[SymbolChange] = []
    unassessed: set[str] = set()
    left = NOVELTY_SYMBOLS
    for c in files:
        if c.change == "renamed" and c.similarity == 100:
            continue  # same blob, same symbols
        was = _facts_of(base, c.previous_path if c.change == "renamed" else
                        c.path if c.change in ("modified", "removed") else None)
        now = _facts_of(head, c.path if c.change in ("modified", "added", "renamed") else None)
        cost = sum(len(f.symbols) for f in (was, now) if f is not None)
        if cost > left:
            unassessed.add(c.path)
            continue
        left -= cost
        old, new = _symbols_of(was), _symbols_of(now)
        for key, s in new.items():
            before = old.get(key)
            if before is None:
                out.append(SymbolChange(c.path, s.qualified, s.kind, "added", s.line, s.signature))
            elif before.signature != s.signature:
                out.append(SymbolChange(c.path, s.qualified, s.kind, "changed", s.line, s.signature, before.signature))
        for key, s in old.items():
            if key not in new:
                out.append(SymbolChange(c.path, s.qualified, s.kind, "removed", s.line, s.signature))
    out.sort(key=lambda s: (s.path, s.line, s.qualified, s.change))
    return out, unassessed


def visibility(language: str, qualified: str, kind: str, signature: str, path: str = "") -> str | None:
    """The rule that makes a symbol public, or None when it is not: none in a file its language
    holds private (`Bindings.private_module`), else its language's `Bindings.public_basis`."""
    from indexer.lang.bindings import of_language

    rules = of_language(language)
    if path and rules.private_module(path):
        return None
    return rules.public_basis(qualified.split("."), kind, signature)


def _api_changes(head: Snapshot, base: Snapshot, symbols: list[SymbolChange]) -> list[ApiChange]:
    """The symbol changes that are public API: none of a test file, or of a file in a test
    folder (`delta.counterparts.test_rule`), whose names no caller of the code uses."""
    from delta.counterparts import test_rule

    out = []
    for s in symbols:
        if test_rule(s.path):
            continue
        side = base if s.change == "removed" else head
        f = side.file(s.path)
        basis = visibility(f.language if f else "", s.qualified, s.kind, s.signature, s.path)
        if basis:
            out.append(ApiChange(s.path, s.qualified, s.kind, s.change, s.signature, basis))
    return out


def _dependency_changes(base: Snapshot, head: Snapshot) -> list[DependencyChange]:
    def index(snap: Snapshot) -> dict[tuple[str, str, str], Dependency]:
        return {(d.ecosystem, d.name, d.scope): d for d in snap.record.dependencies}

    b, h = index(base), index(head)
    out = []
    for key, d in h.items():
        old = b.get(key)
        if old is None:
            out.append(DependencyChange(d.name, d.ecosystem, "added", d.spec, "", d.scope, d.manifest))
        elif old.spec != d.spec:
            out.append(DependencyChange(d.name, d.ecosystem, "changed", d.spec, old.spec, d.scope, d.manifest))
    for key, d in b.items():
        if key not in h:
            out.append(DependencyChange(d.name, d.ecosystem, "removed", "", d.spec, d.scope, d.manifest))
    out.sort(key=lambda c: (c.ecosystem, c.name, c.scope))
    return out


def _names_in(facts: BlobFacts) -> set[str]:
    """Every identifier a file's facts name: its definitions, its uses and its local names (core
    facts summarize occurrences as `uses` and `local_names`; full facts also list them)."""
    names = {s.name for s in facts.symbols}
    names.update(facts.uses)
    names.update(facts.local_names)
    names.update(o.name for o in facts.occurrences)
    return names


def _names(ctx: CallContext, snap: Snapshot) -> set[str]:
    key = ("all_identifiers", snap.fingerprint)
    names = ctx.handle.memo.get(key)
    if names is None:
        names = set()
        # one blob at many paths is one facts object: its names are taken once
        for facts in {id(f): f for f in snap.all_facts().values()}.values():  # core facts
            names |= _names_in(facts)
        ctx.handle.memo[key] = names
    return names


def _new_identifiers(ctx: CallContext, base: Snapshot, head: Snapshot, files: list[FileChange],
                     unassessed: set[str]) -> list[str]:
    seen = _names(ctx, base)
    broken = frozenset(head.parse_errors)
    fresh: set[str] = set()
    taken: set[int] = set()  # the facts objects read: a blob at many paths is one
    for c in files:
        if c.change in ("added", "modified", "renamed") and c.path not in unassessed:
            facts = head.facts(c.path) if c.path in broken else head.core_facts(c.path)
            if facts and id(facts) not in taken:
                taken.add(id(facts))
                fresh |= (_parsed_names_in(facts) if facts.parse_error_total else _names_in(facts)) - seen
    return sorted(fresh)


def _parsed_names_in(facts: BlobFacts) -> set[str]:
    """The identifiers of a file whose parse had errors, read where it parsed: tree-sitter's
    recovery reads the words of a failed region as it can (`def`, `return` as identifiers), so a
    name seen only in a region, or past the regions kept (`BlobFacts.parse_errors` holds the first
    ones), is left out, and so is a keyword of its grammar wherever it is; the answer's
    `parse_errors_note` says where the file does not parse."""
    from indexer.lang import grammars
    from indexer.lang.registry import LANGUAGES

    regions = facts.parse_errors
    past = regions[-1].end_line if facts.parse_error_total > len(regions) else None

    def parsed(line: int) -> bool:
        return (past is None or line <= past) and not any(r.line <= line <= r.end_line for r in regions)

    names = {s.name for s in facts.symbols if parsed(s.line)}
    names.update(o.name for o in facts.occurrences if parsed(o.line))
    return names - grammars.keywords(facts.language) if facts.language in LANGUAGES else names


def _base_advice(input: NoveltyInput, rev: str, ctx: CallContext) -> Advice:
    """What the base's reason advises: against the working tree, a base the checkout has checked
    out is `dirty`, and is read from its commit as the comparison asks, not from the working tree
    its advice would otherwise send the reader to (the head already is)."""
    from indexer.git.worktree import WORKTREE

    advice = answer_advice(rev, ctx)
    if head_of(input) != WORKTREE:
        return advice
    return advice._replace(dirty="the base is read from its commit, as the comparison asks; the head is the working "
                                 "tree")


def _base_or_both_missing(ctx: CallContext, input: NoveltyInput) -> Snapshot:
    """The base's snapshot; where it is not indexed and neither is a head commit, one `not_indexed`
    names both, so that an agent indexes both before it asks again, not one a call."""
    from indexer.contract.errors import NotIndexed
    from indexer.git.worktree import WORKTREE

    try:
        return open_pinned(ctx, input.repo, input.base)[0]
    except NotIndexed:
        head = head_of(input)
        if head == WORKTREE or head == input.base:
            raise
        try:
            open_pinned(ctx, input.repo, head)
        except NotIndexed:
            raise not_indexed(ctx, input.repo, [input.base, head]) from None
        raise


def head_of(input: NoveltyInput) -> str:
    """The head rev: `WORKTREE` (the working tree) with `worktree`."""
    from indexer.git.worktree import WORKTREE

    if input.worktree:
        if input.head not in ("HEAD", WORKTREE):
            raise BadInput(f"pass either `worktree` or `head` ({input.head}), not both")
        return WORKTREE
    return input.head


def novelty(input: NoveltyInput, ctx: CallContext) -> Result:
    # the base first: where it is not indexed and this face may not index it (a `--worktree`
    # server indexes the working tree only), that is said before the working tree is indexed
    base = _base_or_both_missing(ctx, input)
    head, fresh = open_pinned(ctx, input.repo, head_of(input))
    binding = f"{base.fingerprint}:{head.fingerprint}"
    files = _file_changes(base, head)
    symbols, unassessed = _symbol_changes(base, head, files)
    api = _api_changes(head, base, symbols)
    dependencies = _dependency_changes(base, head)
    identifiers = _new_identifiers(ctx, base, head, files, unassessed)
    sections: dict[str, Sequence[object]] = {"files": files, "symbols": symbols, "public_api": api,
                                             "dependencies": dependencies, "identifiers": identifiers}
    sides = (Side(input.base, base.oid, base.fingerprint), Side(head_of(input), head.oid, head.fingerprint))
    if input.section is not None:
        items, page = ctx.page(sections[input.section], cap="items", limit=input.limit, cursor=input.cursor,
                               binding=binding)
        return Result(NoveltySection(*sides, input.section, items, files_unassessed=len(unassessed)),
                      freshness=fresh, page=page)
    refuse_paging_without_section(input)

    def first(name: str, items: Sequence[T]) -> Section[T]:
        return summary_section(ctx, input, name, items, binding)

    broken = _broken(head, files)
    data = Novelty(*sides, base_freshness=freshness_of(base, _base_advice(input, base.rev, ctx)), files=first("files", files),
                   symbols=first("symbols", symbols), public_api=first("public_api", api),
                   dependencies=first("dependencies", dependencies), identifiers=first("identifiers", identifiers),
                   files_unassessed=len(unassessed), parse_errors=broken, parse_errors_note=_broken_note(head, broken))
    return Result(data, freshness=fresh)


def _broken(head: Snapshot, files: list[FileChange]) -> list[str]:
    """The changed files the head holds whose parse had errors."""
    errors = frozenset(head.parse_errors)
    return [c.path for c in files if c.change != "removed" and c.path in errors] if errors else []


NOTED_FILES = 5


def _broken_note(head: Snapshot, broken: list[str]) -> str | None:
    """Where the changed files of `broken` do not parse (the first NOTED_FILES), as the other
    tools say it (`context.file`'s note)."""
    from indexer.contract.parse_errors import regions_text

    if not broken:
        return None
    where = []
    for path in broken[:NOTED_FILES]:
        facts = head.core_facts(path, keep=False)
        where.append(f"{path} at {regions_text(facts.parse_errors, facts.parse_error_total)}"
                     if facts is not None and facts.parse_error_total else f"{path} (lines not read)")
    one = len(broken) == 1
    return (f"{len(broken)} changed file{'' if one else 's'} do{'es' if one else ''} not parse at head: "
            + ", ".join(where) + (", ..." if len(broken) > NOTED_FILES else "")
            + "; a symbol in or after an error may read as removed or be misread, and no word of those lines is "
              "listed as a new identifier")
