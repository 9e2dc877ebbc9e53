"""Linear issues over the GraphQL API, API key from a named env var read at call time."""

from __future__ import annotations

import os
from typing import Mapping

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from delta.dossier.answers import NULL, Json, Named, decoded, first, is_empty, items, read_answer, text
from delta.dossier.config import LinearConfig
from delta.dossier.items import MAX_COMMENTS, Comment, Fetched, bounded_text
from delta.dossier.transport import TrackerFailure, exchange

QUERY = """query DossierIssue($id: String!) {
  issue(id: $id) {
    identifier title description url
    state { name }
    comments(first: 100) { nodes { body createdAt user { name } } }
    relations(first: 50) { nodes { type relatedIssue { identifier } } }
  }
}"""


class _Error(Struct):
    message: Raw = NULL
    extensions: Raw = NULL


class _Extensions(Struct):
    code: Raw = NULL
    type: Raw = NULL


class _Nodes(Struct):
    nodes: Raw = NULL


class _Comment(Struct):
    body: Raw = NULL
    createdAt: Raw = NULL
    user: Raw = NULL


class _Relation(Struct):
    relatedIssue: Raw = NULL


class _Identified(Struct):
    identifier: Raw = NULL


class _Issue(Struct):
    title: str
    identifier: Raw = NULL
    description: Raw = NULL
    url: Raw = NULL
    state: Raw = NULL
    comments: Raw = NULL
    relations: Raw = NULL


class _Data(Struct):
    issue: _Issue | None | UnsetType = UNSET


class LinearAnswer(Struct):
    """The parts of Linear's GraphQL answer a dossier reads; every other is skipped unmade."""

    data: Raw = NULL
    errors: Raw = NULL


def _graphql_failure(errors: Json, key: str) -> TrackerFailure:
    """Classify a GraphQL `errors` list by its extension codes, falling back to the message."""
    auth = missing = False
    for entry in items(errors):
        e = decoded(entry, _Error)
        if e is None:
            continue
        codes: list[str] = []
        ext = decoded(e.extensions, _Extensions)
        if ext is not None:
            codes += [text(ext.code).upper(), text(ext.type).upper()]
        codes.append(text(e.message).upper())
        joined = " ".join(codes)
        auth = auth or "AUTHENTICATION" in joined or "FORBIDDEN" in joined or "UNAUTHORIZED" in joined
        missing = missing or "NOT_FOUND" in joined or "NOT FOUND" in joined
    if auth:
        return TrackerFailure("unauthorized", f"linear refused the credentials for {key}")
    if missing:
        return TrackerFailure("not_found", f"linear has no issue {key}")
    return TrackerFailure("tracker_unavailable", f"linear answered with an error for {key}")


def _nodes(value: Json) -> Json:
    nodes = decoded(value, _Nodes)
    return nodes.nodes if nodes is not None else NULL


def parse_issue(key: str, data: bytes) -> Fetched:
    """The ticket of Linear's answer `data` (its JSON, kept as the ticket's raw answer)."""
    payload = read_answer(data, LinearAnswer, f"linear sent a body for {key} that is not usable JSON",
                          f"linear: the answer for {key} is not an object")
    if not is_empty(payload.errors):
        raise _graphql_failure(payload.errors, key)
    try:
        found = decoded(payload.data, _Data)
    except msgspec.ValidationError:  # an issue of no object shape, or without a title
        raise TrackerFailure("malformed_response", f"linear: the issue {key} has no title") from None
    if found is None or found.issue is UNSET:
        raise TrackerFailure("malformed_response", f"linear: the answer for {key} has no data.issue")
    issue = found.issue
    if issue is None:
        raise TrackerFailure("not_found", f"linear has no issue {key}")
    state = decoded(issue.state, Named)
    comments = []
    for n, entry in enumerate(items(_nodes(issue.comments))):
        if n == MAX_COMMENTS:
            break
        c = decoded(entry, _Comment)
        if c is not None:
            user = decoded(c.user, Named)
            comments.append(Comment(text(user.name) if user is not None else "", text(c.createdAt),
                                    bounded_text(text(c.body))))
    links = []
    for entry in items(_nodes(issue.relations)):
        r = decoded(entry, _Relation)
        related = decoded(r.relatedIssue, _Identified) if r is not None else None
        if related is not None and first(related.identifier) == ord('"'):
            links.append(text(related.identifier))
    return Fetched(id=text(issue.identifier) or key, tracker="linear", title=issue.title,
                   state=text(state.name) if state is not None else "",
                   body=bounded_text(text(issue.description)), url=text(issue.url),
                   comments=comments, links=links, raw=Raw(data))


def fetch(key: str, cfg: LinearConfig, timeout: float, environ: Mapping[str, str] | None = None) -> Fetched:
    env = os.environ if environ is None else environ
    token = env.get(cfg.token_env)
    if not token:
        raise TrackerFailure("missing_config", f"linear: environment variable {cfg.token_env} is not set")
    auth = f"{cfg.auth_scheme} {token}" if cfg.auth_scheme else token
    _, data = exchange("POST", cfg.base_url, auth=auth, body={"query": QUERY, "variables": {"id": key}},
                          timeout=timeout, tracker="linear", secret=token, accept=(400,))
    return parse_issue(key, data)
