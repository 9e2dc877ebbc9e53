"""Workspaces: several repositories read as one, composed by reference.

A workspace stores, per member, who the member is (name, path, remote URL) and which
snapshot it is pinned to (commit OID + fingerprint + extractor version): a reference into
the store, never a copy of the member's Repo Map. Beside the members it records the
cross-repository edges found between their snapshots: a Python distribution, npm
package, Go module or Rust crate declared by one member (`record.packages`) and depended
on (`record.dependencies`) or imported (external imports, `record.unresolved`) by another.

Stored in `store.kv("workspaces")` as `ws|<name>` -> msgpack `WorkspaceRecord`.
Freshness is never stored: it is read from Git (and the pinned snapshot's missing blobs) when
asked, by the rule every answer's freshness follows (`indexer.contract.standing`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Callable, Iterable

import msgspec

from indexer.contract.encode import encode_msgpack
from indexer.contract.errors import BadInput, NotFound, RennetError
from indexer.contract.read_back import read_back
from indexer.contract.standing import Advice, PinnedStatus, standing

TABLE = "workspaces"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
EVIDENCE_CAP = 5  # evidence sites kept per cross edge; the count says how many there were


class WorkspaceExists(RennetError):
    code = "already_exists"


# --- what is stored ----------------------------------------------------------------------

class MemberRecord(msgspec.Struct, kw_only=True):
    name: str
    path: str  # real path of the work tree (or bare repository)
    repo_id: str  # indexer.git.read.repo_identity: the store's key for this repository
    remote_url: str | None  # origin's URL (or the first remote's), None when no remote is set
    rev: str  # what the member follows ("main", "HEAD", "v1.2")
    oid: str  # the commit the workspace pins the member to
    fingerprint: str  # of the pinned snapshot: together with oid, the snapshot's identity
    extractor_version: str
    indexed_at: str
    added_at: str


class Evidence(msgspec.Struct, frozen=True):
    path: str  # manifest declaring the dependency, or the file importing the package
    line: int  # 0 for a manifest dependency (manifests carry no line)
    spec: str  # the import specifier, or the version constraint as written


class CrossEdge(msgspec.Struct, frozen=True, kw_only=True):
    source: str  # member that depends on / imports the package
    target: str  # member that declares it
    ecosystem: str  # pypi npm go cargo
    package: str  # as the target declares it
    manifest: str  # the target's manifest declaring the package
    kinds: tuple[str, ...]  # "dependency" and/or "import"
    count: int  # evidence sites in all
    evidence: tuple[Evidence, ...]  # the first EVIDENCE_CAP, sorted


class WorkspaceRecord(msgspec.Struct, kw_only=True):
    name: str
    created_at: str
    updated_at: str
    members: list[MemberRecord] = msgspec.field(default_factory=list)
    edges: list[CrossEdge] = msgspec.field(default_factory=list)


_encode = encode_msgpack
_decode = read_back(msgspec.msgpack.Decoder(WorkspaceRecord).decode)


# --- what callers read -------------------------------------------------------------------

@dataclass(frozen=True)
class Member:
    """One member as the context tools read it: where it lives and which snapshot is pinned."""

    name: str
    path: str
    repo_id: str
    remote_url: str | None
    rev: str
    oid: str
    fingerprint: str
    extractor_version: str
    indexed_at: str


@dataclass(frozen=True)
class MemberFreshness:
    status: PinnedStatus
    current_oid: str | None
    reason: str


@dataclass(frozen=True)
class MemberStatus:
    member: Member
    freshness: MemberFreshness
    files: int | None  # None when the pinned snapshot is not in the store, or not read
    packages: list[str]  # "ecosystem:name" the member declares
    read: bool = True  # False when the roots of the face asking left the member out (`overview`)


@dataclass(frozen=True)
class WorkspaceOverview:
    name: str
    created_at: str
    updated_at: str
    members: list[MemberStatus]
    edges: list[CrossEdge]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _key(name: str) -> bytes:
    return f"ws|{name}".encode()


def check_name(name: str, what: str = "workspace") -> str:
    if not _NAME.match(name or ""):
        raise BadInput(f"{what} name {name!r} must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return name


def _member(m: MemberRecord) -> Member:
    return Member(name=m.name, path=m.path, repo_id=m.repo_id, remote_url=m.remote_url, rev=m.rev, oid=m.oid,
                  fingerprint=m.fingerprint, extractor_version=m.extractor_version, indexed_at=m.indexed_at)


# --- reading and writing the table ---------------------------------------------------------

def _read(raw: bytes, key: bytes, home) -> WorkspaceRecord:
    """The workspace stored under `key` (its stored `raw` bytes); `store_corrupt` when it does
    not decode or pins a member to no commit OID (the snapshot it pinned would be held by
    nothing)."""
    from indexer.store.database import corrupt
    from indexer.store.records import is_oid

    try:
        ws = _decode(raw)
    except msgspec.DecodeError:
        ws = None
    if ws is None or not all(is_oid(m.oid) for m in ws.members):
        name = key[len(b"ws|"):].decode(errors="replace")
        raise corrupt(home, f"workspace {name!r} does not read back")
    return ws


def load(store, name: str) -> WorkspaceRecord:
    key = _key(check_name(name))
    raw = store.kv(TABLE).get(key)
    if raw is None:
        raise NotFound(f"no workspace {name!r}; {_held(store)}")
    return _read(raw, key, store.home)


NAMES_SHOWN = 20  # the workspaces a not_found names; past them it counts the rest


def _held(store) -> str:
    """What a miss tells of the store's workspaces: their names, so an agent, which has no tool
    listing them, can ask again; or, when there is none, that a workspace is made at a terminal,
    which no agent tool does."""
    names = sorted(key[len(b"ws|"):].decode(errors="replace") for key, _ in store.kv(TABLE).items(b"ws|"))
    if not names:
        return ("this store holds none: a workspace is made at a terminal (`rennet workspace create NAME`, "
                "then `rennet workspace add NAME REPO`); no agent tool makes one")
    more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    return "this store holds " + ", ".join(repr(n) for n in names[:NAMES_SHOWN]) + more


def all_workspaces(store) -> list[WorkspaceRecord]:
    out = []
    for key, raw in store.kv(TABLE).items(b"ws|"):
        try:
            out.append(_read(raw, key, store.home))
        except RennetError:
            continue  # one unreadable row must not hide the others
    return out


def records_in(store, txn) -> list[WorkspaceRecord]:
    """Every workspace, read inside the caller's transaction (`store.kv_in`); one that does not
    read back is `store_corrupt`: what it holds would be taken for held by nothing."""
    db = store.kv_in(txn, TABLE)
    if db is None:
        return []
    out = []
    cursor = txn.cursor(db=db)
    if cursor.set_range(b"ws|"):
        for key, raw in cursor:
            if not bytes(key).startswith(b"ws|"):
                break
            out.append(_read(bytes(raw), bytes(key), store.home))
    return out


def _save(store, ws: WorkspaceRecord) -> None:
    ws.updated_at = _now()
    store.kv(TABLE).put(_key(ws.name), _encode(ws))


def members(store, name: str) -> list[Member]:
    """The members of workspace `name`, sorted by member name: path, rev and pinned snapshot."""
    return [_member(m) for m in load(store, name).members]


def create(store, name: str) -> WorkspaceRecord:
    from indexer.store.database import WriteLock

    check_name(name)
    with WriteLock(store.home):
        if store.kv(TABLE).get(_key(name)) is not None:
            raise WorkspaceExists(f"workspace {name!r} already exists")
        now = _now()
        ws = WorkspaceRecord(name=name, created_at=now, updated_at=now)
        store.kv(TABLE).put(_key(name), _encode(ws))
    return ws


@dataclass
class AddOutcome:
    workspace: WorkspaceRecord
    member: MemberRecord
    replaced: bool  # the repository was a member already and is pinned anew
    parsed_blobs: int
    reused_blobs: int


def add(store, name: str, repo_path: str, rev: str = "HEAD", member_name: str | None = None,
        workers: int | None = None) -> AddOutcome:
    """Pin `rev` of the repository at `repo_path` as a member (indexing it if needed).
    Adding a repository that is a member already re-pins it (its rev moved, or another rev)."""
    from contextlib import nullcontext

    from indexer.api import announced
    from indexer.build import index
    from indexer.git import read as gitread
    from indexer.store.database import WriteLock
    from indexer.store.records import load_stored_record
    from indexer.store.snapshot import load as load_snapshot

    before = load(store, name)  # fail before indexing anything when the workspace does not exist
    if member_name is not None:
        check_name(member_name, "member")
    repo = gitread.open_repo(repo_path)
    repo_id = gitread.repo_identity(repo)
    path = gitread.repo_display_path(repo)
    # so does a name another member has; checked again under the lock, where the member is
    # written, as another writer may have added one meanwhile
    _member_name(before, repo_id, path, member_name)
    # a commit with no snapshot yet is indexed here: the face says so, as a read that indexes does
    fresh = load_stored_record(store, gitread.resolve_rev(repo, rev)) is None
    with announced(path, rev) if fresh else nullcontext() as progress:
        report = index(repo_path, rev, store=store, workers=workers, progress=progress)
    snap = load_snapshot(store, repo_path, rev)
    if snap.oid != report.oid:  # the rev moved between indexing and reading: take what was indexed
        snap = load_snapshot(store, repo_path, report.oid)
    with WriteLock(store.home):
        ws = load(store, name)
        existing = next((m for m in ws.members if m.repo_id == repo_id), None)
        chosen = _member_name(ws, repo_id, path, member_name)
        record = MemberRecord(name=chosen, path=path, repo_id=repo_id, remote_url=_remote_url(repo), rev=rev,
                              oid=snap.oid, fingerprint=snap.fingerprint,
                              extractor_version=snap.record.extractor_version, indexed_at=snap.indexed_at,
                              added_at=_now())
        ws.members = sorted([m for m in ws.members if m.repo_id != repo_id] + [record], key=lambda m: m.name)
        ws.edges = cross_edges(store, ws.members)
        _save(store, ws)
    return AddOutcome(ws, record, existing is not None, report.parsed_blobs, report.reused_blobs)


def _member_name(ws: WorkspaceRecord, repo_id: str, path: str, member_name: str | None) -> str:
    """The name the repository `repo_id` at `path` takes as a member of `ws`: `member_name`, else
    the one it has there already, else its folder's; `already_exists` when another member has it."""
    existing = next((m for m in ws.members if m.repo_id == repo_id), None)
    chosen = member_name or (existing.name if existing else _default_member_name(path))
    clash = next((m for m in ws.members if m.name == chosen and m.repo_id != repo_id), None)
    if clash is not None:
        fix = (f"remove it first (`rennet workspace remove {ws.name} {chosen}`), or name this one otherwise with "
               "--member" if member_name is not None else "pass --member to name this one")
        raise WorkspaceExists(f"workspace {ws.name!r} has a member named {chosen!r} already ({clash.path}); {fix}")
    return chosen


