"""context.file: one file at the pinned commit: metadata, symbol outline, a page of lines.

The imports, importers and outline are embedded collections: each shows its first page with
a cursor for the same call narrowed to it (`section`), which pages the rest.

Content is bounded whatever the file: a page holds at most the `lines` cap of lines and ends
early once its lines reach PAGE_BYTES serialized (the cursor goes on from there); a line
longer than LINE_CHARS characters is cut to them and its number listed in
`truncated_lines`. A file skipped as too large is paged the same way, never sent whole.
Under a reply ceiling (an agent's face) the embedded outline keeps what fits in half of it,
and the executor shortens the page of lines until the reply fits (`faces/dispatch.py`).

With `workspace`, the file of one member (`member`, or the only member holding the path),
read from its pinned snapshot; the freshness is that member's, tagged with it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence, TypeVar, overload

import msgspec
from msgspec import Struct

from context_tools.faces.pages import input_digest
from context_tools.query.pinned import open_pinned, snapshot_path, tree_path
from context_tools.query.sections import Section, fitting
from context_tools.query.workspace_scope import member_named, open_workspace, repo_of, rev_of, snapshot_of, workspace_of
from indexer.contract.encode import encode_json
from indexer.contract.errors import BadInput, NotFound
from indexer.contract.parse_errors import FileParseErrors, file_parse_errors
from indexer.contract.result import Freshness, Page, Result, Unknown
from indexer.git.read import READ_CAP
from indexer.model import NOT_TEXT

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import FileInput
    from indexer.model import FileEntry
    from indexer.store.snapshot import Snapshot

T = TypeVar("T")

LINE_CHARS = 2000  # characters of one line shown
PAGE_BYTES = 256 * 1024  # serialized bytes of the lines of one page, past which the page ends
_LINE_READ = 4 * LINE_CHARS + 4  # bytes of a line read: they decode to more than LINE_CHARS characters


class FileMeta(Struct, kw_only=True, omit_defaults=True):
    """A field that does not apply to the file (no mark, parsed, not a link) is absent."""

    path: str
    blob: str
    mode: str  # git mode in octal: 100644 100755 120000 160000
    size: int
    lines: int | Unknown
    language: str
    fan_in: int | Unknown
    imports: Section[str]  # files this one imports (resolved edges)
    importers: Section[str]  # files importing this one
    mark: str | None = None  # generated | vendored
    mark_rule: str | None = None  # the rule that set the mark
    skipped: str | None = None  # why the file was not parsed
    target: str | None = None  # a symlink's target path or a submodule's commit
    symbols_capped: bool = False  # present (true) when the outline was cut at extraction (nesting or count cap)
    # present when the file's parse had errors: where, and that its outline may be incomplete
    parse_errors: FileParseErrors | None = None


class OutlineItem(Struct, omit_defaults=True):
    name: str
    qualified: str
    kind: str
    line: int
    end_line: int
    signature: str
    condition: str = ""  # C/C++: the preprocessor conditions it is written under (Symbol.condition)


class Content(Struct):
    first_line: int
    last_line: int
    lines: list[str]
    truncated_lines: list[int] = msgspec.field(default_factory=list)  # numbers of the lines cut to LINE_CHARS


class FileView(Struct):
    meta: FileMeta
    outline: Section[OutlineItem] | Unknown
    content: Content | Unknown


class FileSection(Struct):
    """One page of one collection of the file (`section`)."""

    path: str
    section: str
    items: list


_LINE_SUFFIX = re.compile(r"(.+?):([0-9]{1,9})(?::[0-9]{1,9})?")

CAP_OF = {"imports": "neighbours", "importers": "neighbours", "outline": "outline"}


def _section_query(input: FileInput, name: str) -> FileInput:
    """What a page of the collection `name` is bound to: the file (repository, rev, workspace,
    member, path) and the section. The options of the whole-file call (`start_line`, `outline`,
    `content`) do not change a section, so a cursor embedded in any call of the file pages the
    section however the section call sets them."""
    return msgspec.structs.replace(input, path=tree_path(input.path), section=name, cursor=None, limit=None,
                                   start_line=1, outline=True, content=True)


def _embedded(ctx: CallContext, input: FileInput, name: str, items: Sequence[T], binding: str) -> Section[T]:
    """The first page of a collection, its cursor valid for the same call with `section=name`.
    Under a reply ceiling the outline keeps the items that fit in half of it (at least one), so
    that the file's lines have room beside it and the reply is read, not spilled."""
    query = _section_query(input, name)
    size = ctx.cap(CAP_OF[name])
    if ctx.ceiling is not None and name == "outline":
        size = fitting(items[:size], ctx.ceiling // 2)
    chunk, page = ctx.first_page_of(items, size=size, query=query, binding=binding)
    return Section(items=chunk, total=page.total, returned=page.returned, truncated=page.truncated,
                   cursor=page.cursor)


def file_view(input: FileInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _member_file(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    return _view(input, ctx, snap, fresh)


class MemberFileView(FileView, kw_only=True):
    """A file of one workspace member; freshness is that member's."""

    workspace: str
    member: str


def _member_file(input: FileInput, ctx: CallContext, name: str) -> Result:
    """The file of the named member; without `member`, of the one member whose pinned snapshot has
    the path (bad_input when several have it)."""
    scope = open_workspace(ctx, name)
    path = tree_path(input.path)
    if input.member is not None:
        chosen = member_named(scope, input.member)
    else:
        holders = [m for m in scope.readable if m.snap.file(path) is not None]
        if len(holders) > 1:
            unread = [m for m in scope.members if m.snap is None]
            raise BadInput(f"{path} is in members {', '.join(m.member.name for m in holders)} of workspace "
                           f"{name!r}: pass `member`" + (" (not read, so not looked in: " + ", ".join(
                               f"{m.member.name} ({m.error.code if m.error else m.freshness.status})" for m in unread)
                               + ")" if unread else ""))
        if not holders:
            raise NotFound(f"{path} is not a file of any member of workspace {name!r} (members: {scope.names()})")
        chosen = holders[0]
    result = _view(input, ctx, snapshot_of(chosen), chosen.freshness)
    if isinstance(result.data, FileSection):  # a page of one collection: the freshness names the member
        return result
    result.data = MemberFileView(**msgspec.structs.asdict(result.data), workspace=name, member=chosen.member.name)
    return result


def _view(input: FileInput, ctx: CallContext, snap: Snapshot, fresh: Freshness) -> Result:
    path = snapshot_path(snap, input.path)
    f = snap.file(path)
    if f is None:
        base = path.rsplit("/", 1)[-1]
        folder = path.rstrip("/") + "/"
        inside = [e.path for e in snap.files if e.path.startswith(folder)]
        if inside:  # an agent asking for a folder learns it is one, and what to ask for instead
            hint = f"; it is a folder holding {len(inside)} file{'' if len(inside) == 1 else 's'}: {', '.join(inside[:5])}" + (
                ", ..." if len(inside) > 5 else "")
        else:
            # the sixth says there are more, as a folder's hint does
            near = [e.path for e in snap.files if e.path.rsplit("/", 1)[-1] == base][:6]
            hint = f"; files with that name: {', '.join(near[:5])}" + (", ..." if len(near) > 5 else "") if near else ""
        at = _LINE_SUFFIX.fullmatch(path)
        if at and snap.file(at[1]) is not None:  # `app.py:120`, as compilers and grep name a line
            hint = f"; {at[1]} is a file: pass `start_line: {at[2]}` for that line"
        if input.path.startswith("/"):  # an absolute path outside the checkout read
            hint += f"; a path is relative to the top folder of the repository {snap.repo_path}"
        raise NotFound(f"{path} is not a file of {_snapshot_named(snap)}{hint}")
    textual = f.lines >= 0 and f.language not in NOT_TEXT
    # a blob over what indexing reads (gitread.READ_CAP) was listed unread: its lines are not known
    unread = f.lines < 0 and f.skipped == "too_large" and f.language not in NOT_TEXT
    no_lines = Unknown("not_assessed", f"not read: the blob holds {f.size:,} bytes, over the {READ_CAP:,} read "
                       f"of one file") if unread else Unknown("not_applicable", f"a {f.language} entry has no lines")
    neighbours = {"imports": sorted({e.target for e in snap.imports(f.path)}),
                  "importers": sorted({e.source for e in snap.importers(f.path)})}
    if input.section is not None:
        items = _outline(snap, f) if input.section == "outline" else neighbours[input.section]
        if isinstance(items, Unknown):
            raise BadInput(f"{f.path} has no outline to page: {items.reason}")
        bound = msgspec.structs.replace(ctx, input_digest=input_digest(_section_query(input, input.section)))
        chunk, section_page = bound.page(items, cap=CAP_OF[input.section], limit=input.limit, cursor=input.cursor,
                                         binding=snap.fingerprint)
        return Result(FileSection(f.path, input.section, chunk), freshness=fresh, page=section_page)
    meta = FileMeta(
        path=f.path, blob=f.blob, mode=format(f.mode, "o"), size=f.size,
        lines=f.lines if textual else no_lines,
        language=f.language, mark=f.mark or None, mark_rule=f.mark_rule or None, skipped=f.skipped or None,
        target=f.target or None,
        fan_in=(snap.fan_in(f.path) or 0) if textual or unread else Unknown("not_applicable", f"a {f.language} entry is not imported"),
        imports=_embedded(ctx, input, "imports", neighbours["imports"], snap.fingerprint),
        importers=_embedded(ctx, input, "importers", neighbours["importers"], snap.fingerprint),
        symbols_capped=_symbols_capped(snap, f),
        parse_errors=file_parse_errors(snap.core_facts(f.path), "the file", "its outline") if not f.skipped else None)
    outline: Section[OutlineItem] | Unknown = Unknown("not_recorded", "outline not requested")
    if input.outline and input.cursor:
        # a page after the first carries no outline: it was on the first, and paging a file's
        # lines should not send it again with every page
        outline = Unknown("not_recorded", "the outline is on the first page; page it with `section: outline`")
    elif input.outline:
        found = _outline(snap, f)
        outline = found if isinstance(found, Unknown) else _embedded(ctx, input, "outline", found, snap.fingerprint)
    content: Content | Unknown = Unknown("not_recorded", "content not requested")
    page: Page | None = None
    if input.content:
        if unread:
            content = no_lines
        elif not textual:
            # its target is `meta.target`: a reason is a message, drawn sanitized, and a target a name
            content = Unknown("not_applicable", f"a {f.language} entry has no text lines"
                              + (" (its target is the file's `target`)" if f.target else ""))
        else:
            lines = BlobLines(snap.blob_bytes(f.path))
            if input.start_line > max(len(lines), 1):
                raise BadInput(f"{f.path} has {len(lines)} lines; start_line {input.start_line} is past the end")
            items, page = ctx.page(lines, cap="lines", limit=input.limit, cursor=input.cursor,
                                   binding=snap.fingerprint, offset=input.start_line - 1)
            first = _first_line(input, ctx, snap)
            items, page = _within_bytes(items, page, first, ctx, snap.fingerprint)
            cut = [first + i for i, line in enumerate(items) if len(line) > LINE_CHARS]
            content = Content(first_line=first, last_line=first + len(items) - 1,
                              lines=[line[:LINE_CHARS] for line in items], truncated_lines=cut)
    return Result(FileView(meta, outline, content), freshness=fresh, page=page)


def _snapshot_named(snap: Snapshot) -> str:
    """A commit's snapshot as "snapshot OID"; a working tree's as `Snapshot.named` says it."""
    from indexer.git.worktree import WORKTREE

    return snap.named if snap.rev == WORKTREE else f"snapshot {snap.named}"


def _outline(snap: Snapshot, f: FileEntry) -> list[OutlineItem] | Unknown:
    facts = snap.core_facts(f.path)
    if facts is None or f.skipped:
        reason = f"not parsed: {f.skipped}" if f.skipped else f"a {f.language} entry has no symbols"
        return Unknown("not_applicable", reason)
    symbols = sorted(facts.symbols, key=lambda s: (s.line, s.start_byte))
    return [OutlineItem(s.name, s.qualified, s.kind, s.line, s.end_line, s.signature, s.condition) for s in symbols]


def _symbols_capped(snap: Snapshot, f: FileEntry) -> bool:
    facts = snap.core_facts(f.path) if not f.skipped else None
    return bool(facts is not None and facts.symbols_capped)


def _within_bytes(items: list[str], page: Page, first: int, ctx: CallContext, binding: str) -> tuple[list[str], Page]:
    """The page's lines up to PAGE_BYTES serialized (at least one line); a page cut here gets the
    cursor of the line after its last."""
    size = 0
    for i, line in enumerate(items):
        size += len(encode_json(line[:LINE_CHARS])) + 1
        if size > PAGE_BYTES and i > 0:
            end = first - 1 + i  # 0-based index of the first line left out
            cursor = ctx.cursor_at(end, binding)
            return items[:i], Page(total=page.total, returned=i, truncated=True, cursor=cursor)
    return items, page


class BlobLines(Sequence[str]):
    """The lines of a blob as `text_lines` makes them, decoded a slice at a time: a page of a
    huge file costs the lines it shows (and a scan for where they start), not a decode and a
    list of the whole blob. A line is read whole from the blob only up to what is shown."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        # not `count`: that is Sequence's method, which this would hide
        self.total = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        self._at = (0, 0)  # (line index, byte offset) of the last slice's start: paging goes forward

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, key: int) -> str: ...

    @overload
    def __getitem__(self, key: slice) -> list[str]: ...

    def __getitem__(self, key: int | slice) -> str | list[str]:
        if not isinstance(key, slice):
            index = key + self.total if key < 0 else key
            if not 0 <= index < self.total:
                raise IndexError(key)
            return self[index:index + 1][0]
        start, stop, _ = key.indices(self.total)
        if start >= stop:
            return []
        pos = self._offset(start)
        out: list[str] = []
        for _ in range(max(stop - start, 0)):
            end = self.data.find(b"\n", pos)
            end = len(self.data) if end < 0 else end
            whole = end - pos <= _LINE_READ
            line = self.data[pos:end if whole else pos + _LINE_READ].decode("utf-8", "replace")
            out.append(line[:-1] if whole and line.endswith("\r") else line)
            pos = end + 1
        return out

    def _offset(self, index: int) -> int:
        line, pos = self._at if self._at[0] <= index else (0, 0)
        while line < index:
            pos = self.data.index(b"\n", pos) + 1
            line += 1
        self._at = (index, pos)
        return pos


def text_lines(data: bytes) -> list[str]:
    """Lines as git counts them: split on \n only (str.splitlines would also split on form
    feeds and Unicode separators and shift every line number after them)."""
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _first_line(input: FileInput, ctx: CallContext, snap: Snapshot) -> int:
    return (ctx.cursor_offset(input.cursor, snap.fingerprint) if input.cursor else input.start_line - 1) + 1
