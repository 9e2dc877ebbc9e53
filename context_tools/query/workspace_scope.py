"""Answering across a workspace: its members' pinned snapshots, read as one target.

A context tool given `workspace` instead of `repo` runs its single-snapshot logic on
every member's pinned snapshot (members in name order), tags each item with its
`member`, and merges the items into one collection with one page and cursor.

Freshness of a workspace answer:

- `data.member_freshness`: `items` with the usual freshness of each member's pinned
  snapshot plus `member` (a stale member is still served from its pin), members that are not
  current first, at most MEMBER_FRESHNESS_CAP of them, with `total` and `truncated`;
- the envelope's `freshness` speaks for the whole workspace: `repo` is
  `workspace:<name>`, `rev` the members' revs (distinct, comma-joined), `pinned_oid` a
  SHA-256 over the members' `name oid` lines and `current_oid` the same digest over what
  their revs resolve to now (None when one no longer resolves), so the two are equal
  exactly when every member's rev still resolves to its pin; `status` is the worst member's by
  the order one answer's follows (`indexer.contract.standing.PRECEDENCE`): `unknown` if any
  member is unknown (or there are no members), else `stale` if any is stale, else `dirty` if any
  member's checkout differs from its pin, else `partial` if one is, else `current`;
  `indexed_at` is the newest member's; `fingerprint` is the workspace binding below.

Cursors of a workspace answer are bound to a SHA-256 over the workspace name and every
member's name, pinned OID and snapshot fingerprint: re-pinning a member (`rennet
workspace add` again, `rennet workspace sync`) makes an old cursor `bad_cursor`.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, Sequence, TypeVar, cast

import msgspec
from msgspec import Struct

from indexer.contract.errors import BadInput, NotFound, RennetError
from indexer.contract.result import Freshness, Unknown, current_or_gone, not_assessed, not_recorded
from indexer.contract.standing import worst

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from indexer.fleet.workspace import Member
    from indexer.resolve.tree import TreePaths
    from indexer.store.snapshot import Snapshot

T = TypeVar("T")
S = TypeVar("S", bound=Struct)


class MemberFreshness(Freshness, frozen=True, kw_only=True):
    """A member's own freshness, tagged with the member."""

    member: str


MEMBER_FRESHNESS_CAP = 8
# Under an agent's reply ceiling, members' freshness keeps what fits in this fraction of it: the
# answer it rides along with (a map at its default budget, half the ceiling) needs the rest.
MEMBER_FRESHNESS_SHARE = 4


class MemberFreshnessPage(Struct):
    """Members' own freshness, bounded like every collection: members that are not current
    first, then by name; the overview's `members` section pages through all of them."""

    items: list[MemberFreshness]
    total: int
    truncated: bool


class MemberPath(Struct):
    member: str
    path: str


@dataclass
class OpenMember:
    member: Member
    snap: Snapshot | None  # its pinned snapshot; None when it cannot be read (then freshness says why)
    freshness: MemberFreshness
    error: RennetError | None = None  # why the snapshot cannot be read


@dataclass
class ReadMember(OpenMember):
    """A member whose pinned snapshot was read."""

    snap: Snapshot


@dataclass
class Scope:
    name: str
    members: list[OpenMember]
    binding: str  # what cursors of this workspace are bound to
    freshness: Freshness  # of the workspace as a whole
    # bytes `member_freshness` may take: a share of an agent's reply ceiling (None: no ceiling)
    room: int | None = None
    # the members whose snapshots were read, in member order: the same objects at every ask
    readable: list[ReadMember] = field(init=False)

    def __post_init__(self) -> None:
        self.readable = [ReadMember(m.member, m.snap, m.freshness) for m in self.members if m.snap is not None]

    @property
    def member_freshness(self) -> MemberFreshnessPage:
        from context_tools.query.sections import fitting

        ordered = sorted((m.freshness for m in self.members), key=lambda f: (f.status == "current", f.member))
        kept = ordered[:MEMBER_FRESHNESS_CAP]
        if self.room is not None:
            kept = kept[:fitting(kept, self.room)]
        return MemberFreshnessPage(kept, len(ordered), len(kept) < len(ordered))

    def leave_out(self, member: ReadMember, error: RennetError, agent: bool) -> None:
        """`member`'s snapshot opened, but its repository cannot give what this answer reads of it
        (a blob a partial clone lacks, where the store holds the complete snapshot of its commit):
        the answer is the other members', and this one is `unknown`, saying why, as a member whose
        snapshot cannot be opened is. `agent`: the workspace's reason is said to an agent."""
        reason = f"member not read: {error.message}; its sites are left out of this answer"
        fresh = msgspec.structs.replace(member.freshness, status="unknown", reason=reason)
        self.members = [OpenMember(m.member, None, fresh, error) if m.member.name == member.member.name else m
                        for m in self.members]
        self.readable = [m for m in self.readable if m.member.name != member.member.name]
        self.freshness = _overall(self.name, self.members, agent)

    def names(self) -> str:
        """The members, each not read marked with why: a name found nowhere was looked for only
        in the others."""
        return ", ".join(m.member.name + ("" if m.snap is not None else f" (not read: {_code(m)})")
                         for m in self.members) or "none"


