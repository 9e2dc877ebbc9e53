"""Linear issues over the GraphQL API, API key from a named env var read at call time."""

from __future__ import annotations

import os
from typing import Mapping

from delta.dossier.config import LinearConfig
from delta.dossier.items import Comment, Fetched, bounded_text, first_comments
from delta.dossier.transport import TrackerFailure, exchange

QUERY = """query DossierIssue($id: String!) {
  issue(id: $id) {
    identifier title description url
    state { name }
    comments(first: 100) { nodes { body createdAt user { name } } }
    relations(first: 50) { nodes { type relatedIssue { identifier } } }
  }
}"""


def _graphql_failure(errors: object, key: str) -> TrackerFailure:
    """Classify a GraphQL `errors` list by its extension codes, falling back to the message."""
    codes: list[str] = []
    for e in errors if isinstance(errors, list) else []:
        if isinstance(e, Mapping):
            ext = e.get("extensions")
            if isinstance(ext, Mapping):
                codes += [str(ext.get("code", "")).upper(), str(ext.get("type", "")).upper()]
            codes.append(str(e.get("message", "")).upper())
    joined = " ".join(codes)
    if "AUTHENTICATION" in joined or "FORBIDDEN" in joined or "UNAUTHORIZED" in joined:
        return TrackerFailure("unauthorized", f"linear refused the credentials for {key}")
    if "NOT_FOUND" in joined or "NOT FOUND" in joined:
        return TrackerFailure("not_found", f"linear has no issue {key}")
    return TrackerFailure("tracker_unavailable", f"linear answered with an error for {key}")


def parse_issue(key: str, payload: object) -> Fetched:
    if not isinstance(payload, Mapping):
        raise TrackerFailure("malformed_response", f"linear: the answer for {key} is not an object")
    if payload.get("errors"):
        raise _graphql_failure(payload["errors"], key)
    data = payload.get("data")
    if not isinstance(data, Mapping) or "issue" not in data:
        raise TrackerFailure("malformed_response", f"linear: the answer for {key} has no data.issue")
    issue = data["issue"]
    if issue is None:
        raise TrackerFailure("not_found", f"linear has no issue {key}")
    if not isinstance(issue, Mapping) or not isinstance(issue.get("title"), str):
        raise TrackerFailure("malformed_response", f"linear: the issue {key} has no title")
    state = issue.get("state")
    comments = []
    for c in first_comments((issue.get("comments") or {}).get("nodes")):
        user = c.get("user")
        comments.append(Comment(str(user.get("name", "")) if isinstance(user, Mapping) else "",
                                str(c.get("createdAt", "")), bounded_text(str(c.get("body") or ""))))
    links = []
    for r in ((issue.get("relations") or {}).get("nodes") or []):
        if isinstance(r, Mapping) and isinstance(r.get("relatedIssue"), Mapping):
            ident = r["relatedIssue"].get("identifier")
            if isinstance(ident, str):
                links.append(ident)
    return Fetched(id=str(issue.get("identifier") or key), tracker="linear", title=issue["title"],
                   state=str(state.get("name", "")) if isinstance(state, Mapping) else "",
                   body=bounded_text(str(issue.get("description") or "")), url=str(issue.get("url") or ""),
                   comments=comments, links=links, raw=payload)


def fetch(key: str, cfg: LinearConfig, timeout: float, environ: Mapping[str, str] | None = None) -> Fetched:
    env = os.environ if environ is None else environ
    token = env.get(cfg.token_env)
    if not token:
        raise TrackerFailure("missing_config", f"linear: environment variable {cfg.token_env} is not set")
    auth = f"{cfg.auth_scheme} {token}" if cfg.auth_scheme else token
    _, payload = exchange("POST", cfg.base_url, auth=auth, body={"query": QUERY, "variables": {"id": key}},
                          timeout=timeout, tracker="linear", secret=token, accept=(400,))
    return parse_issue(key, payload)