@dataclass(frozen=True)
class Synced:
    moved: list[tuple[str, str, str]]  # (member, old oid, new oid) of each member re-pinned
    left: list[tuple[str, MemberFreshness]]  # each member whose rev or repository is gone, and why


def sync(store, name: str, workers: int | None = None) -> Synced:
    """Re-pin every stale member to what its rev resolves to now (indexing as needed). A member
    whose rev or repository is gone (`unknown`) cannot be: it is left as it is, and named with
    its reason, which says how it is added again."""
    moved, left = [], []
    for m in load(store, name).members:
        fresh = freshness(m, None, member_advice(name, member=m.name))  # whether it moved: what its snapshot lacks is moot
        if fresh.status == "stale":
            out = add(store, name, m.path, m.rev, m.name, workers=workers)
            moved.append((m.name, m.oid, out.member.oid))
        elif fresh.status == "unknown":
            left.append((m.name, fresh))
    return Synced(moved, left)


def remove(store, name: str, repo: str) -> tuple[WorkspaceRecord, MemberRecord]:
    """Drop a member, named by member name or by repository path. Its snapshot stays in the store."""
    from indexer.store.database import WriteLock

    with WriteLock(store.home):
        ws = load(store, name)
        gone = _find_member(ws, repo)
        ws.members = [m for m in ws.members if m.repo_id != gone.repo_id]
        ws.edges = cross_edges(store, ws.members)
        _save(store, ws)
    return ws, gone


