"""Jira tickets over the REST API (v2 or v3 issue endpoint), Bearer token from a named env var.

The token is read from the environment at call time, sent only in the Authorization
header, and never kept: not in the returned ticket, not in a failure message.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Mapping

import msgspec
from msgspec import Raw, Struct

from delta.dossier.answers import NULL, TOKEN, Json, Named, decoded, first, items, read_answer, text
from delta.dossier.config import JiraConfig
from delta.dossier.items import MAX_COMMENTS, RICH_TEXT_CHARS, RICH_TEXT_DEPTH, Comment, Fetched, bounded_text
from delta.dossier.refs import TRACKER_KEY
from delta.dossier.transport import TrackerFailure, exchange

FIELDS = "summary,status,description,comment,issuelinks"


class _Author(Struct):
    displayName: Raw = NULL


class _Comment(Struct):
    author: Raw = NULL
    created: Raw = NULL
    body: Raw = NULL


class _Thread(Struct):
    comments: Raw = NULL


class _Keyed(Struct):
    key: Raw = NULL


class _Link(Struct):
    outwardIssue: Raw = NULL
    inwardIssue: Raw = NULL


class _Fields(Struct):
    summary: str
    status: Raw = NULL
    description: Raw = NULL
    comment: Raw = NULL
    issuelinks: Raw = NULL


class JiraAnswer(Struct):
    """The fields of Jira's issue answer a dossier reads; every other is skipped unmade."""

    fields: _Fields
    key: Raw = NULL


def adf_text(value: Json) -> str:
    """Plain text (Markdown-ish) of an Atlassian Document Format value's JSON, as v3 returns
    descriptions, within RICH_TEXT_CHARS (the cut marked). Nodes nested deeper than
    RICH_TEXT_DEPTH give their text only."""
    document = _Document(value)
    start = next(document.tokens, None)
    return bounded_text(document.value(start, 0) if start is not None else "")


_QUOTE, _OPEN, _CLOSE = ord('"'), frozenset(b"[{"), frozenset(b"]}")
_LEVEL = re.compile(rb"-?[0-9]{1,4}")
_JOINED = 4096  # parts of a list's text joined into one string as they come, so a list of
#                 millions of tiny texts holds strings of its text's size, not one per node


class _Parts:
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.parts: list[str] = []
        self.size = 0

    def add(self, part: str) -> None:
        self.size += len(part)
        if part:
            self.parts.append(part)
            if len(self.parts) >= _JOINED:
                self.chunks.append("".join(self.parts))
                self.parts.clear()

    def text(self) -> str:
        return "".join(self.chunks) + "".join(self.parts)


class _Open:
    """A list or node `_Document._flat` is in: the text of what it holds so far, and for a node
    its type and its own text, where it gives them."""

    def __init__(self, is_node: bool) -> None:
        self.is_node = is_node
        self.parts = _Parts()
        self.kind: str | None = None
        self.leaf = ""


