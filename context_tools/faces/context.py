"""What a handler gets besides its input: the store (opened lazily), the surface, the
ceiling, the row's caps, and the page helper bound to this call."""

from __future__ import annotations

import os
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Hashable, Sequence, TypeVar

import msgspec

from context_tools.faces.errors import BadCursor
from context_tools.faces.registry import Command
from indexer.contract.memory_limit import start_thread
from indexer.contract.result import Page

if TYPE_CHECKING:
    from msgspec import Struct

    from context_tools.faces.ledger import Writer
    from context_tools.faces.roots import Roots
    from indexer.store.database import Store

T = TypeVar("T")
WORKTREE_READ = "worktree_read"  # the key of `CallContext.extras` set when a call read a working tree


def default_home(explicit: str | os.PathLike | None = None) -> Path:
    """`--store DIR`, else `$RENNET_HOME`, else `~/.rennet` (the store's own rule)."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    env = os.environ.get("RENNET_HOME")
    if env:
        return Path(env).expanduser().absolute()
    return Path("~/.rennet").expanduser()


DEFAULT_CACHE_BYTES = 512 * 1024 * 1024


MAX_CACHE_BYTES = 1 << 40


def cache_budget(explicit: str | int | None = None) -> int:
    """The answer cache's byte budget: `--cache-bytes`, else `$RENNET_CACHE_BYTES`, else 512 MiB.
    A size (`indexer.contract.sizes`: bytes, or with a k, M or G suffix in powers of 1024)."""
    from indexer.contract.sizes import configured_size

    return configured_size(explicit, option="--cache-bytes", variable="RENNET_CACHE_BYTES",
                           default=DEFAULT_CACHE_BYTES, low=0, high=MAX_CACHE_BYTES)


class Memo:
    """A least-recently-used cache of what handlers keep between calls (snapshots, name tables,
    ranks), bounded in bytes: a long-lived face serving many repositories and revs keeps only
    the most recent. Values grow while they are used (a snapshot fills its own caches), so each
    is weighed again when the call that touched it settles (`settle`), and the least recently
    used are dropped until the whole fits the budget; one value larger than the budget is not
    kept at all, and pushes out no other. Safe to use from several threads."""

    def __init__(self, limit: int = 64, budget: int | None = None) -> None:
        from collections import OrderedDict

        self.limit = limit
        self.budget = cache_budget() if budget is None else budget
        # values of every kind a handler keeps: each caller knows what it stored under its own key
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._weights: dict[Hashable, int] = {}
        self._touched: set[Hashable] = set()
        self._touches: dict[Hashable, int] = {}
        self._lock = threading.RLock()
        self._due = threading.Event()
        self._settler: threading.Thread | None = None

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self._touched.add(key)
                return self._items[key]
            return default

    def __setitem__(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            self._weights.setdefault(key, 0)
            self._touches.pop(key, None)  # a new value: weighed afresh
            self._touched.add(key)
            while len(self._items) > self.limit:
                self._drop_oldest()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        return sum(self._weights.values())

    def settle(self) -> None:
        """Weigh what was touched since the last settle, then evict to the budget."""
        from context_tools.faces.weigh import approx_bytes

        with self._lock:
            touched, self._touched = self._touched, set()
            due = []
            for key in touched:
                count = self._touches[key] = self._touches.get(key, 0) + 1
                if count & (count - 1) == 0:  # the 1st, 2nd, 4th, 8th... touch: growth is caught, warm calls stay cheap
                    due.append(key)
            values = {k: self._items[k] for k in due if k in self._items}
        weights = {k: approx_bytes(v) for k, v in values.items()}  # outside the lock: other calls go on
        with self._lock:
            for key, weight in weights.items():
                if self._items.get(key) is values[key]:
                    self._weights[key] = weight
                    if weight > self.budget:  # kept, it would push out every other value, then go itself
                        self._drop(key)
            while self._items and sum(self._weights.values()) > self.budget:
                self._drop_oldest()

    def settle_soon(self) -> None:
        """`settle` on a thread of the cache's own, soon: a face that answers many calls sends
        a reply without waiting while what its call touched is weighed (a snapshot that has
        served many tools takes a tenth of a second). Calls in a row are settled together. The
        thread holds the cache only while it settles it, and ends once the cache is let go."""
        with self._lock:
            if self._settler is None:
                settler = threading.Thread(target=_settle_when_due, args=(weakref.ref(self), self._due),
                                           name="rennet-settle", daemon=True)
                try:
                    start_thread(settler)
                except RuntimeError:  # no room for it (a `ulimit -v`): the call is answered, a later one tries again
                    return
                self._settler = settler
                weakref.finalize(self, self._due.set)  # the thread wakes to find the cache gone, and ends
        self._due.set()

    def _drop_oldest(self) -> None:
        self._drop(next(iter(self._items)))

    def _drop(self, key: Hashable) -> None:
        del self._items[key]
        self._weights.pop(key, None)
        self._touches.pop(key, None)
        self._touched.discard(key)


def _settle_when_due(memo: weakref.ref[Memo], due: threading.Event) -> None:
    """A cache's settler (`Memo.settle_soon`): a thread that held the cache for good kept it, and
    every snapshot it holds, for the process's life after its face was let go."""
    while True:
        due.wait()
        due.clear()
        held = memo()
        if held is None:
            return
        try:
            held.settle()
        except Exception:  # what was left unweighed is weighed when next due: the loop goes on
            pass
        del held


