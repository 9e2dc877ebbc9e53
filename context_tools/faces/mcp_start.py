"""The first answers of the stdio face, given before the MCP SDK is loaded.

A client gives a server a short while to start: Codex runs a turn without the tools of a server
not marked required that has not listed them about a second after its start, and loading the
SDK (its pydantic models) takes longer than that on a loaded machine. So while the server loads,
a thread of its own (`Start`) answers what a client opens with: `initialize`, then
`notifications/initialized`, `tools/list` and `ping`, with the very bytes the SDK would write
(`context_tools/faces/schemas/mcp.start.json`, made by the SDK itself: `mcp_start_answers.sdk_answers`; a test holds
the file current and each answer equal to the SDK's).

Only the plain forms of these are answered so: a line under `EARLY_BYTES`, its params of the
shapes clients send (`_initialize_version`), an id a string of plain characters or an integer not
used before, at most `EARLY_REQUESTS` of them. The first line of any other kind (another request, a batch, a bad line, an id
reused) ends the early answers, and it and all after it are read and answered by the transport as
ever. Once the server is built, the transport hands the SDK the `initialize` and
`notifications/initialized` that were answered, for its session's state, and drops its answer
to that `initialize`, once.
"""

from __future__ import annotations

import json
import queue
import re
import threading
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

from context_tools.faces.mcp_stdio import MAX_LINE_BYTES

if TYPE_CHECKING:
    from mcp_types import RequestId

START_FILE = "mcp.start.json"  # beside the shipped output schemas
EARLY_BYTES = 1 << 16  # a line longer than any opening a client writes is left to the transport
EARLY_REQUESTS = 16  # answered here at most: a client that pings on meets the transport's bounds
_PLAIN_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
_MOST_ID = 1 << 53
_CLIENT_INFO = {"name", "version", "title", "description", "websiteUrl"}


def _plain_id(rid: object) -> bool:
    """An id whose JSON the SDK writes as `json.dumps` does."""
    if isinstance(rid, bool):
        return False
    if isinstance(rid, int):
        return -_MOST_ID < rid < _MOST_ID
    return isinstance(rid, str) and _PLAIN_ID.fullmatch(rid) is not None


def same_id(rid: RequestId) -> RequestId:
    """The id as the SDK correlates it (`coerce_request_id`: "7" and 7 are one)."""
    if isinstance(rid, str):
        try:
            return int(rid)
        except ValueError:
            pass
    return rid


def _text(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate read from an escape
        return False
    return True


def _plain_params(doc: dict[str, object]) -> bool:
    """Params left out, empty, or holding only a progress token (Codex sends one with its list)."""
    params = doc.get("params", {})
    if not isinstance(params, dict) or not set(params) <= {"_meta"}:
        return False
    meta = params.get("_meta", {})
    return isinstance(meta, dict) and set(meta) <= {"progressToken"} and _plain_id(meta.get("progressToken", 0))


def _flat(value: object) -> bool:
    """An object of objects whose members are strings, numbers, booleans or null."""
    return isinstance(value, dict) and all(
        _text(key) and isinstance(inner, dict)
        and all(_text(k) and (v is None or isinstance(v, (str, int, float, bool))) for k, v in inner.items())
        for key, inner in value.items())


def _capabilities(caps: object) -> bool:
    """The client capabilities the SDK takes, in the forms clients send them."""
    if not isinstance(caps, dict):
        return False
    for name, value in caps.items():
        if not isinstance(value, dict):
            return False
        if name == "roots":
            if not all(k == "listChanged" and isinstance(v, bool) for k, v in value.items()):
                return False
        elif name in ("sampling", "elicitation"):
            kinds = {"context", "tools"} if name == "sampling" else {"form", "url"}
            if not all(k in kinds and v == {} for k, v in value.items()):
                return False
        elif name in ("experimental", "extensions"):
            if not _flat(value):
                return False
        else:
            return False
    return True


def _initialize_version(params: object) -> str | None:
    """The protocol version an `initialize` asks for, when its params are of a form the SDK
    accepts; None for any other."""
    if not isinstance(params, dict) or set(params) != {"protocolVersion", "capabilities", "clientInfo"}:
        return None
    info, version = params["clientInfo"], params["protocolVersion"]
    if not isinstance(info, dict) or not {"name", "version"} <= set(info) <= _CLIENT_INFO:
        return None
    if not all(_text(v) for v in info.values()) or not _text(version) or not _capabilities(params["capabilities"]):
        return None
    return version


class Answers:
    """What the SDK answers an opening, read from the shipped file: each `initialize` result and
    `tools/list` result as its JSON text, by the protocol version agreed, on a plain server and on
    a `--worktree` one."""

    def __init__(self, worktree: bool) -> None:
        from importlib import resources

        data = json.loads(resources.files("context_tools.faces.schemas").joinpath(START_FILE)
                          .read_text(encoding="utf-8"))
        face = data["worktree" if worktree else "plain"]
        self.latest: str = data["latest"]
        self.initialize: dict[str, str] = face["initialize"]
        self.tools: dict[str, str] = {v: data["lists"][i] for v, i in face["tools/list"].items()}
        self.ping: dict[str, str] = face["ping"]

    def agreed(self, asked: str) -> str:
        """The version the SDK agrees to: the one asked for when it speaks it, else its latest."""
        return asked if asked in self.initialize else self.latest


def reply_line(rid: RequestId, result: str) -> bytes:
    """A response line as the transport writes the SDK's (`wire_line`), its result's JSON given."""
    return b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":' + result.encode() + b"}\n"