class _Document:
    """A rich text rendered in one pass over its JSON's tokens, each read once: nothing of it is
    decoded but the strings it renders, so it holds about its text, whatever the shape of its
    nodes. Once a list's text passes RICH_TEXT_CHARS (`full`), nothing more is read, and each
    node still open renders what it has."""

    def __init__(self, value: Json) -> None:
        self.view = memoryview(value)
        self.tokens = TOKEN.finditer(self.view)
        self.full = False

    def _next(self) -> re.Match[bytes]:
        return next(self.tokens)

    def _at(self, m: re.Match[bytes]) -> int:
        return self.view[m.start()]

    def _string(self, m: re.Match[bytes]) -> str:
        return msgspec.json.decode(m.group(), type=str)

    def _skip(self, m: re.Match[bytes]) -> None:
        if self._at(m) not in _OPEN:
            return
        depth = 1
        for t in self.tokens:
            c = self._at(t)
            if c in _OPEN:
                depth += 1
            elif c in _CLOSE:
                depth -= 1
                if depth == 0:
                    return

    def value(self, m: re.Match[bytes], depth: int) -> str:
        c = self._at(m)
        if c == _QUOTE:
            return self._string(m)[:RICH_TEXT_CHARS + 1]
        if c not in _OPEN:
            return ""
        if depth >= RICH_TEXT_DEPTH:
            return self._flat(m)
        return self._list(depth) if c == ord("[") else self._node(depth)

    def _list(self, depth: int) -> str:
        parts = _Parts()
        m = self._next()
        if self._at(m) == ord("]"):
            return ""
        while True:
            parts.add(self.value(m, depth + 1))
            if parts.size > RICH_TEXT_CHARS:
                self.full = True  # enough to fill the bound: the rest is not rendered
            if self.full or self._at(self._next()) == ord("]"):
                return parts.text()
            m = self._next()

    def _node(self, depth: int) -> str:
        kind: str | None = None
        leaf = ""
        inner = ""
        level: int | None = None
        state: str | None = None
        m = self._next()
        while self._at(m) != ord("}"):
            key = self._string(m)
            self._next()  # the colon
            v = self._next()
            if key == "type" and self._at(v) == _QUOTE:
                kind = self._string(v)
            elif key == "text" and self._at(v) == _QUOTE:
                leaf = self._string(v)[:RICH_TEXT_CHARS + 1]
            elif key == "content":
                inner = self.value(v, depth + 1)
            elif key == "attrs" and self._at(v) == ord("{"):
                level, state = self._attrs()
            else:
                self._skip(v)
            if self.full:
                break
            if self._at(self._next()) == ord("}"):
                break
            m = self._next()
        if kind == "text":
            return leaf
        if kind == "hardBreak":
            return "\n"
        if kind == "heading":
            return "#" * (level if level is not None and 1 <= level <= 6 else 1) + " " + inner + "\n"
        if kind in ("paragraph", "codeBlock", "blockquote"):
            return inner + "\n"
        if kind == "listItem":
            return "- " + inner.strip() + "\n"
        if kind == "taskItem":
            return f"- [{'x' if state == 'DONE' else ' '}] " + inner.strip() + "\n"
        return inner

    def _flat(self, m: re.Match[bytes]) -> str:
        """The text leaves of the list or node opened at `m`, in document order, up to the bound:
        its structure is not rendered, and it is read with a stack of what is open, not recursion,
        however deep it nests."""
        open_: list[_Open] = [_Open(self._at(m) == ord("{"))]
        size = 0
        while open_:
            top = open_[-1]
            t = self._next() if size <= RICH_TEXT_CHARS else None
            if t is None:
                self.full = True  # the bound is reached: what is open ends with what it has
            c = self._at(t) if t is not None else ord("}")
            if c in _CLOSE:
                open_.pop()
                done = top.leaf if top.kind == "text" else top.parts.text()
                size += len(top.leaf) if top.kind == "text" else 0
                if not open_:
                    return done
                open_[-1].parts.add(done)
                continue
            if c == ord(","):
                continue
            assert t is not None
            if top.is_node:
                key = self._string(t)
                self._next()  # the colon
                v = self._next()
                if key == "type" and self._at(v) == _QUOTE:
                    top.kind = self._string(v)
                    continue
                if key == "text" and self._at(v) == _QUOTE:
                    top.leaf = self._string(v)[:RICH_TEXT_CHARS + 1]
                    continue
                if key != "content":
                    self._skip(v)
                    continue
                t = v
                c = self._at(t)
            if c == _QUOTE:
                part = self._string(t)[:RICH_TEXT_CHARS + 1]
                size += len(part)
                top.parts.add(part)
            elif c in _OPEN:
                open_.append(_Open(c == ord("{")))
        return ""

    def _attrs(self) -> tuple[int | None, str | None]:
        """A node's heading level (an integer) and task state (a string), where it gives them."""
        level: int | None = None
        state: str | None = None
        m = self._next()
        while self._at(m) != ord("}"):
            key = self._string(m)
            self._next()
            v = self._next()
            if key == "level" and self._at(v) not in _OPEN:
                level = int(v.group()) if _LEVEL.fullmatch(v.group()) else (1 if v.group() == b"true" else None)
            elif key == "state" and self._at(v) == _QUOTE:
                state = self._string(v)
            else:
                self._skip(v)
            if self._at(self._next()) == ord("}"):
                break
            m = self._next()
        return level, state


def _text(value: Json) -> str:
    return bounded_text(text(value)) if first(value) == _QUOTE else adf_text(value)


def parse_issue(key: str, data: bytes, browse_base: str) -> Fetched:
    """The ticket of Jira's answer `data` (its JSON, kept as the ticket's raw answer)."""
    answer = read_answer(data, JiraAnswer, f"jira sent a body for {key} that is not usable JSON",
                         f"jira: the answer for {key} has no fields object with a summary")
    fields = answer.fields
    status = decoded(fields.status, Named)
    comments: list[Comment] = []
    thread = decoded(fields.comment, _Thread)
    for n, entry in enumerate(items(thread.comments if thread is not None else NULL)):
        if n == MAX_COMMENTS:
            break
        c = decoded(entry, _Comment)
        if c is not None:
            author = decoded(c.author, _Author)
            comments.append(Comment(text(author.displayName) if author is not None else "", text(c.created),
                                    _text(c.body)))
    links: list[str] = []
    for entry in items(fields.issuelinks):
        link = decoded(entry, _Link)
        for side in (link.outwardIssue, link.inwardIssue) if link is not None else ():
            other = decoded(side, _Keyed)
            if other is not None and first(other.key) == _QUOTE:
                links.append(text(other.key))
    stated = text(answer.key)  # a moved issue answers under its new key
    real_key = stated if TRACKER_KEY.fullmatch(stated) else key
    return Fetched(id=real_key, tracker="jira", title=fields.summary, state=text(status.name) if status else "",
                   body=_text(fields.description), url=f"{browse_base}/browse/{real_key}", comments=comments,
                   links=links, raw=Raw(data))


def fetch(key: str, cfg: JiraConfig, timeout: float, environ: Mapping[str, str] | None = None) -> Fetched:
    env = os.environ if environ is None else environ
    token = env.get(cfg.token_env)
    if not token:
        raise TrackerFailure("missing_config", f"jira: environment variable {cfg.token_env} is not set")
    base = cfg.base_url.rstrip("/")
    # one path segment whatever the key holds: a `/` left as it is would climb to another endpoint
    url = f"{base}/rest/api/{cfg.api_version}/issue/{urllib.parse.quote(key, safe='')}?fields={FIELDS}"
    _, data = exchange("GET", url, auth=f"Bearer {token}", timeout=timeout, tracker="jira", secret=token)
    return parse_issue(key, data, base)
