"""Jira tickets over the REST API (v2 or v3 issue endpoint), Bearer token from a named env var.

The token is read from the environment at call time, sent only in the Authorization
header, and never kept: not in the returned ticket, not in a failure message.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Mapping

from delta.dossier.config import JiraConfig
from delta.dossier.items import RICH_TEXT_CHARS, RICH_TEXT_DEPTH, Comment, Fetched, bounded_text, first_comments
from delta.dossier.refs import TRACKER_KEY
from delta.dossier.transport import TrackerFailure, exchange

FIELDS = "summary,status,description,comment,issuelinks"


def adf_text(node: object) -> str:
    """Plain text (Markdown-ish) of an Atlassian Document Format node, as v3 returns descriptions,
    within RICH_TEXT_CHARS (the cut marked). Nodes nested deeper than RICH_TEXT_DEPTH give their
    text only, read without recursion."""
    return bounded_text(_adf(node, 0))


def _adf(node: object, depth: int) -> str:
    if node is None:
        return ""
    if isinstance(node, str):
        return node[:RICH_TEXT_CHARS + 1]
    if depth >= RICH_TEXT_DEPTH:
        return _flat_text(node)
    if isinstance(node, list):
        parts, size = [], 0
        for n in node:
            if size > RICH_TEXT_CHARS:
                break  # enough to fill the bound: the rest is not rendered
            parts.append(_adf(n, depth + 1))
            size += len(parts[-1])
        return "".join(parts)
    if not isinstance(node, Mapping):
        return ""
    kind = node.get("type")
    if kind == "text":
        return str(node.get("text", ""))[:RICH_TEXT_CHARS + 1]
    inner = _adf(node.get("content"), depth + 1)
    if kind == "hardBreak":
        return "\n"
    if kind == "heading":
        level = _attrs(node).get("level", 1)
        return "#" * (level if isinstance(level, int) and 1 <= level <= 6 else 1) + " " + inner + "\n"
    if kind in ("paragraph", "codeBlock", "blockquote"):
        return inner + "\n"
    if kind == "listItem":
        return "- " + inner.strip() + "\n"
    if kind == "taskItem":
        done = _attrs(node).get("state") == "DONE"
        return f"- [{'x' if done else ' '}] " + inner.strip() + "\n"
    return inner


def _attrs(node: Mapping) -> Mapping:
    attrs = node.get("attrs")
    return attrs if isinstance(attrs, Mapping) else {}


def _flat_text(node: object) -> str:
    """The text leaves under `node` in document order, up to the bound: a stack, not recursion."""
    parts: list[str] = []
    size = 0
    stack = [node]
    while stack and size <= RICH_TEXT_CHARS:
        current = stack.pop()
        if isinstance(current, str):
            parts.append(current[:RICH_TEXT_CHARS + 1])
        elif isinstance(current, list):
            stack.extend(reversed(current))
            continue
        elif isinstance(current, Mapping):
            if current.get("type") != "text":
                stack.append(current.get("content"))
                continue
            parts.append(str(current.get("text", ""))[:RICH_TEXT_CHARS + 1])
        else:
            continue
        size += len(parts[-1])  # a text node's too: the bound stops the reading (was: strings' only)
    return "".join(parts)


def _text(value: object) -> str:
    return bounded_text(value) if isinstance(value, str) else adf_text(value)


def parse_issue(key: str, payload: object, browse_base: str) -> Fetched:
    if not isinstance(payload, Mapping) or not isinstance(payload.get("fields"), Mapping):
        raise TrackerFailure("malformed_response", f"jira: the answer for {key} has no fields object")
    fields = payload["fields"]
    title = fields.get("summary")
    if not isinstance(title, str):
        raise TrackerFailure("malformed_response", f"jira: the answer for {key} has no summary")
    status = fields.get("status")
    state = str(status.get("name", "")) if isinstance(status, Mapping) else ""
    comments: list[Comment] = []
    thread = fields.get("comment")
    for c in first_comments(thread.get("comments") if isinstance(thread, Mapping) else None):
        author = c.get("author")
        name = str(author.get("displayName", "")) if isinstance(author, Mapping) else ""
        comments.append(Comment(name, str(c.get("created", "")), _text(c.get("body"))))
    links: list[str] = []
    for link in fields.get("issuelinks") or []:
        if isinstance(link, Mapping):
            for side in ("outwardIssue", "inwardIssue"):
                other = link.get(side)
                if isinstance(other, Mapping) and isinstance(other.get("key"), str):
                    links.append(other["key"])
    stated = payload.get("key")  # a moved issue answers under its new key
    real_key = stated if isinstance(stated, str) and TRACKER_KEY.fullmatch(stated) else key
    return Fetched(id=real_key, tracker="jira", title=title, state=state, body=_text(fields.get("description")),
                   url=f"{browse_base}/browse/{real_key}", comments=comments, links=links, raw=payload)


def fetch(key: str, cfg: JiraConfig, timeout: float, environ: Mapping[str, str] | None = None) -> Fetched:
    env = os.environ if environ is None else environ
    token = env.get(cfg.token_env)
    if not token:
        raise TrackerFailure("missing_config", f"jira: environment variable {cfg.token_env} is not set")
    base = cfg.base_url.rstrip("/")
    # one path segment whatever the key holds: a `/` left as it is would climb to another endpoint
    url = f"{base}/rest/api/{cfg.api_version}/issue/{urllib.parse.quote(key, safe='')}?fields={FIELDS}"
    _, payload = exchange("GET", url, auth=f"Bearer {token}", timeout=timeout, tracker="jira", secret=token)
    return parse_issue(key, payload, base)
