"""Registry pack of store management: `rennet store info`, `list`, `unpin` and `gc`.

The logic lives in `indexer/store/inventory.py` (what is held and by what),
`indexer/store/unpin.py` (letting go of a repository's pins) and `indexer/store/gc.py`
(dropping the rest, in one write transaction under the write lock).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import msgspec

from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Result

if TYPE_CHECKING:
    import pygit2


class InfoInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class ListInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(min_length=1, description="only snapshots this repository indexed or pins (default: all)")] | None = None
    unheld: Annotated[bool, msgspec.Meta(description="only snapshots nothing holds (what gc drops)")] = False
    limit: Annotated[int, msgspec.Meta(ge=1, le=200, description="snapshots per page (at most 200)")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class GcInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    dry_run: Annotated[bool, msgspec.Meta(description="only say what would be freed; change nothing")] = False


class UnpinInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(min_length=1, description="the repository's folder (one since deleted or "
                                      "replaced: the folder it was indexed from)")]
    revs: Annotated[list[str], msgspec.Meta(description="the pinned revs to let go, as `store list` shows them")] = []
    all: Annotated[bool, msgspec.Meta(description="every rev pin of the repository and its working-tree "
                                      "snapshots' list")] = False
    dry_run: Annotated[bool, msgspec.Meta(description="only say what would be let go; change nothing")] = False


class UnpinnedRev(msgspec.Struct):
    rev: str
    oid: str


class UnpinData(msgspec.Struct):
    dry_run: bool
    repo_ids: list[str]  # the store's identities of the repository (two where a folder held two in turn)
    unpinned: list[UnpinnedRev]
    worktree_snapshots: int  # working-tree snapshots its list held (with `all`)


class RepoRef(msgspec.Struct):
    id: str  # the store's identity of the repository (a digest of its git folder's real path)
    path: str | None  # where a workspace member, else its last index, else the newest receipt says it lives; None: unknown
    # whether the repository at `path` holds the snapshot's commit now: False where its history was
    # rewritten and pruned, or the folder holds another repository; None where none could be read
    # there, or the snapshot is a working tree's, of no commit (`holds_tree` then)
    holds_commit: bool | None = None
    # a working-tree snapshot's: whether the repository at `path` still holds the tree it read (git
    # writes it unreferenced, and `git gc` prunes it after its grace); None as above, or of a commit
    holds_tree: bool | None = None


class SnapshotRow(msgspec.Struct):
    oid: str
    extractor_version: str
    current_version: bool  # read by this rennet; other versions only by a workspace that pinned them
    fingerprint: str
    indexed_at: str
    age_seconds: int | None
    files: int
    bytes: int
    repos: list[RepoRef]
    pinned_by: list[str]  # "rev main of <repo id>", "workspace member ws/app"; empty: gc drops it
    worktree: bool = False  # a working-tree snapshot: its OID is a tree read from a checkout, no commit's


class SnapshotList(msgspec.Struct):
    snapshots: list[SnapshotRow]


class GcData(msgspec.Struct):
    dry_run: bool
    snapshots: int
    dropped: list[str]  # OID|extractor version of each snapshot dropped
    kept_snapshots: int
    facts: int
    kept_facts: int
    occurrences: int
    name_rows: int
    names: int
    stamps: int
    bytes: int
    repo_paths: int  # repositories whose kept path went with their last snapshot


def _age(indexed_at: str, now: datetime) -> int | None:
    try:
        at = datetime.strptime(indexed_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return max(0, int((now - at).total_seconds()))


def info_handler(input: InfoInput, ctx) -> Result:
    from indexer.store.inventory import info

    return Result(data=info(ctx.store))


def list_handler(input: ListInput, ctx) -> Result:
    import hashlib

    from indexer.store.inventory import inventory
    from indexer.store.versions import snapshot_version

    store = ctx.store
    with store.env.begin() as txn:
        inv = inventory(store, txn)
    wanted = None
    if input.repo is not None:
        from indexer.git import read as gitread

        wanted = gitread.repo_identity(gitread.open_repo(input.repo))
    now = datetime.now(UTC)
    seen = _paths_seen(ctx)
    rows = []
    for s in inv.snapshots:
        ids = sorted(set(s.repos) | {h.repo_id for h in s.held_by})
        if len(ids) == 1 and ids[0] not in inv.repo_paths and s.oid in seen:
            inv.repo_paths[ids[0]] = seen[s.oid]
        if wanted is not None and wanted not in ids:
            continue
        if input.unheld and s.held:
            continue
        rows.append(SnapshotRow(s.oid, s.extractor_version, s.extractor_version == snapshot_version(), s.fingerprint,
                                s.indexed_at, _age(s.indexed_at, now), s.files, s.bytes,
                                [RepoRef(i, inv.repo_paths.get(i)) for i in ids],
                                [h.describe() for h in s.held_by], s.worktree))
    binding = hashlib.sha256("\n".join(f"{r.oid}|{r.extractor_version}" for r in rows).encode()).hexdigest()
    items, page = ctx.page(rows, cap="snapshots", limit=input.limit, cursor=input.cursor, binding=binding)
    _look_in_repositories(items)
    return Result(data=SnapshotList(items), page=page)


def _look_in_repositories(rows: list[SnapshotRow]) -> None:
    """Set each repository's `holds_commit` on a page's rows: the store names a repository by
    its folder's path, and another repository may be there now (each is opened once)."""
    from indexer.contract.errors import RennetError
    from indexer.git import read as gitread

    opened: dict[str, pygit2.Repository | None] = {}
    for row in rows:
        for ref in row.repos:
            if ref.path is None:
                continue
            if ref.path not in opened:
                try:
                    found = gitread.open_repo(ref.path)
                    opened[ref.path] = found if gitread.repo_identity(found) == ref.id else None
                except RennetError:
                    opened[ref.path] = None
            repo = opened[ref.path]
            if repo is None:
                continue
            if row.worktree:
                ref.holds_tree = row.oid in repo
            else:
                ref.holds_commit = row.oid in repo