_NOTHING = object()  # no read was left pending: the transport reads on itself


class Start:
    """Answers the opening of a session on a thread of its own while the server loads (above),
    until the transport takes the wire over (`finish`)."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO, worktree: bool,
                 on_listed: Callable[[], None] | None = None) -> None:
        """`on_listed` is what the server does on a `tools/list`, beyond its answer, done on the
        event loop once the transport takes over (`after`) when one was answered here."""
        self.stdin, self.stdout = stdin, stdout
        self._on_listed = on_listed
        self._worktree = worktree
        self._lock = threading.Lock()
        self._ready = False
        self._last: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._replays: list[bytes] = []
        self._ids: set[RequestId] = set()
        self._initialize: RequestId | None = None
        self._agreed = ""
        self._initialized = False
        self._answers: Answers | None = None
        self.listed = False  # a `tools/list` was answered here

    def begin(self) -> None:
        """Start answering; where no thread can start (a `ulimit -v` too small), the transport
        answers all."""
        try:
            threading.Thread(target=self._serve, name="rennet-mcp-start", daemon=True).start()
        except (RuntimeError, MemoryError):
            self._last.put(_NOTHING)

    def _serve(self) -> None:
        try:
            while True:
                raw = self.stdin.readline(MAX_LINE_BYTES + 2)
                with self._lock:
                    if self._ready or not raw or not self._answered(raw):
                        self._last.put(raw)
                        return
        except BaseException as exc:  # a read's failure is the transport's to meet, where it awaits the line
            self._last.put(exc)

    def _answered(self, raw: bytes) -> bool:
        """Whether the line was answered here (or was blank); False leaves it to the transport."""
        try:
            answered = self._reply(raw)
        except Exception:  # no room to read it, or the file: the SDK answers it
            return False
        if answered is None:
            return False
        reply, doc = answered
        if reply:
            try:
                self.stdout.write(reply)
                self.stdout.flush()
            except Exception:  # the client has gone: the transport meets it as ever
                return False
        if doc is not None:
            self._commit(raw, doc)
        return True

    def _reply(self, raw: bytes) -> tuple[bytes, dict[str, Any] | None] | None:
        """The answer to a line (b"" for a blank line or the notification, answered by nothing)
        and the line's message (None for a blank one), or None for a line left to the transport."""
        if len(raw) > EARLY_BYTES or not raw.endswith(b"\n"):
            return None
        if not raw.strip():
            return b"", None
        doc = json.loads(raw)
        if not isinstance(doc, dict) or doc.get("jsonrpc") != "2.0" or not set(doc) <= {"jsonrpc", "id", "method",
                                                                                        "params"}:
            return None
        method = doc.get("method")
        if "id" not in doc:
            if method == "notifications/initialized" and self._initialize is not None and not self._initialized \
                    and doc.get("params", {}) == {}:
                return b"", doc
            return None
        rid = doc["id"]
        if not _plain_id(rid) or same_id(rid) in self._ids or len(self._ids) >= EARLY_REQUESTS:
            return None
        if method == "initialize" and self._initialize is None:
            asked = _initialize_version(doc.get("params"))
            if asked is None:
                return None
            answers = self._answers = Answers(self._worktree)
            return reply_line(rid, answers.initialize[answers.agreed(asked)]), doc
        if method in ("tools/list", "ping") and self._initialized and self._answers is not None \
                and _plain_params(doc):
            listed = self._answers.tools if method == "tools/list" else self._answers.ping
            return reply_line(rid, listed[self._agreed]), doc
        return None

    def _commit(self, raw: bytes, doc: dict[str, Any]) -> None:
        """What answering the line (`doc`, its message) changed: the session's state the SDK must
        be given later."""
        method = doc.get("method")
        if method == "initialize":
            assert self._answers is not None
            self._initialize = same_id(doc["id"])
            self._agreed = self._answers.agreed(doc["params"]["protocolVersion"])
            self._replays.append(raw.removesuffix(b"\n"))
        elif method == "notifications/initialized":
            self._initialized = True
            self._replays.append(raw.removesuffix(b"\n"))
        elif method == "tools/list":
            self.listed = True
        if "id" in doc:
            self._ids.add(same_id(doc["id"]))

    def finish(self) -> tuple[list[bytes], RequestId | None]:
        """Stop answering: the lines the SDK must be given first, and the id of the `initialize`
        whose answer it must not write again (as the SDK correlates it, `same_id`). Called on the
        transport's reading thread."""
        with self._lock:  # an answer being written is written whole first
            self._ready = True
            return list(self._replays), self._initialize

    def after(self) -> None:
        """Done on the event loop once `finish` has returned."""
        if self.listed and self._on_listed is not None:
            self._on_listed()

    def last(self) -> bytes | None:
        """The thread's last read, which it did not answer, once it is done (b"" at the end of
        input); None when it left none pending. A failed read is raised here."""
        got = self._last.get()
        if isinstance(got, BaseException):
            raise got
        return None if got is _NOTHING else got  # type: ignore[return-value]