def _find_member(ws: WorkspaceRecord, repo: str) -> MemberRecord:
    for m in ws.members:
        if m.name == repo:
            return m
    real = os.path.realpath(repo)
    repo_id = None
    try:
        from indexer.git import read as gitread
        handle = gitread.open_repo(repo)
        repo_id = gitread.repo_identity(handle)
    except RennetError:
        pass  # a member whose repository is gone can still be removed by its recorded path
    for m in ws.members:
        if m.repo_id == repo_id or m.path == real:
            return m
    raise NotFound(f"{repo!r} is not a member of workspace {ws.name!r} "
                   f"(members: {', '.join(m.name for m in ws.members) or 'none'})")


def _default_member_name(path: str) -> str:
    base = os.path.basename(path.rstrip("/")) or "repo"
    if base.endswith(".git") and len(base) > 4:
        base = base[:-4]
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", base).lstrip("._-")[:64]
    return cleaned or "repo"


# The user info of a URL's authority: a CI checkout's remote often carries a token there
# (`https://gitlab-ci-token:TOKEN@host/...`), and the URL is stored, shown and put in bundles.
_USER_INFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")


def _remote_url(repo) -> str | None:
    """The URL of origin (or the first remote), without any user info."""
    try:
        remotes = list(repo.remotes)
    except Exception:  # a broken config must not stop a member being recorded
        return None
    by_name = {r.name: r for r in remotes}
    chosen = by_name.get("origin") or (remotes[0] if remotes else None)
    return _USER_INFO.sub(r"\1", chosen.url) if chosen is not None and chosen.url else None


