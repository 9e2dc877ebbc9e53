"""A scripted model on loopback, for `benchmarks.hosts`: it speaks the model APIs the agent hosts
call (Anthropic's Messages, OpenAI's Responses, Gemini's generateContent), and in place of a model
it follows a fixed list of tool calls. What a host sends it is what a model would see of Rennet's
tools: the tool definitions of its first request, and each tool result as the host hands it back.

The conversation a host sends carries every result so far, so the step a request is at is the
count of results in it: a host that retries a request gets the same answer.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

TOOL_PREFIX = "context_"  # every Rennet tool a script calls is found by its wire name's end
# Gemini CLI adds this flag to every tool's schema and tells its model to set it on a call that
# depends on the one before
SEQUENCED = "wait_for_previous"
HOST_READER = ""  # a step's tool: the host's own file reader (a spilled reply's file)


@dataclass(frozen=True)
class Step:
    """One tool call: the wire name it ends with, and its arguments from the results before it."""

    label: str
    tool: str
    arguments: Callable[[list[str]], dict]
    dependent: bool = False  # needs the result before it: a host's own sequencing flag is set


@dataclass
class ToolDef:
    name: str
    description: str
    schema: dict


@dataclass
class Seen:
    """What the model was shown, as the host sent it."""

    tools: list[ToolDef] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # step label -> the result's text
    calls: dict[str, dict] = field(default_factory=dict)  # step label -> the call as sent
    requests: list[str] = field(default_factory=list)  # "POST /path (main|aside)"
    bodies: list[dict] = field(default_factory=list)  # every request as sent, for reading by hand
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Turn:
    """A request of the host read into the parts a script needs."""

    tools: list[ToolDef]
    results: list[str]  # the tool results in the conversation, in order
    stream: bool
    first: tuple[str, dict] | None = None  # a call the host wants before any tool of ours is callable


class Api:
    """One model API: reading a request, writing a tool call or a last text."""

    def turn(self, body: dict) -> Turn:
        raise NotImplementedError

    def call(self, name: str, arguments: dict, stream: bool) -> tuple[str, bytes]:
        raise NotImplementedError

    def text(self, text: str, stream: bool, body: dict) -> tuple[str, bytes]:
        raise NotImplementedError

    def reader(self, path: str) -> tuple[str, dict]:
        """The host's own tool for reading a file, and its arguments for `path`."""
        raise NotImplementedError


def _sse(events: list[tuple[str | None, dict]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}\n")
        out.append(f"data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def _block_text(content: object) -> str:
    """A tool result's text as a host put it: a string, or text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return json.dumps(content)


SEARCH = "ToolSearch"


class Anthropic(Api):
    """Messages API (`POST /v1/messages`), as Claude Code calls it through `ANTHROPIC_BASE_URL`.
    Claude Code defers MCP tools: the model reads their names, then loads their definitions with
    its ToolSearch tool, as a model would before its first call of one."""

    def turn(self, body: dict) -> Turn:
        tools = [ToolDef(t.get("name", ""), t.get("description", ""), t.get("input_schema", {}))
                 for t in body.get("tools", []) if "name" in t]
        messages = [m for m in body.get("messages", []) if isinstance(m.get("content"), list)]
        called = {b.get("id"): b.get("name") for m in messages for b in m["content"] if b.get("type") == "tool_use"}
        results = [_block_text(block.get("content", "")) for m in messages if m.get("role") == "user"
                   for block in m["content"] if block.get("type") == "tool_result"
                   and called.get(block.get("tool_use_id")) != SEARCH]
        searched = SEARCH in called.values()
        deferred = sorted(set(re.findall(r"\bmcp__\w+", _block_text([b for m in messages for b in m["content"]])))) if not searched else []
        if deferred and any(t.name == SEARCH for t in tools):
            return Turn(tools, results, bool(body.get("stream")), (SEARCH, {"query": "select:" + ",".join(deferred)}))
        return Turn(tools, results, bool(body.get("stream")))

    def _message(self, content: list[dict], stop: str) -> dict:
        return {"id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                "model": "scripted", "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}

    def _reply(self, block: dict, stop: str, stream: bool) -> tuple[str, bytes]:
        message = self._message([block], stop)
        if not stream:
            return "application/json", json.dumps(message).encode()
        start = {**message, "content": [], "stop_reason": None}
        if block["type"] == "tool_use":
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        return "text/event-stream", _sse([
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": opened}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"})])

    def call(self, name: str, arguments: dict, stream: bool) -> tuple[str, bytes]:
        block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": name, "input": arguments}
        return self._reply(block, "tool_use", stream)

    def text(self, text: str, stream: bool, body: dict) -> tuple[str, bytes]:
        return self._reply({"type": "text", "text": text}, "end_turn", stream)

    def reader(self, path: str) -> tuple[str, dict]:
        return "Read", {"file_path": path}


class Responses(Api):
    """OpenAI's Responses API (`POST /v1/responses`), as Codex calls a `model_providers` entry."""

    def turn(self, body: dict) -> Turn:
        tools = []
        for t in body.get("tools", []):
            if t.get("type") == "function":
                tools.append(ToolDef(t.get("name", ""), t.get("description", ""), t.get("parameters", {})))
            elif t.get("type") == "namespace" or "tools" in t:  # tools grouped under their server
                for inner in t.get("tools", []):
                    tools.append(ToolDef(f"{t.get('name', '')}/{inner.get('name', '')}", inner.get("description", ""),
                                         inner.get("parameters", {})))
        results = [_block_text(item.get("output", "")) for item in body.get("input", [])
                   if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output")]
        return Turn(tools, results, bool(body.get("stream")))

    def _events(self, item: dict) -> tuple[str, bytes]:
        rid = f"resp_{uuid.uuid4().hex[:20]}"
        response = {"id": rid, "object": "response", "status": "completed", "model": "scripted", "output": [item],
                    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                              "input_tokens_details": {"cached_tokens": 0},
                              "output_tokens_details": {"reasoning_tokens": 0}}}
        return "text/event-stream", _sse([
            ("response.created", {"type": "response.created", "response": {**response, "status": "in_progress",
                                                                            "output": []}}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response})])

    def call(self, name: str, arguments: dict, stream: bool) -> tuple[str, bytes]:
        namespace, _, tool = name.rpartition("/")
        item = {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:20]}", "status": "completed",
                "call_id": f"call_{uuid.uuid4().hex[:20]}", "name": tool, "arguments": json.dumps(arguments)}
        if namespace:
            item["namespace"] = namespace
        return self._events(item)

    def text(self, text: str, stream: bool, body: dict) -> tuple[str, bytes]:
        return self._events({"type": "message", "id": f"msg_{uuid.uuid4().hex[:20]}", "status": "completed",
                             "role": "assistant", "content": [{"type": "output_text", "text": text,
                                                               "annotations": []}]})

    def reader(self, path: str) -> tuple[str, dict]:
        return "exec_command", {"cmd": f"head -c 2000 '{path}'"}