def _paths_seen(ctx) -> dict[str, str]:
    """Commit OID -> the repository path the newest receipt naming it answered for: where a
    repository is only known by the store's identity of it, the ledger says where it was."""
    from context_tools.faces import ledger

    out: dict[str, str] = {}
    for r in ledger.receipts(ctx.store):  # oldest first: the newest wins
        if r.oid and r.repo:
            out[r.oid] = r.repo
    return out


def gc_handler(input: GcInput, ctx) -> Result:
    from indexer.store.gc import collect

    # nothing to collect where no store is: a named folder holding none is not made for it
    plan = collect(ctx.handle.store_for(writes=False), dry_run=input.dry_run)
    return Result(data=GcData(input.dry_run, len(plan.snapshots), [s.key.decode() for s in plan.snapshots],
                              plan.kept_snapshots, plan.facts, plan.kept_facts, plan.occurrences, plan.name_rows,
                              plan.names, plan.stamps, plan.bytes, plan.paths))


def unpin_handler(input: UnpinInput, ctx) -> Result:
    from indexer.contract.errors import BadInput, NotFound
    from indexer.store.unpin import repo_ids_at, unpin

    if input.all == bool(input.revs):
        raise BadInput("name the revs to unpin, or pass --all for every one of the repository's (not both)")
    store = ctx.handle.store_for(writes=False)  # nothing to unpin where no store is
    ids = repo_ids_at(store, input.repo)
    if not ids:
        raise NotFound(f"{input.repo} is no git repository, and the store indexed none from that folder "
                       "(`rennet store list` names the folders it knows)")
    done = unpin(store, ids, list(input.revs), input.all, dry_run=input.dry_run)
    return Result(data=UnpinData(input.dry_run, done.repo_ids, [UnpinnedRev(r, o) for r, o in done.revs],
                                 done.worktree_snapshots))


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _ago(seconds: int | None) -> str:
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def render_info(result: Result) -> str:
    from context_tools.faces.sanitize import drawn_lines, shown_own

    d = result.data
    return drawn_lines([
        f"store {shown_own(d.path)}",
        f"  schema {d.schema}  extractor version {d.extractor_version}",
        f"  size {_size(d.file_bytes)} on disk, {_size(d.used_bytes)} in use (freed pages are reused; the file never shrinks)",
        f"  repositories {d.repositories}  rev pins {d.pins}  workspaces {d.workspaces}",
        f"  snapshots {d.snapshots} ({d.held_snapshots} held, {d.snapshots - d.held_snapshots} unheld: "
        f"`rennet store gc` drops them)",
        f"  blob facts {d.blob_facts}  defined names {d.names}  dossiers {d.dossiers}  receipts {d.receipts}"])


def render_list(result: Result) -> str:
    from context_tools.faces.render import footer
    from context_tools.faces.sanitize import shown_own
    from context_tools.faces.tables import table

    rows = []
    for s in result.data.snapshots:
        # a repository there that lacks the commit said first: the table cuts a long path's end
        repos = ", ".join(_lacking(s, r) + shown_own(r.path or r.id, 120) for r in s.repos) or "-"
        # the full snapshot version names every language's: --json has it; here, whether it is this code's
        version = "current" if s.current_version else "other"
        paths = {r.id: r.path for r in s.repos if r.path}
        held = "; ".join(_holder(h, paths) for h in s.pinned_by) or "nothing (gc drops it)"
        rows.append([s.oid[:12], s.fingerprint[:12] or "?", _ago(s.age_seconds), s.files, _size(s.bytes), version,
                     repos, held])
    head = ["OID", "fingerprint", "indexed", "files", "size", "version", "repositories", "pinned by"]
    return "\n".join([table(head, rows, right=("files", "size"), drawn=("repositories", "pinned by"))
                      if rows else "no snapshots"] + footer(result))


def _lacking(row: SnapshotRow, repo: RepoRef) -> str:
    """What the repository lacks of the row's snapshot, said before its path: a commit's, or the
    tree a working-tree snapshot read, which git prunes once unreferenced past its grace."""
    if row.worktree:
        return "working tree, " + ("its tree not in " if repo.holds_tree is False else "of ")
    return "commit not in " if repo.holds_commit is False else ""