def holds_store(home: Path) -> bool:
    """Does `home` hold a store (its LMDB data file), rather than nothing yet?"""
    return (home / "lmdb" / "data.mdb").is_file()


class StoreHandle:
    """One store home for a face's lifetime; the LMDB store opens on first use only, so a
    command that never touches it (or fails input validation) costs nothing.

    `named`: the user named the home on the command line (`--store DIR`). A read never makes
    a store there, since a folder holding none is most likely a mistyped path, and an empty
    store made there would answer as if nothing were indexed; a write makes it, in a folder
    whose parent exists. The default home (`$RENNET_HOME`, `~/.rennet`) is made by any call,
    so a first run reads and indexes at once."""

    def __init__(self, home: str | os.PathLike | None = None, cache_bytes: int | None = None,
                 named: bool = False) -> None:
        self.home = default_home(home)
        self.named = named and bool(home)
        self._store: Store | None = None
        self._lock = threading.Lock()
        self.memo = Memo(budget=cache_bytes)  # caches handlers keep between calls (snapshots, name tables)
        self.ledger_writer: Writer | None = None  # the face's receipt writer, flushed before the ledger is read

    @property
    def opened(self) -> bool:
        return self._store is not None

    @property
    def store(self) -> Store:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = _shared_store(self.home)
        return self._store

    def store_for(self, writes: bool, agent: bool = False) -> Store:
        """The store, for a call that `writes` or only reads: a named home holding no store is
        `not_indexed` to a read and made by a write, once its parent folder is there. The
        refusal says what its reader can do (`agent`: a client of the MCP face, which has tools
        and no say in the server's `--store`)."""
        if self._store is None and self.named and not holds_store(self.home):
            from indexer.contract.errors import BadInput, NotIndexed

            if not writes:
                if agent:
                    raise NotIndexed(f"no store at {self.home} (the server's --store): nothing was ever indexed "
                                     "there; call the `repo_index` tool to index a repository into it (its first "
                                     "index makes the store)")
                raise NotIndexed(f"no store at {self.home} (--store): nothing was ever indexed there; "
                                 f"{_stores_instead(self.home)}; `rennet index` with this --store makes one")
            if not self.home.parent.is_dir():
                raise BadInput(f"--store {self.home}: the folder it is in does not exist; create it (`mkdir -p`) "
                               f"to make the store there; {_default_store(self.home)}")
        return self.store

    def store_if_any(self) -> Store | None:
        """The store, or None where a named home holds none yet: what a call's receipt is
        written to, never the reason a store is made."""
        if self._store is None and self.named and not holds_store(self.home):
            return None
        return self.store


# Folders beside a mistyped --store looked at for stores, and how many are named
_BESIDE_LOOKED = 256
_BESIDE_NAMED = 5


def _stores_instead(home: Path) -> str:
    """The stores a mistyped `--store home` may have meant: the folders beside it that hold one
    (the first few of a bounded look, in name order), and the default store."""
    beside: list[str] = []
    try:
        with os.scandir(home.parent) as entries:
            names = sorted(e.name for _, e in zip(range(_BESIDE_LOOKED), entries))
    except OSError:  # the folder is not there, or not readable: nothing beside it to name
        names = []
    for name in names:
        if name != home.name and holds_store(home.parent / name):
            beside.append(name)
            if len(beside) == _BESIDE_NAMED:
                break
    told = (f"beside it, {', '.join(beside)} hold{'s' if len(beside) == 1 else ''} a store" if beside else
            "no folder beside it holds a store")
    default = _default_store(home)
    return f"{told}; {default}" if default else told


def _default_store(home: Path) -> str:
    """The default store, where `--store home` names another, and whether it holds one."""
    default = default_home()
    if default == home:
        return ""
    return f"the default store (without --store) is {default}{'' if holds_store(default) else ', empty'}"


