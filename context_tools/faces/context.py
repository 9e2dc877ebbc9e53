"""What a handler gets besides its input: the store (opened lazily), the surface, the
ceiling, the row's caps, and the page helper bound to this call."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TypeVar

from context_tools.faces.registry import Command
from indexer.contract.result import Page

T = TypeVar("T")


def default_home(explicit: str | os.PathLike | None = None) -> Path:
    """`--store DIR`, else `$RENNET_HOME`, else `~/.rennet` (the store's own rule)."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    env = os.environ.get("RENNET_HOME")
    if env:
        return Path(env).expanduser().absolute()
    return Path("~/.rennet").expanduser()


class Memo:
    """A bounded least-recently-used cache: a long-lived face (the MCP server) serving many
    repositories and revs keeps only the most recent snapshots and derived tables."""

    def __init__(self, limit: int = 64) -> None:
        from collections import OrderedDict

        self.limit = limit
        self._items: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        return default

    def __setitem__(self, key: Any, value: Any) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class StoreHandle:
    """One store home for a face's lifetime; the LMDB store opens on first use only, so a
    command that never touches it (or fails input validation) costs nothing."""

    def __init__(self, home: str | os.PathLike | None = None) -> None:
        self.home = default_home(home)
        self._store: Any = None
        self.memo = Memo()  # caches handlers keep between calls (snapshots, name tables)
        self.ledger_writer: Any = None  # the face's receipt writer, flushed before the ledger is read

    @property
    def opened(self) -> bool:
        return self._store is not None

    @property
    def store(self) -> Any:
        if self._store is None:
            self._store = _shared_store(self.home)
        return self._store


_OPEN: dict[Path, Any] = {}


def _shared_store(home: Path) -> Any:
    """LMDB lets a process open an environment once, so every handle on a home shares it."""
    store = _OPEN.get(home)
    if store is None:
        from indexer.store.database import Store  # not indexer.api: that pulls in the whole indexer

        store = _OPEN[home] = Store.open(home)
    return store


@dataclass
class CallContext:
    command: Command
    surface: str  # "cli" | "mcp" | "python"
    handle: StoreHandle
    input_digest: str  # of the input without its cursor: binds cursors to the query
    ceiling: int | None = None  # bytes, for agent-facing replies; None = no ceiling
    input: Any = None  # the decoded input
    extras: dict[str, Any] = field(default_factory=dict)
    roots: Any = None  # context_tools.faces.roots.Roots on an agent face, else None

    @property
    def may_index(self) -> bool:
        """May this call index a revision it reads? A write row may; a read row may on the
        faces the machine's own user drives (CLI, Python), never on an agent face, where its
        tool is annotated read-only and must not write."""
        return self.command.authority == "write" or self.roots is None

    @property
    def store(self) -> Any:
        return self.handle.store

    @property
    def home(self) -> Path:
        return self.handle.home

    def cap(self, name: str, default: int | None = None) -> int:
        value = self.command.caps.get(name, default)
        if value is None:
            raise KeyError(f"{self.command.id} declares no cap {name!r}")
        return value

    def page(self, items: Sequence[T], *, cap: str, limit: int | None, cursor: str | None,
             binding: str, offset: int = 0) -> tuple[list[T], Page]:
        """Cut one page of `items`: at most min(limit, cap) starting where `cursor` points.
        `binding` is the snapshot fingerprint (or another identity of the data read)."""
        from context_tools.faces.pages import cut_page

        return cut_page(items, size=min(limit or self.cap(cap), self.cap(cap)), cursor=cursor,
                        command=self.command.id, input_digest=self.input_digest, binding=binding,
                        offset=offset)

    def cursor_offset(self, cursor: str | None, binding: str) -> int:
        """Where a cursor of this query points (0 without one); `bad_cursor` if it is not ours."""
        from context_tools.faces.pages import decode_cursor

        if not cursor:
            return 0
        return decode_cursor(cursor, command=self.command.id, input_digest=self.input_digest, binding=binding)

    def cursor_at(self, offset: int, binding: str) -> str:
        from context_tools.faces.pages import encode_cursor

        return encode_cursor(offset, command=self.command.id, input_digest=self.input_digest, binding=binding)

    def first_page_of(self, items: Sequence[T], *, size: int, query: Any, binding: str) -> tuple[list[T], Page]:
        """The first `size` items, with a cursor valid for `query` (another input of this command,
        e.g. the same call narrowed to one section), so an embedded collection can be paged too."""
        from context_tools.faces.pages import cut_page, input_digest

        return cut_page(items, size=size, cursor=None, command=self.command.id,
                        input_digest=input_digest(query), binding=binding)