def _code(member: OpenMember) -> str:
    return member.error.code if member.error is not None else member.freshness.status


# --- choosing the target -----------------------------------------------------------------

class Targeted(Protocol):
    """An input naming a repository and a rev (each defaulted when None)."""

    @property
    def repo(self) -> str | None: ...

    @property
    def rev(self) -> str | None: ...


def workspace_of(input: object) -> str | None:
    """The workspace an input targets, or None for a single repository. `repo`/`rev` with
    `workspace` is bad input: a workspace pins each member at its own rev."""
    name = getattr(input, "workspace", None)
    if name is None:
        if getattr(input, "member", None) is not None:
            raise BadInput("`member` names a member of a workspace: pass `workspace` with it")
        return None
    mixed = [f for f in ("repo", "rev") if getattr(input, f, None) is not None]
    if getattr(input, "worktree", False):
        mixed.append("worktree")
    if mixed:
        raise BadInput(f"pass either `workspace` or `{'`/`'.join(mixed)}`, not both "
                       f"(a workspace pins each member at its own rev)")
    return name


def repo_of(input: Targeted) -> str:
    return input.repo if input.repo is not None else "."


def rev_of(input: Targeted) -> str:
    """The rev an input names: `WORKTREE` (the checkout's working tree) with `worktree`."""
    if getattr(input, "worktree", False):
        from indexer.git.worktree import WORKTREE

        if input.rev is not None and input.rev != WORKTREE:
            raise BadInput(f"pass either `worktree` or `rev` ({input.rev}), not both: the working tree is its own "
                           "snapshot")
        return WORKTREE
    return input.rev if input.rev is not None else "HEAD"


# --- opening the members -----------------------------------------------------------------

def open_workspace(ctx: CallContext, name: str) -> Scope:
    """Every member's pinned snapshot (kept open in the face's store handle), its freshness, and
    the workspace's. NotFound when there is no such workspace."""
    from indexer.fleet import workspace

    members = workspace.members(ctx.store, name)
    opened = [_open_member(ctx, name, m) for m in members]
    room = None if ctx.ceiling is None else ctx.ceiling // MEMBER_FRESHNESS_SHARE
    return Scope(name, opened, binding(name, members), _overall(name, opened, ctx.roots is not None), room)


# What a member outside the roots of the face asking tells of what its rev resolves to now
UNREAD_MEMBER = "the member lies outside the roots: its repository is not read"


def refused_member(ctx: CallContext) -> Callable[[str], str | None] | None:
    """Why a member at a path is not read on this face (its roots, and those its client
    declared, leave it out), or None where it is; None where the face has no roots (the CLI)."""
    roots = ctx.roots
    if roots is None:
        return None
    return lambda path: roots.member_refusal(path, ctx.declared)


