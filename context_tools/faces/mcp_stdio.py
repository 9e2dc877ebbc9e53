"""The stdio transport of the MCP face: newline-delimited JSON-RPC on stdin/stdout.

The SDK's own stdio transport hands a line it cannot parse to the server as an exception,
which answers nothing, and its JSON parser gives up on deep nesting: the client then waits
forever. Here every line gets an answer. A line over MAX_LINE_BYTES or nested deeper than
MAX_DEPTH or holding over MAX_CONTAINERS arrays and objects is an Invalid Request (-32600),
text that is not JSON a Parse error (-32700), JSON that is not a JSON-RPC message an Invalid
Request; each error reply carries the request's id when one can be read, else null. Depth and
containers are counted by a linear scan (`Shape`) before any parser sees the line.

At most `in_flight.MAX_REQUESTS` requests (and `MAX_BYTES` of them) are handed to the server
unanswered. Past that a request waits in a small room of its own (`ROOM_REQUESTS`,
`ROOM_BYTES`), handed over in order as answers go out, while the reader reads on: an answer the
client owes the server (its roots) or a cancel that frees a place is not held behind it. Once
that room is full too the reader waits for answers to go out before it reads on, so a client
that never reads its answers holds the server to bounded memory.

Stdin is read, and stdout written, each on one daemon thread the transport starts once
(`_Lane`), a line read only when the transport asks for the next: no message needs a thread
of its own, and nothing is read ahead of what the bounds above allow. Before the server is built,
`mcp_start.Start` reads and answers the session's opening on a thread of its own; it holds at
most the one line it did not answer, which the transport takes first, after the opening lines the
SDK must see.

While serving, fd 0 reads the null device and fd 1 writes to stderr, so a handler (or a
library it calls) can neither read the protocol's input nor write into its output.

Under a `ulimit -v`, a lack of memory met reading or answering one message is that message's
alone: a request the reader has no room to check, or whose answer has no room to be encoded, is
answered a JSON-RPC error typed `out_of_memory` (`memory_error_line`), made without the SDK's
encoder, and the server serves on; a notification with no room is dropped. Only where even that
answer finds no room does the server end, with the one `out_of_memory` line.
"""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, AsyncIterator, BinaryIO, Callable, TypeVar

from context_tools.faces.standard_streams import Waiting
from indexer.contract.errors import OutOfMemory
from indexer.contract.memory_limit import work_short_of_memory  # loaded at start: a fault's typing must not load it

if TYPE_CHECKING:  # the SDK loads with the server, not with this module
    import anyio
    from anyio.lowlevel import EventLoopToken
    from mcp.shared._context_streams import ContextSendStream
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCMessage, RequestId

    from context_tools.faces.mcp_start import Start

MAX_LINE_BYTES = 4 * 1024 * 1024  # as the HTTP face's body limit
MAX_DEPTH = 64  # no MCP request we serve nests deeper than a handful of levels
# Arrays and objects a message may hold: a tool's arguments hold a few lists of strings, and
# parsing millions of empty ones took seconds, twice over HTTP (the guard, then the SDK).
MAX_CONTAINERS = 65_536


PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR = -32700, -32600, -32603

T = TypeVar("T")


