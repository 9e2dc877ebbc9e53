"""The one executor behind every face: decode the input, check availability, run the
handler, serialize the result contract, apply the ceiling, write the receipt."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping

import msgspec

from context_tools.faces.context import CallContext, StoreHandle
from context_tools.faces.errors import InternalError, Unavailable
from context_tools.faces.pages import input_digest
from context_tools.faces.registry import Command, Registry, registry
from context_tools.faces.roots import Roots
from indexer.contract.decode import JSON_MAX_DEPTH, nested_deeper
from indexer.contract.encode import encode_json
from indexer.contract.errors import BadInput, RennetError, SnapshotLeft
from indexer.contract.memory_limit import (  # loaded at start: a fault of memory leaves no room to load them
    give_back,
    let_go,
    memory_fault,
)
from indexer.contract.result import Result, error_envelope, ok_envelope


class Reply(msgspec.Struct):
    command: str
    envelope: dict[str, Any]  # the complete result contract
    wire: dict[str, Any]  # what the face sends: the envelope, or the spill envelope over the ceiling
    result: Result | None = None
    error: RennetError | None = None
    spill_path: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


def decode_input(row: Command, raw: object, shown: Callable[[], Iterable[str]] | None = None) -> msgspec.Struct:
    """Input from any face into the row's Struct; anything off-schema is `bad_input`. A field the
    row does not take is refused naming those it does (`shown`: the face's, default every field),
    so a caller that guessed a name (`symbol` for `name`) sees the right one in the refusal."""
    if isinstance(raw, row.input):
        return raw
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadInput(f"{row.id}: input must be a JSON object, got {type(raw).__name__}")
    if nested_deeper(raw, JSON_MAX_DEPTH):  # whatever decoded it: the checks below recurse
        raise BadInput(f"{row.id}: input is nested more than {JSON_MAX_DEPTH} levels deep")
    found = _unfit_string(raw, "$")
    if found is not None:
        where, why = found
        raise BadInput(f"{row.id}: {why} - at `{where}`")
    try:
        return msgspec.convert(raw, row.input, strict=True)
    except msgspec.ValidationError as exc:
        message = _said_plainly(str(exc))
        if message.startswith("Object contains unknown field") and " - at `" not in message:
            fields = shown() if shown is not None else row.input.__struct_fields__
            message += f"; it takes: {', '.join(fields)}"
        raise BadInput(f"{row.id}: {message}") from None


def _said_plainly(message: str) -> str:
    """msgspec's message, with a size field's pattern said in words."""
    from indexer.contract.sizes import SIZE_PATTERN, SPELLING

    return message.replace(f"Expected `str` matching regex {SIZE_PATTERN!r}", f"not a size: give {SPELLING}")


# an input naming any of these chose what to read: the face's working-tree default stays out
_CHOSEN = ("worktree", "rev", "head", "workspace")


def worktree_default(row: Command, raw: object) -> object:
    """`raw` with `worktree: true` where the row takes it and the caller chose no rev, head,
    workspace or worktree of its own (a face serving an agent in its checkout)."""
    if not isinstance(raw, dict) or "worktree" not in row.input.__struct_fields__:
        return raw
    if any(raw.get(name) is not None for name in _CHOSEN):
        return raw
    return {**raw, "worktree": True}


def _unfit_string(value: object, where: str) -> tuple[str, str] | None:
    """(where, why) of the first string in decoded JSON that no path, rev, name or store key
    can hold, or None: a lone surrogate (`"\\ud800"` is valid JSON, but no UTF-8 encoder takes
    it) or a NUL (`"\\u0000"`: the OS and libgit2 read a string only up to it)."""
    if isinstance(value, str):
        if "\x00" in value:
            return where, "a string holds a NUL character"
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
            return None
        except UnicodeEncodeError:
            return where, "a string is not valid Unicode (a lone surrogate escape)"
    if isinstance(value, dict):
        for key, item in value.items():
            found = _unfit_string(key, where) or _unfit_string(item, f"{where}.{key}")
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _unfit_string(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None


Settle = Literal["now", "later", "never"]


class Executor:
    """One face's executor: a surface, a store handle and (for agent faces) a ceiling."""

    def __init__(self, surface: str, store: str | None = None, ceiling: int | None = None,
                 table: Registry | None = None, receipts: bool = True, roots: Roots | None = None,
                 cache_bytes: int | None = None, worktree: bool = False, settle: Settle = "now",
                 named: bool = False) -> None:
        self.surface = surface
        # When what a call left in the answer cache is weighed: "now", before the reply (a
        # Python caller's next call finds the cache within budget); "later", beside the next
        # calls (a server's reply does not wait on it); "never" for a face that answers one
        # call and exits (the CLI), whose cache no later call reads.
        self.settle = settle
        self.worktree = worktree  # `rennet mcp --worktree`: commands that read a rev read the working tree
        self.roots = roots  # an agent face serves only paths under these (None: the user's own face)
        # `named`: `store` is what the user typed as --store (a read never makes a store there)
        self.handle = StoreHandle(store, cache_bytes=cache_bytes, named=named)
        self.ceiling = ceiling
        self._table = table
        self.receipts = receipts
        from context_tools.faces.ledger import Writer

        # In process, receipts are batched so a warm call pays no disk sync; other faces write each.
        self.ledger = Writer(self.handle, batched=surface == "python")
        self.handle.ledger_writer = self.ledger

    @property
    def table(self) -> Registry:
        return self._table if self._table is not None else registry()

    def run(self, command_id: str, raw_input: object = None, extras: dict[str, object] | None = None,
            client_roots: Iterable[str] = ()) -> Reply:
        """Run one command. `extras` carries face-level settings a handler may read (the CLI's `json`);
        `client_roots` are folders the client declared, which narrow the face's own roots."""
        started = time.perf_counter()
        digest = ""
        try:
            row = self.table.get(command_id)
            unavailable = row.availability(self.surface)
            if unavailable is not None:
                raise unavailable
            handler = row.handler
            if handler is None:  # a row runnable on a surface has one (registry validation)
                raise InternalError(f"{command_id} has no handler")
            if self.worktree:
                raw_input = worktree_default(row, raw_input)
            value = decode_input(row, raw_input, self._shown(row))
            declared = tuple(client_roots)
            if self.roots is not None:
                self.roots.check(command_id, value, declared)
            digest = input_digest(value)
            ctx = CallContext(command=row, surface=self.surface, handle=self.handle,
                              input_digest=digest, ceiling=self.ceiling, input=value, extras=dict(extras or {}),
                              roots=self.roots, declared=declared, worktree=self.worktree)
            try:
                result = handler(value, ctx)
            except SnapshotLeft:
                if row.authority != "read":
                    raise
                # the snapshot was dropped or replaced as the call read it: a read asked again
                # opens what its rev names now (a kept snapshot no longer stored is not served)
                result = handler(value, ctx)
            if not isinstance(result, Result):
                raise InternalError(f"{command_id} handler returned {type(result).__name__}, not a Result")
            envelope = ok_envelope(command_id, result)
            if self.ceiling is not None and row.authority == "read":
                result, envelope = _page_within(self.ceiling, command_id, handler, value, ctx, result, envelope)
            reply = Reply(command_id, envelope, envelope, result=result)
        except RennetError as exc:
            let_go(exc)  # what the call built, its failure's frames hold no more: room to type it
            reply = self._failure(command_id, exc)
        except Exception as exc:  # never a traceback to a user: one typed line
            if _debug():
                import traceback

                traceback.print_exc(file=sys.stderr)
            let_go(exc)
            reply = self._failure(command_id, _typed(exc, self.handle.home))
        if reply.error is not None and reply.error.code == "out_of_memory":
            give_back()  # the failure let go of: what the call built goes back before the next call
        if self.settle == "now":  # what the call left in the cache is weighed, the cache kept to its budget
            self.handle.memo.settle()
        elif self.settle == "later":
            self.handle.memo.settle_soon()
        if reply.ok and self.ceiling is not None:
            try:
                self._apply_ceiling(reply, self.ceiling)
            except RennetError as exc:  # the spill could not be written: the caller hears why, typed
                reply = self._failure(command_id, exc)
        if self.receipts:
            self._receipt(reply, digest, time.perf_counter() - started)
        return reply

    def _shown(self, row: Command) -> Callable[[], Iterable[str]] | None:
        """The fields a refusal names: an agent's, those its tool's input schema lists (none it
        would be refused, `forbidden`); the user's own faces, every field."""
        if self.roots is None:
            return None
        return lambda: list(row.agent_schema(self.worktree)["properties"])

    def _failure(self, command_id: str, exc: RennetError) -> Reply:
        extra: dict[str, object] = {}
        if isinstance(exc, Unavailable):
            extra = {"reason": exc.reason, "available_on": list(exc.available_on)}
        from context_tools.faces.sanitize import sanitize_line  # only failures pay for its patterns

        message = sanitize_line(exc.message, 400)
        if self.roots is not None and exc.code == "not_a_repository":
            from indexer.git.read import RUN_INSIDE

            message = message.removesuffix(RUN_INSIDE)
            message += (" - pass `repo`: the path of a Git repository on the server's machine, under one of "
                        f"its roots ({self.roots.describe()})")
        envelope = error_envelope(command_id, exc.code, message, **extra)
        if self.ceiling is not None:
            envelope = error_within(envelope, self.ceiling)
        return Reply(command_id, envelope, envelope, error=exc)

    def _apply_ceiling(self, reply: Reply, ceiling: int) -> None:
        wire = encode_json(reply.envelope)
        if len(wire) <= ceiling:
            return
        from context_tools.faces.spill import spill

        try:
            reply.wire = spill(wire, command=reply.command, home=self.handle.home, ceiling=ceiling)
        except OSError as exc:
            raise _spill_error(exc, self.handle.home) from None
        where = reply.wire["path"]
        reply.spill_path = where if isinstance(where, str) else ""  # the receipt stores a blank for none

    def _receipt(self, reply: Reply, digest: str, seconds: float) -> None:
        from context_tools.faces import ledger

        fresh = reply.result.freshness if reply.result is not None else None
        page = reply.result.page if reply.result is not None else None
        receipt = ledger.Receipt(
            at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            command=reply.command, surface=self.surface, input_digest=digest,
            outcome=reply.error.code if reply.error is not None else "ok",
            repo=fresh.repo if fresh else "", oid=fresh.pinned_oid if fresh else "",
            fingerprint=fresh.fingerprint if fresh and isinstance(fresh.fingerprint, str) else "",
            total=page.total if page else None, returned=page.returned if page else None,
            truncated=page.truncated if page else None, spill=reply.spill_path,
            duration_ms=round(seconds * 1000, 3),
            message="" if reply.ok else reply.envelope["error"]["message"])
        try:
            self.ledger.append(receipt)
        except Exception as exc:  # a ledger that cannot be written must not eat the answer
            if reply.error is not None and (reply.error.code in _STORE_CODES or str(exc) == str(reply.error)):
                return  # the store's own error (or the same one) says it all, on its one line
            from context_tools.faces.sanitize import sanitize_line
            from indexer.store.database import fault

            # a full disk says so, in the store's words; the store's open typed it already
            typed = exc if isinstance(exc, RennetError) else fault(exc, self.handle.home)
            if typed is not None and reply.error is not None and typed.code == reply.error.code:
                return  # the command met the same fault (the store's map, no room under the limit)
            print(f"rennet: receipt not recorded: {sanitize_line(str(typed or exc))}", file=sys.stderr)


# A paged reply over the ceiling is asked again for fewer items at most this many times
# before its whole page spills.
PAGE_TRIES = 6


def _page_within(ceiling: int, command_id: str, handler: Callable[[Any, CallContext], Result],
                 value: msgspec.Struct, ctx: CallContext, result: Result,
                 envelope: dict[str, Any]) -> tuple[Result, dict[str, Any]]:
    """A read's reply whose page passes the ceiling, read again with a smaller `limit` until it
    fits: a page an agent reads in its reply, with the cursor to the next, serves it better
    than a file it must open. `limit` is no part of the query a cursor is bound to, so the
    shorter page's cursor pages on as any. The Repo Map's page is its `budget` of bytes: it is
    read again with a budget of the bytes its files took less what the reply passed the ceiling
    by, its cursor bound to the query as asked (`ctx.input_digest`), so the agent passes it back
    with its own budget.
    Where even one item passes the ceiling (or the read fails the second time), the whole first
    page spills as before."""
    page = result.page
    fields = value.__struct_fields__
    if page is None or page.returned <= 1 or not ("limit" in fields or "budget" in fields):
        return result, envelope
    size = len(encode_json(envelope))
    if size <= ceiling:
        return result, envelope
    seen = [(page.returned, size)]
    by_bytes, last = "limit" not in fields, result.data
    for _ in range(PAGE_TRIES):
        if by_bytes:
            from context_tools.faces.packs.context import MAP_BUDGET

            budget = getattr(last, "bytes", 0) - (seen[-1][1] - ceiling)
            if budget < MAP_BUDGET[0]:
                break
            shorter = msgspec.structs.replace(value, budget=budget)
        else:
            shorter = msgspec.structs.replace(value, limit=_fewer(seen, ceiling))
        try:
            again = handler(shorter, msgspec.structs.replace(ctx, input=shorter))
        except RennetError:
            break
        if not isinstance(again, Result) or again.page is None:
            break
        wire = ok_envelope(command_id, again)
        size = len(encode_json(wire))
        if size <= ceiling:
            return again, wire
        if again.page.returned <= 1:
            break
        seen.append((again.page.returned, size))
        last = again.data
    return result, envelope


def _fewer(seen: list[tuple[int, int]], ceiling: int) -> int:
    """How many items to ask for next, from the (items, bytes) replies seen so far, each over
    the ceiling: at first in proportion, then along the line the last two draw, which counts
    the bytes every reply carries whatever its items."""
    count, size = seen[-1]
    guess = count * ceiling // size
    if len(seen) > 1:
        before, before_size = seen[-2]
        if before != count and before_size > size:
            per_item = (before_size - size) / (before - count)
            guess = count - math.ceil((size - ceiling) / per_item)
    return max(1, min(guess, count - 1))


def error_within(envelope: dict[str, Any], ceiling: int) -> dict[str, Any]:
    """An error envelope held to the reply ceiling: its message cut (then, for a tool no tool
    has, the name it echoes as its command), with `…`, until the whole fits. A message is short
    in characters, but it names what the client sent, a character of which JSON may spell in six
    bytes; an error is never spilled, since a client that cannot read files would lose its code."""
    if len(encode_json(envelope)) <= ceiling:
        return envelope
    error = envelope["error"] = dict(envelope["error"])
    for place, key in ((error, "message"), (envelope, "command")):
        text = place[key]
        kept, longest = 0, len(text)  # the longest beginning of the text that fits: found by halves
        while kept < longest:
            middle = (kept + longest + 1) // 2
            place[key] = text[:middle] + "…"
            if len(encode_json(envelope)) <= ceiling:
                kept = middle
            else:
                longest = middle - 1
        place[key] = text[:kept] + "…"
        if len(encode_json(envelope)) <= ceiling:
            break
    return envelope


def _spill_error(exc: OSError, home: Path) -> RennetError:
    """A spill that could not be written, named for what the user can do about it: a full disk
    is `store_full` (free space and retry), anything else the filesystem refused `store_error`."""
    import errno

    from indexer.contract.errors import StoreError

    why = exc.strerror or type(exc).__name__
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return StoreError(f"the reply is over the ceiling and its spill file cannot be written under {home}: "
                          f"{why}; free space and ask again, or narrow the query", code="store_full")
    return StoreError(f"the reply is over the ceiling and its spill file cannot be written under {home}: {why}")


_STORE_CODES = frozenset({"store_error", "store_full", "store_corrupt", "schema_mismatch"})


def _typed(exc: Exception, home: Path) -> RennetError:
    """An unexpected exception as a typed error: an environment fault is what
    `indexer.store.database.fault` names (a full disk `store_full`, a read-only file system
    `store_error`); a store whose pages or records do not read back (LMDB's MDB_CORRUPTED,
    a record that does not decompress or decode) is `store_corrupt`;
    a key too long for LMDB is `bad_input` (made of a value given too long, which nothing
    checked first); memory the address-space limit (`ulimit -v`) refused is `out_of_memory`;
    anything else is our bug, `internal_error`. (Input and bundles are decoded where they
    enter, with their own codes: a msgspec error that reaches here read something stored.)"""
    import zlib

    import lmdb

    from indexer.contract.errors import BadInput, StoreError
    from indexer.contract.local_paths import folder_gone
    from indexer.store.database import fault

    what = f"{type(exc).__name__}: {exc}"
    if (typed := fault(exc, home)) is not None:
        return typed
    if (short := memory_fault(exc)) is not None:
        return short
    if (gone := folder_gone(exc)) is not None:
        return gone
    if isinstance(exc, lmdb.DiskError):
        return StoreError(f"store at {home} cannot be written ({what})")
    if isinstance(exc, lmdb.BadValsizeError):  # nothing read back wrong: a key was made of a value given too long
        return BadInput(f"a name or rev given is too long to be a key of the store (LMDB takes at most 511 bytes); "
                        f"its write was not committed ({what})")
    if isinstance(exc, (lmdb.Error, zlib.error, msgspec.DecodeError)):
        return StoreError(f"store at {home} is corrupt ({what}); move it aside and re-index", code="store_corrupt")
    return InternalError(what)


def _debug() -> bool:
    import os

    return bool(os.environ.get("RENNET_DEBUG"))


def encode_wire(payload: Mapping[str, object]) -> bytes:
    return encode_json(payload)