# --- freshness and overview ------------------------------------------------------------------

def member_advice(workspace: str, agent: bool = False, member: str = "MEMBER") -> Advice:
    """What a member's reason tells its reader to do: a workspace reads each member at its pin,
    never from its working tree, so the pin is what moves. An agent (`agent`) has no tool that
    moves a pin: it is told that the user does, and how. A member whose rev or repository is gone
    is added again: removed first, since a repository moved away is another repository to the
    workspace, and its member's name is taken until then."""
    again = (f"`rennet workspace remove {workspace} {member}`, then `rennet workspace add {workspace} PATH --rev REV "
             f"--member {member}` from where its repository is now, at a rev that resolves")
    return Advice(moved=repin_advice(workspace, agent), dirty="",
                  partial=("no agent tool adds it again: the user fetches them and runs `rennet workspace add` for "
                           "a complete snapshot") if agent else
                  "fetch them and `rennet workspace add` it again for a complete snapshot",
                  gone=f"no agent tool re-adds a member: the user runs {again}" if agent else f"add it again: {again}")


def repin_advice(workspace: str, agent: bool = False) -> str:
    """How a workspace's moved members are re-pinned, said to the user or to an agent."""
    if agent:
        return f"no agent tool re-pins a member: the user runs `rennet workspace sync {workspace}`"
    return f"run `rennet workspace sync {workspace}` to re-pin"


def freshness(member: Member | MemberRecord, store, advice: Advice) -> MemberFreshness:
    """What the member's pinned snapshot is to its repository now, by the rule every answer read
    from it follows (`indexer.contract.standing`): `unknown`, `stale`, `dirty` when its checkout
    is on the pinned commit and its working tree differs, `partial` when the pinned snapshot
    lists blobs the object database lacked, else `current`; `unknown` too when the repository
    cannot be read. `advice` (`member_advice`) ends the reason. With `store` None the pinned
    snapshot is not read (it could not be, or only a move is asked), so what it lacks is not told."""
    from indexer.git import read as gitread
    from indexer.git.worktree import changed_on, in_progress

    try:
        repo = gitread.open_repo(member.path)
    except RennetError as exc:
        return MemberFreshness("unknown", None, f"repository not readable at {member.path} ({exc.code})"
                               + (f"; {advice.gone}" if advice.gone else ""))
    try:
        current: str | None = gitread.resolve_rev(repo, member.rev)
    except RennetError:  # the rev no longer resolves: the rule says `unknown`
        current = None
    now = standing(member.rev, member.oid, current, lambda: changed_on(repo, member.oid),
                   lambda: _missing(store, member), advice, lambda: member.oid in repo,
                   underway=lambda: in_progress(repo),
                   lazy=lambda: gitread.partial_clone(repo))
    return MemberFreshness(now.status, current, now.reason)