class Shape:
    """What a JSON text's brackets say, read before any parser sees it: its greatest nesting
    depth and how many arrays and objects it opens. Strings are skipped whole, so a bracket
    inside one never counts.

    Each byte is looked at by numpy, not by a Python loop: the guard of the HTTP face reads a
    body on the event loop every session shares, and a loop over the four million brackets a
    body may hold kept it from every other request for seconds."""

    def __init__(self, line: bytes) -> None:
        from indexer.rank import load_numpy

        # under a `ulimit -v` too small for it: `out_of_memory`, not OpenBLAS's own exit
        load_numpy("numpy's import, to read the client's messages")
        import numpy as np

        self._line = line
        text = np.frombuffer(line, dtype=np.uint8)
        quote = text == ord('"')
        backslash = text == ord("\\")
        if backslash.any():  # a quote after an odd run of backslashes is inside its string
            at = np.arange(len(text), dtype=np.int32)  # a message is at most MAX_LINE_BYTES
            run = at - np.maximum.accumulate(np.where(backslash, np.int32(-1), at))  # backslashes ending here
            quote[1:] &= run[:-1] % 2 == 0
        outside = np.cumsum(quote, dtype=np.int32) % 2 == 0  # the closing quote itself counts as outside: no bracket
        self._opens = ((text == ord("[")) | (text == ord("{"))) & outside
        self._closes = ((text == ord("]")) | (text == ord("}"))) & outside
        self._depth = np.cumsum(self._opens, dtype=np.int32)
        self._depth -= np.cumsum(self._closes, dtype=np.int32)
        self.deepest = max(0, int(self._depth.max())) if len(text) else 0
        self.containers = int(self._opens.sum())

    def shallow(self) -> bytes:
        """The text with every array and object nested below the top level emptied, so the
        request's id can be read however deep or wide its params go; b"" for a text whose
        brackets do not close."""
        import numpy as np

        # a value below the top level opens at depth 2 and closes back to depth 1; each that
        # opens is closed before the next opens
        starts = np.flatnonzero(self._opens & (self._depth == 2))
        ends = np.flatnonzero(self._closes & (self._depth == 1))
        if len(starts) != len(ends):  # an unclosed value: the text is not JSON anyway
            return b""
        cut = np.zeros(len(self._line) + 1, dtype=np.int32)
        np.add.at(cut, starts + 1, 1)
        np.add.at(cut, ends, -1)
        emptied = np.cumsum(cut[:-1], dtype=np.int32) > 0  # what lies between each value's brackets
        return np.frombuffer(self._line, dtype=np.uint8)[~emptied].tobytes()


def _id_of(doc: object) -> RequestId | None:
    if isinstance(doc, dict):
        rid = doc.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


def check_line(line: bytes) -> tuple[JSONRPCMessage, None] | tuple[None, tuple[RequestId | None, int, str]]:
    """(message, None) for a line the server should handle, or (None, (id, code, message))
    for the JSON-RPC error that answers it."""
    import mcp_types as types

    if len(line) > MAX_LINE_BYTES:
        return None, (head_id(line), INVALID_REQUEST, f"Invalid Request: message over {MAX_LINE_BYTES} bytes")
    shape = Shape(line)
    if shape.deepest > MAX_DEPTH or shape.containers > MAX_CONTAINERS:
        try:
            rid = _id_of(json.loads(shape.shallow()))
        except (ValueError, RecursionError):
            rid = None
        said = (f"nested deeper than {MAX_DEPTH} levels" if shape.deepest > MAX_DEPTH
                else f"holds over {MAX_CONTAINERS} arrays and objects")
        return None, (rid, INVALID_REQUEST, f"Invalid Request: {said}")
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):
        long = _with_long_integers(line)
        if long is _NOT_JSON:
            return None, (None, PARSE_ERROR, "Parse error: the message is not JSON")
        return None, (_id_of(long), INVALID_REQUEST,
                      f"Invalid Request: holds an integer of over {sys.get_int_max_str_digits()} digits")
    if isinstance(doc, dict) and "method" in doc and "id" in doc and _id_of(doc) is None:
        # a request whose id is null, a float, a boolean or a list: read as a notification it
        # would get no answer, and its client would wait for one for good
        return None, (None, INVALID_REQUEST, "Invalid Request: a request's id is a string or an integer")
    try:
        return types.jsonrpc_message_adapter.validate_python(doc, by_name=False), None
    except Exception:  # pydantic's ValidationError: not a JSON-RPC message
        return None, (_id_of(doc), INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")


HEAD_BYTES = 1 << 16  # of a message too long to parse, how much is read for its id


def head_id(line: bytes) -> RequestId | None:
    """The id of a message too long to parse whole, read from the members its object opens with,
    up to the first whose value is an array or an object (a client writes `jsonrpc`, `id` and
    `method` before `params`, as the SDKs do), within its first HEAD_BYTES; None where it is not
    there. Answered with no id, the SDK's client waited for its request's answer for good."""
    text = line[:HEAD_BYTES].decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    at = _blank_past(text, 0)
    if not text.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(text, _blank_past(text, at))
            at = _blank_past(text, at)
            if not isinstance(key, str) or not text.startswith(":", at):
                return None
            at = _blank_past(text, at + 1)
            if text.startswith(("{", "["), at):  # the params: the id comes before them or not at all
                return None
            value, at = decoder.raw_decode(text, at)
            if key == "id":
                return _id_of({"id": value})
            at = _blank_past(text, at)
            if not text.startswith(",", at):
                return None
            at += 1
    except (ValueError, RecursionError):  # the head cut inside a value, or not JSON
        return None


def _blank_past(text: str, at: int) -> int:
    """Where JSON's blanks starting at `at` end."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _with_long_integers(line: bytes) -> object:
    """The JSON value of a line `json.loads` refused only for an integer longer than Python
    reads (`sys.get_int_max_str_digits`, against the time a long one takes to convert), each
    such integer read as None; `_NOT_JSON` when the line is not JSON."""
    most = sys.get_int_max_str_digits()

    def integer(text: str) -> int | None:
        return int(text) if len(text.lstrip("-")) <= most else None

    try:
        return json.loads(line, parse_int=integer)
    except (ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def wire_line(message: JSONRPCMessage) -> bytes:
    """A message as one line of UTF-8 JSON. A string the client sent may come back in it (a
    request's id, a method name, a progress token) holding a lone surrogate, which `json.loads`
    reads from an escape and UTF-8 cannot encode: such a one is written escaped, as it came."""
    try:
        data = message.model_dump_json(by_alias=True, exclude_unset=True)
    except ValueError:  # pydantic's PydanticSerializationError, for the surrogate
        data = json.dumps(message.model_dump(mode="json", by_alias=True, exclude_unset=True))
    return data.encode("utf-8") + b"\n"


def request_id_in(line: bytes) -> RequestId | None:
    """The id of the request a line holds, read by the standard library's parser alone, for
    a line `check_line` ran short of memory on; None where none can be read, the parser's own
    lack of memory included."""
    try:
        return _id_of(json.loads(line))
    except (ValueError, RecursionError, MemoryError):
        return None


def memory_error_line(rid: RequestId | None, message: str) -> bytes:
    """The JSON-RPC error answering request `rid` `out_of_memory` (as the server's typed
    errors: `data` holds the code), one line made by the standard library's encoder, not the
    SDK's that has just run short."""
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
        "code": INTERNAL_ERROR, "message": f"out_of_memory: {message}", "data": {"code": "out_of_memory"}}},
        separators=(",", ":")).encode() + b"\n"