def _open_member(ctx: CallContext, workspace_name: str, member: Member) -> OpenMember:
    from context_tools.faces.errors import Forbidden
    from context_tools.query.pinned import freshness_of
    from indexer.fleet import workspace
    from indexer.store.snapshot import folder_stamp

    key = ("member_snapshot", member.path, member.rev, member.oid, member.fingerprint)
    snap = ctx.handle.memo.get(key)
    if snap is not None and (snap.folder is None or folder_stamp(snap.repo.path) != snap.folder):
        snap = None  # the member's folder moved, deleted or replaced since: read as a first call reads it
    # asked of every call, kept or not: another client's call may have left the member in the memo
    refusal = refused_member(ctx)
    refused = None if refusal is None else refusal(member.path)
    if snap is None or refused is not None:
        try:
            if refused is not None:  # an agent face serves its roots only, whatever workspace the client names
                raise Forbidden(refused)
            snap = ctx.handle.memo[key] = workspace.member_snapshot(ctx.store, member)
        except RennetError as exc:  # the repository or its snapshot is gone: say so, answer from the rest
            reason = f"member not read: {exc.message}"
            current: str | Unknown = not_assessed(UNREAD_MEMBER)
            if refused is None:  # a member outside the roots is not read at all, not even its refs
                now = workspace.freshness(member, None, workspace.member_advice(workspace_name, ctx.roots is not None,
                                                                               member.name))
                reason += f" ({now.reason})" if now.status != "current" else ""
                current = current_or_gone(now.current_oid, member.rev)
            return OpenMember(member, None, MemberFreshness(
                repo=member.path, rev=member.rev, pinned_oid=member.oid, current_oid=current,
                status="unknown", reason=reason, indexed_at=member.indexed_at or not_recorded("not recorded"),
                fingerprint=member.fingerprint, member=member.name), exc)
    # `rennet index` would not move the workspace's pin, nor --worktree read a member's working tree
    fresh = freshness_of(snap, workspace.member_advice(workspace_name, ctx.roots is not None, member.name))
    return OpenMember(member, snap, MemberFreshness(**msgspec.structs.asdict(fresh), member=member.name))


def binding(name: str, members: Iterable[Member]) -> str:
    lines = [f"workspace {name}"] + [f"{m.name} {m.oid} {m.fingerprint}" for m in members]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _digest(pairs: Iterable[tuple[str, str]]) -> str:
    return hashlib.sha256("\n".join(f"{name} {oid}" for name, oid in pairs).encode()).hexdigest()


def _overall(name: str, opened: list[OpenMember], agent: bool = False) -> Freshness:
    from indexer.fleet.workspace import repin_advice

    fresh = [m.freshness for m in opened]
    status = worst(f.status for f in fresh)  # the one rule's order, worst member first
    unknown = [f for f in fresh if f.status == "unknown"]
    stale = [f for f in fresh if f.status == "stale"]
    short = [f for f in fresh if f.status in ("dirty", "partial")]
    clauses = []
    if unknown:
        clauses.append(f"{len(unknown)} of {len(fresh)} members unknown: " + "; ".join(
            f"{f.member}: {f.reason}" for f in unknown))
    if stale:
        clauses.append(f"{len(stale)} of {len(fresh)} members stale ({', '.join(f.member for f in stale)}); answers "
                       f"are served from the pinned snapshots ({repin_advice(name, agent)})")
    if not fresh:
        reason = f"workspace {name} has no members"
    elif clauses:  # a member that moved or is gone; one dirty or partial beside it is in `member_freshness`
        reason = "; ".join(clauses)
    elif short:  # dirty, partial: as each member's says
        reason = (f"all {len(fresh)} members still resolve to their pinned commits, but {len(short)} of them "
                  "answer from a commit their checkout no longer matches or holds whole: "
                  + "; ".join(f"{f.member}: {f.status}" for f in short))
    else:
        reason = f"all {len(fresh)} members still resolve to their pinned commits"
    current: str | Unknown = Unknown("not_applicable", "a member's rev no longer resolves, or its repository was not "
                                                    "read" if fresh else "no members")
    currents = [(f.member, f.current_oid) for f in fresh if isinstance(f.current_oid, str)]
    if fresh and len(currents) == len(fresh):
        current = _digest(currents)
    indexed = max((f.indexed_at for f in fresh if isinstance(f.indexed_at, str)), default=None)
    return Freshness(
        repo=f"workspace:{name}", rev=",".join(sorted({f.rev for f in fresh})),
        pinned_oid=_digest((f.member, f.pinned_oid) for f in fresh), current_oid=current, status=status,
        reason=reason, indexed_at=indexed or not_recorded("no member records an index time"),
        fingerprint=binding(name, (m.member for m in opened)))


def member_named(scope: Scope, name: str) -> OpenMember:
    for m in scope.members:
        if m.member.name == name:
            return m
    raise NotFound(f"{name!r} is not a member of workspace {scope.name!r} (members: {scope.names()})")