def _missing(store, member: Member | MemberRecord) -> int:
    """How many blobs the member's pinned snapshot lists as missing (0 when it is not in the store)."""
    from indexer.store.records import load_stored_record, missing_in

    if store is None:
        return 0
    stored = load_stored_record(store, member.oid, member.extractor_version)
    return missing_in(stored.lazy_head()) if stored is not None else 0


def _record_of(store, member: Member | MemberRecord):
    from indexer.store.records import load_record

    return load_record(store, member.oid, member.extractor_version)


def member_snapshot(store, member: Member | MemberRecord):
    """The member's pinned snapshot (by OID, not by the rev's current pin), for reading across members.
    Raises NotIndexed when the snapshot is no longer in the store."""
    from indexer.contract.errors import NotIndexed
    from indexer.store.snapshot import open_at

    snap = open_at(store, member.path, member.oid, member.rev, member.indexed_at)
    if snap is None:
        raise NotIndexed(f"snapshot {member.oid[:12]} of member {member.name!r} is not in the store; "
                         f"`rennet workspace add` it again")
    return snap


def overview(store, name: str, refused: Callable[[str], str | None] | None = None,
             agent: bool = False) -> WorkspaceOverview:
    """Each member's status, and the edges between members. A member whose path `refused`
    gives a reason for (an agent face's roots leave it out) is not read, neither its repository
    nor its snapshot: `unknown`, saying why, and the edges naming it are left out. `agent`: the
    reasons' advice is said to an agent (`member_advice`)."""
    ws = load(store, name)
    statuses = []
    hidden: set[str] = set()
    for m in ws.members:
        why = refused(m.path) if refused is not None else None
        if why is not None:
            hidden.add(m.name)
            statuses.append(MemberStatus(_member(m), MemberFreshness("unknown", None, f"member not read: {why}"),
                                         None, [], read=False))
            continue
        record = _record_of(store, m)
        fresh = freshness(m, store, member_advice(ws.name, agent, m.name))
        if record is None and fresh.status != "unknown":
            fresh = MemberFreshness("unknown", fresh.current_oid,
                                    f"pinned snapshot {m.oid[:12]} is not in the store; add the member again")
        packages = sorted({f"{p.ecosystem}:{p.name}" for p in record.packages}) if record else []
        statuses.append(MemberStatus(_member(m), fresh, len(record.files) if record else None, packages))
    edges = [e for e in ws.edges if e.source not in hidden and e.target not in hidden]
    return WorkspaceOverview(ws.name, ws.created_at, ws.updated_at, statuses, edges)


workspace_overview = overview  # the name the context tools import


# --- cross-repository edges ------------------------------------------------------------------

def _norm(ecosystem: str, name: str) -> str:
    if ecosystem == "pypi":  # PEP 503
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "cargo":  # Cargo treats - and _ alike in crate names
        return name.replace("-", "_").lower()
    return name


def _js_package(spec: str) -> str | None:
    if not spec or spec.startswith((".", "/")) or ":" in spec.split("/")[0]:
        return None  # relative, absolute, or a scheme ("node:fs")
    parts = spec.split("/")
    if spec.startswith("@"):
        return "/".join(parts[:2]) if len(parts) >= 2 else None
    return parts[0]