class _Lane:
    """One daemon thread of the transport's own doing the blocking reads of stdin (or writes of
    stdout) one at a time, each as the event loop asks for it. Started once: under a `ulimit -v`
    a thread started for a message finds no room while a call in flight holds it, and the
    server would end. A daemon: a read waiting on a client that writes nothing more must not
    hold the process at exit, as one of anyio's worker threads would (they are waited for).

    The thread reads nothing the loop has not asked for, so the bounds on what is read and held
    are the transport's alone. A job's failure (a read error, a broken pipe) is raised where it
    was awaited; a wait cancelled drops its job's outcome."""

    def __init__(self, name: str) -> None:
        import queue

        self._name = name
        self._jobs: queue.SimpleQueue[tuple[Callable[[], None], anyio.Event] | None] = queue.SimpleQueue()

    def start(self) -> None:
        """Start the thread, on the event loop: refused as `start_thread` refuses one (a start
        waited on for good, room for its stack but not its start, would hold the whole server)."""
        import threading

        import anyio.lowlevel

        from indexer.contract.memory_limit import start_thread

        token = anyio.lowlevel.current_token()
        start_thread(threading.Thread(target=self._serve, args=(token,), name=self._name, daemon=True))

    def _serve(self, token: EventLoopToken) -> None:
        import anyio.from_thread

        while (job := self._jobs.get()) is not None:
            step, done = job
            step()
            try:
                anyio.from_thread.run_sync(done.set, token=token)
            except RuntimeError:  # the loop has ended: no one waits for this job
                return

    async def run(self, job: Callable[[], T]) -> T:
        """`job()` on the lane's thread, after the jobs asked for before it."""
        import anyio

        got: list[T] = []
        failed: list[BaseException] = []

        def step() -> None:
            try:
                got.append(job())
            except BaseException as exc:  # handed to the waiting task, raised there
                failed.append(exc)

        done = anyio.Event()
        self._jobs.put((step, done))
        await done.wait()
        if failed:
            raise failed[0]
        return got[0]

    def stop(self) -> None:
        """The thread ends once the job it is doing, if any, is done (a read may wait on the
        client for good: the thread, a daemon, does not hold the process)."""
        self._jobs.put(None)


