"""GitHub issues and pull requests through the `gh` CLI.

The token stays inside gh: we never read, pass or set it; gh finds its own
credentials. `gh api repos/O/R/issues/N` answers for issues and pull requests
alike; the comment thread comes from `.../comments` and is persisted, not inlined.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from typing import Any, Mapping

from delta.dossier.items import Comment, Fetched, bounded_text
from delta.dossier.refs import PR_BODY, Reference, Source, extract_references
from delta.dossier.transport import MAX_RESPONSE_BYTES, TrackerFailure
from indexer.contract.decode import Undecodable, decode_json


def _gh_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GH_PROMPT_DISABLED": "1", "NO_COLOR": "1", "GH_NO_UPDATE_NOTIFIER": "1", "GH_PAGER": "cat"})
    return env


def _classify(returncode: int, stderr: str, what: str) -> TrackerFailure:
    """gh prints `gh: Not Found (HTTP 404)` and friends; exit 4 means not logged in."""
    if "HTTP 404" in stderr or "HTTP 410" in stderr:
        return TrackerFailure("not_found", f"github has no {what}")
    if returncode == 4 or "HTTP 401" in stderr or "HTTP 403" in stderr or "gh auth login" in stderr:
        return TrackerFailure("unauthorized", f"gh is not authorized to read {what}")
    return TrackerFailure("tracker_unavailable", f"gh failed to read {what} (exit {returncode})")


def _gh_api(gh: str, path: str, what: str, deadline: float, cwd: str | None) -> Any:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TrackerFailure("timeout", f"gh did not answer for {what} in time")
    try:
        proc = subprocess.run([gh, "api", "-H", "Accept: application/vnd.github+json", path],
                              capture_output=True, timeout=remaining, env=_gh_env(), cwd=cwd,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise TrackerFailure("timeout", f"gh did not answer for {what} in time") from None
    except OSError:
        raise TrackerFailure("tracker_unavailable", "the gh CLI could not be started") from None
    if proc.returncode != 0:
        raise _classify(proc.returncode, proc.stderr.decode("utf-8", "replace"), what)
    if len(proc.stdout) > MAX_RESPONSE_BYTES:
        raise TrackerFailure("malformed_response", f"gh sent more than {MAX_RESPONSE_BYTES} bytes for {what}")
    try:
        return decode_json(proc.stdout, max_bytes=MAX_RESPONSE_BYTES)
    except Undecodable as exc:
        raise TrackerFailure("malformed_response", f"gh sent output that is not usable JSON for {what} ({exc})") from None


def _state(issue: Mapping[str, Any]) -> str:
    pr = issue.get("pull_request")
    if isinstance(pr, Mapping) and pr.get("merged_at"):
        return "merged"
    return str(issue.get("state", ""))


def fetch(ref: Reference, this_repo: str, timeout: float, cwd: str | None = None) -> Fetched:
    repo = ref.repo or this_repo
    if not repo:
        raise TrackerFailure("missing_config", "github: this repository's owner/repo is unknown; "
                             "set dossier.github_repo or add a github.com remote")
    gh = shutil.which("gh")
    if gh is None:
        raise TrackerFailure("tracker_unavailable", "github: the gh CLI is not on PATH")
    what = f"{repo}#{ref.number}"
    deadline = time.monotonic() + timeout
    issue = _gh_api(gh, f"repos/{repo}/issues/{ref.number}", what, deadline, cwd)
    if not isinstance(issue, Mapping) or not isinstance(issue.get("title"), str):
        raise TrackerFailure("malformed_response", f"gh sent no issue title for {what}")
    comments: list[Comment] = []
    if int(issue.get("comments") or 0) > 0:
        thread = _gh_api(gh, f"repos/{repo}/issues/{ref.number}/comments?per_page=100", what, deadline, cwd)
        if not isinstance(thread, list):
            raise TrackerFailure("malformed_response", f"gh sent no comment list for {what}")
        for c in thread:
            if isinstance(c, Mapping):
                user = c.get("user")
                comments.append(Comment(str(user.get("login", "")) if isinstance(user, Mapping) else "",
                                        str(c.get("created_at", "")), bounded_text(str(c.get("body") or ""))))
    kind = "pull" if isinstance(issue.get("pull_request"), Mapping) else "issue"
    body = bounded_text(str(issue.get("body") or ""))
    return Fetched(id=ref.id, tracker="github", title=issue["title"], state=_state(issue),
                   body=body, url=str(issue.get("html_url") or ""),
                   comments=comments, links=body_links(body, repo, this_repo), raw={"kind": kind, "issue": issue})


def body_links(body: str, repo: str, this_repo: str) -> list[str]:
    """GitHub references in an issue body, as ids relative to this repository (`#5` of another
    repository's issue is that repository's #5)."""
    out = []
    for r in extract_references([Source(PR_BODY, "issue.body", body)], (), repo):
        if r.tracker != "github":
            continue
        full = r.repo or repo
        rid = f"#{r.number}" if this_repo and full.lower() == this_repo.lower() else f"{full}#{r.number}"
        if rid not in out:
            out.append(rid)
    return out