_OPEN: dict[Path, Store] = {}
_OPENING = threading.Lock()


def _shared_store(home: Path) -> Store:
    """LMDB lets a process open an environment once, so every handle on a home shares it."""
    with _OPENING:
        store = _OPEN.get(home)
        if store is None:
            from indexer.store.database import Store  # not indexer.api: that pulls in the whole indexer

            store = _OPEN[home] = Store.open(home)
        return store


class CallContext(msgspec.Struct):
    command: Command
    surface: str  # "cli" | "mcp" | "python"
    handle: StoreHandle
    input_digest: str  # of the input without its cursor: binds cursors to the query
    ceiling: int | None = None  # bytes, for agent-facing replies; None = no ceiling
    input: Struct | None = None  # the decoded input
    extras: dict[str, object] = msgspec.field(default_factory=dict)
    roots: Roots | None = None  # on an agent face, else None
    declared: tuple[str, ...] = ()  # folders the agent's client declared, served beside `roots`
    worktree: bool = False  # the face reads working trees by default (`rennet mcp --worktree`)

    @property
    def may_index(self) -> bool:
        """May this call index a revision it reads? A write row may; a read row may on the
        faces the machine's own user drives (CLI, Python), never on an agent face, where its
        tool is annotated read-only and must not write."""
        return self.command.authority == "write" or self.roots is None

    @property
    def may_snapshot_worktree(self) -> bool:
        """May this call write a working-tree snapshot? Where it may index, and on an agent face
        started with `--worktree`, whose tools are then annotated as writing."""
        return self.may_index or self.worktree

    @property
    def store(self) -> Store:
        return self.handle.store_for(writes=self.command.authority == "write", agent=self.roots is not None)

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
        from context_tools.faces.pages import OtherSnapshot, cut_page

        try:
            return cut_page(items, size=min(limit or self.cap(cap), self.cap(cap)), cursor=cursor,
                            command=self.command.id, input_digest=self.input_digest, binding=binding,
                            offset=offset)
        except OtherSnapshot as exc:
            raise self._moved_on(exc) from None

    def cursor_offset(self, cursor: str | None, binding: str) -> int:
        """Where a cursor of this query points (0 without one); `bad_cursor` if it is not ours."""
        from context_tools.faces.pages import OtherSnapshot, decode_cursor

        if not cursor:
            return 0
        try:
            return decode_cursor(cursor, command=self.command.id, input_digest=self.input_digest, binding=binding)
        except OtherSnapshot as exc:
            raise self._moved_on(exc) from None

    def _moved_on(self, exc: BadCursor) -> BadCursor:
        """A cursor of another snapshot than the one this call read: what changed in between, in
        the words of what the call read, so its caller knows the pages it was on are gone and
        that the query, asked again without the cursor, reads what is there now. A call that
        read the working tree hears of an edit, the likely cause; one that read a rev, that the
        rev was indexed again."""
        fields = self.input.__struct_fields__ if self.input is not None else ()
        if not self.extras.get(WORKTREE_READ):
            workspace = getattr(self.input, "workspace", None)
            if workspace:
                return BadCursor(f"cursor was issued for another snapshot: a member of workspace {workspace!r} was "
                                 f"pinned to another snapshot since the page it came from, and this call read the "
                                 f"members as they are now; the pages the cursor was for are gone: repeat the query "
                                 f"without a cursor to page what they hold now")
            if "rev" not in fields:
                return exc
            rev = getattr(self.input, "rev", None) or "HEAD"
            return BadCursor(f"cursor was issued for another snapshot: {rev} was indexed again since the page it "
                             f"came from (it names another commit now, or its snapshot was replaced), and this call "
                             f"read the snapshot {rev} names now; the pages the cursor was for are gone: repeat the "
                             f"query without a cursor to page what it holds now")
        return BadCursor("cursor was issued for another snapshot: the working tree changed since the page it came "
                         "from (an edit, a checkout), and this call read it as it is now; repeat the query without "
                         "a cursor to page what it holds now")

    def cursor_at(self, offset: int, binding: str) -> str:
        from context_tools.faces.pages import encode_cursor

        return encode_cursor(offset, command=self.command.id, input_digest=self.input_digest, binding=binding)

    def first_page_of(self, items: Sequence[T], *, size: int, query: Struct, binding: str) -> tuple[list[T], Page]:
        """The first `size` items, with a cursor valid for `query` (another input of this command,
        e.g. the same call narrowed to one section), so an embedded collection can be paged too."""
        from context_tools.faces.pages import cut_page, input_digest

        return cut_page(items, size=size, cursor=None, command=self.command.id,
                        input_digest=input_digest(query), binding=binding)