async def _lines(stdin: _Lane, stream: BinaryIO, start: Start | None = None,
                 answered: set[RequestId] | None = None) -> AsyncIterator[bytes]:
    """Each line's message, without its newline, read on `stdin`'s thread: at most
    MAX_LINE_BYTES, or one byte more to tell an overlong one, whose rest is read and dropped in
    bounded chunks, never held. The newline is no part of the message, so one of MAX_LINE_BYTES
    is taken, as over HTTP. After a `start`, first the lines it answered that the SDK must see
    (the id of the request among them already answered put in `answered`), then the read it left
    unanswered, if any."""
    pending: bytes | None = None
    if start is not None:
        replays, first = await stdin.run(start.finish)
        if first is not None and answered is not None:
            answered.add(first)
        start.after()
        for replay in replays:
            yield replay
        pending = await stdin.run(start.last)
    while True:
        if pending is not None:
            line, pending = pending, None
        else:
            line = await stdin.run(partial(stream.readline, MAX_LINE_BYTES + 2))  # the bound, a byte past it, or its newline
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:
                rest = await stdin.run(partial(stream.readline, MAX_LINE_BYTES))
                if not rest or rest.endswith(b"\n"):
                    break
        if line.strip():
            yield line.removesuffix(b"\n")


def _encoded(message: JSONRPCMessage) -> bytes | None:
    """The message's line (`wire_line`); where encoding it runs short of memory, the typed
    `out_of_memory` error answering its request in its place, or None for a message that
    answers none (a notification, a request of the server's own), which is dropped."""
    import mcp_types as types

    try:
        return wire_line(message)
    except BaseException as exc:  # pydantic's panic too, a BaseException
        fault = work_short_of_memory(exc, "answering a request")
        if fault is None:
            raise
    if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
        return memory_error_line(message.id, fault.message)
    return None


def _written(stream: BinaryIO, data: bytes) -> None:
    stream.write(data)
    stream.flush()


def _divert(fd: int, flags: int) -> int:
    """Move the wire off `fd` to a private descriptor; `fd` then points at the null device
    (stdin) or stderr (stdout). Returns the private descriptor."""
    private = os.dup(fd)
    target = os.open(os.devnull, flags) if fd == 0 else os.dup(2)
    os.dup2(target, fd)
    os.close(target)
    return private


class _Changes:
    """Wakes every task waiting for the requests in flight or held to change. A waiter checks
    its condition and waits with no await between, so a change told after the check is seen."""

    def __init__(self) -> None:
        import anyio

        self._event = anyio.Event()

    def tell(self) -> None:
        import anyio

        self._event.set()
        self._event = anyio.Event()

    async def wait(self) -> None:
        await self._event.wait()


def open_wire() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's (stdin, stdout), moved off fds 0 and 1 (`_divert`)."""
    sys.stdout.flush()
    in_fd, out_fd = _divert(0, os.O_RDONLY), _divert(1, os.O_WRONLY)
    # read and written as blocking whatever flags the client left on its pipes (Waiting)
    return io.BufferedReader(Waiting(in_fd, owned=True), 1 << 16), io.BufferedWriter(Waiting(out_fd, owned=True))