def snapshot_of(opened: OpenMember) -> Snapshot:
    """The member's snapshot, or the typed error saying why it cannot be read."""
    if opened.snap is not None:
        return opened.snap
    error = opened.error or RennetError("its pinned snapshot could not be read")
    raise RennetError(f"member {opened.member.name!r}: {error.message}", code=error.code)


# --- tagging and merging -----------------------------------------------------------------

@cache
def tagged_type(cls: type[S]) -> type[S]:
    """`cls` with a `member` field (a subclass, so the item is still a `cls`)."""
    config = cls.__struct_config__
    return cast("type[S]", msgspec.defstruct(f"Member{cls.__name__}", [("member", str)], bases=(cls,), kw_only=True,
                                                 frozen=config.frozen, module=__name__))


def tag(item: S, member: str) -> S:
    return tagged_type(type(item))(**msgspec.structs.asdict(item), member=member)


def interleave(columns: Sequence[Sequence[T]]) -> list[T]:
    """Round-robin by position: every column's first item, then every column's second, ..."""
    out: list[T] = []
    depth = max((len(c) for c in columns), default=0)
    for i in range(depth):
        out.extend(c[i] for c in columns if i < len(c))
    return out


# --- references across members -------------------------------------------------------------

def cross_importers(scope: Scope, defining: dict[str, set[str]]) -> dict[str, set[str]]:
    """Per member, the files whose external imports name a package another member declares and
    defines the symbol in (a definition file under the declaring manifest's folder). `defining` maps
    member name -> its files defining the symbol. Such a site counts as import-resolved."""
    from indexer.fleet.workspace import import_targets, provided_packages

    providers: dict[tuple[str, str], set[str]] = {}
    for m in scope.readable:
        files = defining.get(m.member.name)
        if not files:
            continue
        for key, (_, manifest) in provided_packages(m.snap.record.packages, m.snap.paths).items():
            folder = os.path.dirname(manifest)
            if not folder or any(f.startswith(folder + "/") for f in files):
                providers.setdefault(key, set()).add(m.member.name)
    out: dict[str, set[str]] = {}
    if not providers:
        return out
    for m in scope.readable:
        found: set[str] = set()
        for u in m.snap.record.unresolved:
            if u.status != "external" or u.path in found:
                continue
            if any(providers.get(key, set()) - {m.member.name} for key in import_targets(u)):
                found.add(u.path)
        if found:
            out[m.member.name] = found
    return out


class GoClauses:
    """The package clause binding a Go import of another member's package in the files of
    `member` (`bases.import_clause` of that package's files there, as a package of the tree
    binds; docs/languages.md): `gutils` for an import of the member's go-utils/ declaring
    `package gutils`; "" where the longest module path holding the import path is no other
    member's, or the package's files agree on no clause. Each path is looked up once, and each
    member's folders listed once."""

    def __init__(self, scope: Scope, member: str) -> None:
        from indexer.fleet.workspace import provided_packages

        self.modules: list[tuple[str, str, ReadMember]] = sorted(
            ((name, os.path.dirname(manifest), m) for m in scope.readable
             for (ecosystem, _), (name, manifest) in provided_packages(m.snap.record.packages).items()
             if ecosystem == "go"), key=lambda t: (-len(t[0]), t[0]))
        self.member = member
        self.trees: dict[str, TreePaths] = {}
        self.found: dict[str, str] = {}

    def __call__(self, spec: str) -> str:
        if spec not in self.found:
            self.found[spec] = self._clause(spec)
        return self.found[spec]

    def _clause(self, spec: str) -> str:
        from indexer.lang.go.bases import import_clause
        from indexer.lang.go.resolve import candidate_files, outside_its_package
        from indexer.resolve.tree import TreePaths

        # the longest module path the import path is in, as the go command picks the module; one
        # of the importing member's own is its snapshot's to resolve
        module = next((t for t in self.modules if spec == t[0] or spec.startswith(t[0] + "/")), None)
        if module is None or module[2].member.name == self.member:
            return ""
        name, root, m = module
        folder = "/".join(p for p in (root, spec[len(name):].strip("/")) if p)
        tree = self.trees.get(m.member.name)
        if tree is None:
            tree = self.trees[m.member.name] = TreePaths(m.snap.paths)
        clauses = []
        for path in candidate_files(tree, folder):
            facts = m.snap.core_facts(path)
            if facts is not None and not outside_its_package(facts):
                clauses.append(facts.package_name)
        return import_clause(clauses)