def _holder(held: str, paths: dict[str, str]) -> str:
    """What holds a snapshot (`Holder.describe`), its rev shown as a name: a rev may be typed
    with spacing (`main@{2 days ago}`). The repository is shown by the path the row names it
    by, where it has one, as the repositories column shows it; else by the store's digest."""
    from context_tools.faces.sanitize import sanitize_line, shown_own

    rev, of, repo_id = held.removeprefix("rev ").rpartition(" of ")
    if held.startswith("rev ") and of:
        where = shown_own(paths[repo_id], 120) if repo_id in paths else sanitize_line(repo_id, 120)
        return f"rev {shown_own(rev, 120)} of {where}"
    repo_id, space, which = held.removeprefix("working tree of ").partition(" ")
    if held.startswith("working tree of ") and space and repo_id in paths:  # "(newest)", "(2 back)"
        return f"working tree of {shown_own(paths[repo_id], 120)} {sanitize_line(which, 20)}"
    return sanitize_line(held, 120)


def render_unpin(result: Result) -> str:
    from context_tools.faces.sanitize import shown_lines

    d = result.data
    verb = "would unpin" if d.dry_run else "unpinned"
    lines = [f"{verb} rev {u.rev} ({u.oid[:12]})" for u in d.unpinned]
    if d.worktree_snapshots:
        lines.append(f"{verb} the list of {d.worktree_snapshots} working-tree snapshots")
    if not lines:
        lines.append("nothing was pinned")
    lines.append("the snapshots stay until `rennet store gc` finds nothing else holds them")
    return shown_lines(lines)


def render_gc(result: Result) -> str:
    from context_tools.faces.sanitize import shown_lines

    d = result.data
    verb = "would free" if d.dry_run else "freed"
    lines = [f"{verb} {_size(d.bytes)}: {d.snapshots} snapshots, {d.facts} blob facts "
             f"({d.occurrences} occurrence lists), {d.name_rows} name-index rows, {d.names} names, "
             f"{d.stamps} indexed stamps" + (f", {d.repo_paths} repository paths" if d.repo_paths else ""),
             f"kept {d.kept_snapshots} snapshots and {d.kept_facts} blob facts that a pin or workspace holds"]
    lines += [f"  {'would drop' if d.dry_run else 'dropped'} snapshot {k.replace('|', ' (extractor ')})"
              for k in d.dropped]
    if d.dry_run and d.snapshots + d.facts:
        lines.append("run `rennet store gc` without --dry-run to free it")
    return shown_lines(lines)


_CLI = Exposure(cli=True, agent=False)
_SURFACES = ("cli", "python")

ROWS = (
    Command(
        id="store.info", output=('indexer.store.inventory:StoreInfo',),
        examples=("rennet store info", "rennet store info --json"),
        summary="Where the store is, its schema and size, and how many repositories, snapshots and blob facts it holds.",
        input=InfoInput, handler=info_handler, authority="read", exposure=_CLI, surfaces=_SURFACES,
        cli=CliShape(path=("store", "info")), render=render_info,
    ),
    Command(
        id="store.list", output=('context_tools.faces.packs.store:SnapshotList',),
        examples=("rennet store list", "rennet store list --unheld --json"),
        summary="Snapshots in the store, newest first: repository, OID, fingerprint, age and what pins each.",
        input=ListInput, handler=list_handler, authority="read", exposure=_CLI, surfaces=_SURFACES,
        caps={"snapshots": 50}, cli=CliShape(path=("store", "list")), render=render_list,
    ),
    Command(
        id="store.unpin", output=('context_tools.faces.packs.store:UnpinData',),
        examples=("rennet store unpin . HEAD~1", "rennet store unpin . --all --dry-run"),
        summary="Let go of a repository's rev pins, so that `store gc` may drop the snapshots nothing else holds.",
        description="A pin is written by each index of a rev and replaced by the next one, so a rev indexed once (a "
                    "tag, a commit a batch's range pinned by its OID, a deleted branch) holds its snapshot until it "
                    "is unpinned. One write transaction; a rev named that is not pinned is not_found, and nothing "
                    "is let go. --all also lets go of the repository's working-tree snapshots.",
        input=UnpinInput, handler=unpin_handler, authority="write", exposure=_CLI, surfaces=_SURFACES,
        destructive=True, cli=CliShape(path=("store", "unpin"), positional=("repo", "revs")), render=render_unpin,
    ),
    Command(
        id="store.gc", output=('context_tools.faces.packs.store:GcData',),
        examples=("rennet store gc --dry-run", "rennet store gc --json"),
        summary="Drop snapshots no rev pin or workspace holds, and blob facts no kept snapshot uses.",
        description="One write transaction under the write lock: a gc killed at any point leaves the store as "
                    "it was. --dry-run says what it would free and changes nothing.",
        input=GcInput, handler=gc_handler, authority="write", exposure=_CLI, surfaces=_SURFACES,
        cli=CliShape(path=("store", "gc")), render=render_gc,
    ),
)