class Gemini(Api):
    """Gemini's `models/*:generateContent` and `:streamGenerateContent`, as Gemini CLI calls
    them through `GOOGLE_GEMINI_BASE_URL`."""

    def turn(self, body: dict) -> Turn:
        tools = []
        for group in body.get("tools", []):
            for f in group.get("functionDeclarations", []):
                schema = f.get("parametersJsonSchema", f.get("parameters", {}))
                tools.append(ToolDef(f.get("name", ""), f.get("description", ""), schema))
        results = []
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                if "functionResponse" in part:
                    response = part["functionResponse"].get("response", {})
                    results.append(json.dumps(response) if not isinstance(response, str) else response)
        return Turn(tools, results, False)

    def _reply(self, parts: list[dict], stream: bool) -> tuple[str, bytes]:
        chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
                 "modelVersion": "scripted"}
        if stream:
            return "text/event-stream", _sse([(None, chunk)])
        return "application/json", json.dumps(chunk).encode()

    def call(self, name: str, arguments: dict, stream: bool) -> tuple[str, bytes]:
        return self._reply([{"functionCall": {"name": name, "args": arguments}}], stream)

    def text(self, text: str, stream: bool, body: dict) -> tuple[str, bytes]:
        if body.get("generationConfig", {}).get("responseMimeType") == "application/json" or \
                body.get("generationConfig", {}).get("responseJsonSchema"):
            # the host's own side questions (who speaks next, which model routes): a plain answer
            text = json.dumps({"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash"})
        return self._reply([{"text": text}], stream)

    def reader(self, path: str) -> tuple[str, dict]:
        return "read_file", {"file_path": path, "end_line": 5}


class ScriptedModel:
    """The loopback server. `seen` fills as the host calls it."""

    def __init__(self, api: Api, steps: list[Step]) -> None:
        self.api, self.steps, self.seen = api, steps, Seen()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # a host's model list, or any probe: an empty list
                self._send(200, "application/json", json.dumps({"data": [], "models": []}).encode())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                stream = "streamGenerateContent" in self.path or "alt=sse" in self.path
                if self.path.split("?")[0].endswith(":countTokens") or self.path.endswith("/count_tokens"):
                    self._send(200, "application/json", json.dumps({"totalTokens": 1, "input_tokens": 1}).encode())
                    return
                kind, payload = model.answer(body, self.path, stream)
                self._send(200, kind, payload)

            def _send(self, status: int, kind: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ScriptedModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, body: dict, path: str, stream: bool) -> tuple[str, bytes]:
        turn = self.api.turn(body)
        stream = stream or turn.stream
        ours = [t for t in turn.tools if TOOL_PREFIX in t.name or t.name.endswith(("repo_index", "repo_snapshots"))]
        with self.seen.lock:
            if turn.first and not ours:
                self.seen.requests.append(f"POST {path.split('?')[0]} (loads the tools)")
                self.seen.bodies.append({"path": path, "body": body})
                return self.api.call(*turn.first, stream)
            self.seen.requests.append(f"POST {path.split('?')[0]} ({'main' if ours else 'aside'})")
            self.seen.bodies.append({"path": path, "body": body})
            if not ours:  # the host's own side requests (titles, quotas, classifiers)
                return self.api.text("ok", stream, body)
            if not self.seen.tools:
                self.seen.tools = turn.tools
            done = turn.results
            for step, text in zip(self.steps, done):
                self.seen.results.setdefault(step.label, text)
            if len(done) >= len(self.steps):
                return self.api.text("done", stream, body)
            step = self.steps[len(done)]
            if step.tool == HOST_READER:
                name, arguments = self.api.reader(step.arguments(done)["path"])
            else:
                tool = next((t for t in ours if t.name.endswith(step.tool)), ToolDef(step.tool, "", {}))
                name, arguments = tool.name, step.arguments(done)
                if step.dependent and SEQUENCED in tool.schema.get("properties", {}):
                    arguments[SEQUENCED] = True
            self.seen.calls[step.label] = {"name": name, "arguments": arguments}
        return self.api.call(name, arguments, stream)