def provided_packages(packages: Iterable, paths: Iterable[str] = ()) -> dict[tuple[str, str], tuple[str, str]]:
    """(ecosystem, normalized name) -> (declared name, manifest), first manifest wins; then each
    top-level Python package among `paths` (`python_packages`) that no declared distribution
    names, by its import name, its `__init__.py` standing for the manifest."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for p in sorted(packages, key=lambda p: (p.manifest, p.name)):
        if p.name:
            out.setdefault((p.ecosystem, _norm(p.ecosystem, p.name)), (p.name, p.manifest))
    for name, init in python_packages(paths):
        out.setdefault(("pypi", _norm("pypi", name)), (name, init))
    return out


# A top-level package at the repository's top folder or under `src/`, where a distribution's
# packages sit; a test suite's folder is no package the distribution installs.
_TOP_PACKAGE = re.compile(r"^(?:src/)?([A-Za-z_][A-Za-z0-9_]*)/__init__\.py$")
_TEST_FOLDERS = frozenset({"test", "tests", "testing"})


def python_packages(paths: Iterable[str]) -> list[tuple[str, str]]:
    """(import name, its `__init__.py`) of each top-level Python package among `paths`. A Python
    import names a package, not a distribution, and a setup.py may compute its distribution's
    name at run time (`name=about["__title__"]`), which no manifest reader can tell."""
    out = []
    for path in paths:
        found = _TOP_PACKAGE.match(path)
        if found is not None and found.group(1) not in _TEST_FOLDERS:
            out.append((found.group(1), path))
    return out


def import_targets(u) -> list[tuple[str, str]]:
    """(ecosystem, normalized package name) candidates an external import may name."""
    spec = u.spec.strip()
    if u.kind == "python":
        top = spec.split(".")[0]
        return [("pypi", _norm("pypi", top))] if top else []
    if u.kind == "js":
        name = _js_package(spec)
        return [("npm", name)] if name else []
    if u.kind == "rust_use":
        first = spec.split("::")[0].lstrip(":")
        return [("cargo", _norm("cargo", first))] if first and first not in ("crate", "self", "super", "std", "core") else []
    if u.kind == "go":
        # every prefix of the path could be a module path; the longest declared one wins (below)
        parts = spec.split("/")
        return [("go", "/".join(parts[:i])) for i in range(len(parts), 0, -1)]
    return []


def cross_edges(store, member_records: list[MemberRecord]) -> list[CrossEdge]:
    """Edges between members: a package one declares, depended on or imported by another."""
    records = {m.name: _record_of(store, m) for m in member_records}
    providers: dict[tuple[str, str], list[tuple[str, str, str]]] = {}  # key -> [(member, name, manifest)]
    for member, record in sorted(records.items()):
        if record is None:
            continue
        for key, (declared, manifest) in provided_packages(record.packages, (f.path for f in record.files)).items():
            providers.setdefault(key, []).append((member, declared, manifest))

    found: dict[tuple[str, str, str, str], dict] = {}

    def note(source: str, key: tuple[str, str], kind: str, ev: Evidence) -> bool:
        hit = False
        for target, declared, manifest in providers.get(key, ()):
            if target == source:
                continue
            slot = found.setdefault((source, target, key[0], declared),
                                    {"manifest": manifest, "kinds": set(), "evidence": set()})
            slot["kinds"].add(kind)
            slot["evidence"].add(ev)
            hit = True
        return hit

    for member, record in sorted(records.items()):
        if record is None:
            continue
        for d in record.dependencies:
            note(member, (d.ecosystem, _norm(d.ecosystem, d.name)), "dependency", Evidence(d.manifest, 0, d.spec))
        for u in record.unresolved:
            if u.status != "external":
                continue
            for key in import_targets(u):
                if note(member, key, "import", Evidence(u.path, u.line, u.spec)):
                    break  # the longest Go module path claims the import
    edges = []
    for (source, target, ecosystem, package), slot in sorted(found.items()):
        evidence = sorted(slot["evidence"], key=lambda e: (e.path, e.line, e.spec))
        edges.append(CrossEdge(source=source, target=target, ecosystem=ecosystem, package=package,
                               manifest=slot["manifest"], kinds=tuple(sorted(slot["kinds"])),
                               count=len(evidence), evidence=tuple(evidence[:EVIDENCE_CAP])))
    return edges