@asynccontextmanager
async def stdio_transport(drain_seconds: float, on_input_end: Callable[[], None] | None = None,
                          start: Start | None = None):
    """(read_stream, write_stream) for `Server.run`, over this process's stdin and stdout (or the
    wire `start` answered the session's opening on, `context_tools.faces.mcp_start`);
    `on_input_end` is told once stdin has ended, before the requests in flight are drained,
    for up to `drain_seconds` (the server's stop grace)."""
    import anyio
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.dispatcher import as_request_id, coerce_request_id
    from mcp.shared.message import SessionMessage

    from context_tools.faces.in_flight import Admission

    stdin, stdout = (start.stdin, start.stdout) if start is not None else open_wire()
    # each end of the wire on a thread of its own for the whole session: no message needs a
    # thread started for it (a stdio server whose limit leaves no room for one serves on)
    reading, writing = _Lane("rennet-mcp-stdin"), _Lane("rennet-mcp-stdout")
    reading.start()
    try:
        writing.start()
    except BaseException:
        reading.stop()
        raise
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    replies = write_stream.clone()  # the reader answers what it refuses on the server's own wire

    drained = anyio.Event()

    admission: Admission[SessionMessage] = Admission()  # requests read and not answered yet
    refusals: set[int] = set()  # the reader's own answers to lines it refused, on their way out
    answered_early: set[RequestId] = set()  # requests `start` answered, handed to the server for its state
    changes = _Changes()
    read_all = False

    async def hand_over(to_server: ContextSendStream[SessionMessage | Exception]) -> None:
        """Hands the requests waiting to the server in order, each once it fits among those in
        flight; ends when input has ended and none waits."""
        async with to_server:
            while admission.waiting or not read_all:
                message = admission.next()
                if message is None:
                    await changes.wait()
                    continue
                changes.tell()
                await to_server.send(message)

    async def reader() -> None:
        nonlocal read_all
        async with read_writer, replies, anyio.create_task_group() as handing:
            handing.start_soon(hand_over, read_writer.clone())
            async for line in _lines(reading, stdin, start, answered_early):
                try:
                    checked = check_line(line)  # (message, None) or (None, its error): indexed, each branch is typed
                except BaseException as exc:  # pydantic's panic too, a BaseException
                    # the line's own lack of memory (numpy's scan, the parse) ends its request, typed, not
                    # the session; numpy not loaded at all (`out_of_memory` already) leaves no line readable
                    short = None if isinstance(exc, OutOfMemory) else work_short_of_memory(exc, "reading a message")
                    if short is None:
                        raise
                else:
                    short = None
                if short is not None:  # out of the handler: what the check made, held by its frames, is let go
                    await writing.run(partial(_written, stdout, memory_error_line(request_id_in(line), short.message)))
                    continue
                if checked[1] is None:
                    message = checked[0]
                    if isinstance(message, types.JSONRPCRequest):
                        # a client that sends and never reads would have the server hold every request
                        while not admission.room_for(len(line)):
                            await changes.wait()
                        if not admission.arrive(coerce_request_id(message.id), len(line), SessionMessage(message)):
                            changes.tell()  # waits its turn: the reader reads on
                            continue
                    elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                        cancelled = as_request_id((message.params or {}).get("requestId"))
                        if cancelled is not None:  # the client's value: a list or an object is no id
                            admission.cancel(coerce_request_id(cancelled))
                            changes.tell()
                    await read_writer.send(SessionMessage(message))
                    continue
                rid, code, text = checked[1]
                reply = types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=text))
                refusal = SessionMessage(reply)
                refusals.add(id(refusal))  # alive until written: its id names no other message meanwhile
                try:
                    await replies.send(refusal)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    handing.cancel_scope.cancel()
                    return
            # End of input: the server stops when its read side closes, so first let every request
            # already read be handed over and answered (a client may write and close without waiting),
            # within the grace.
            read_all = True
            changes.tell()
            if on_input_end is not None:  # the calls are told the server ends: an index stops early
                on_input_end()
            with anyio.move_on_after(drain_seconds):
                while not admission.idle:
                    await changes.wait()
            handing.cancel_scope.cancel()

    async def writer() -> None:
        try:
            async with write_reader:
                async for session_message in write_reader:
                    message = session_message.message
                    rid = message.id if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) else None
                    owed = None if rid is None or id(session_message) in refusals else coerce_request_id(rid)
                    if owed is not None and owed in answered_early:  # answered before the SDK loaded: once is enough
                        answered_early.discard(owed)
                        line = None
                    else:
                        line = _encoded(message)
                    if line is not None:
                        await writing.run(partial(_written, stdout, line))
                    if id(session_message) in refusals:
                        # a line the reader refused was never taken in flight, whatever id it names: its
                        # answer frees no place of a request under that id, still unanswered
                        refusals.discard(id(session_message))
                    elif isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
                        admission.answered(coerce_request_id(message.id))
                        changes.tell()
        except (BrokenPipeError, ConnectionResetError):  # the client closed its end: no answer reaches it now
            tg.cancel_scope.cancel()
        finally:
            drained.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            try:
                yield read_stream, write_stream
            except BaseException:  # cancelled (a Ctrl-C) or failed: no reply is waited for
                tg.cancel_scope.cancel()
                raise
            with anyio.move_on_after(5):  # let the last replies out, then stop the blocked reader
                await drained.wait()
            tg.cancel_scope.cancel()
    finally:
        reading.stop()
        writing.stop()
