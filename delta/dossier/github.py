"""GitHub issues and pull requests through the `gh` CLI.

The token stays inside gh: we never read, pass or set it; gh finds its own
credentials. `gh api repos/O/R/issues/N` answers for issues and pull requests
alike; the comment thread comes from `.../comments` and is persisted, not inlined.

The references come from the change under review, which is not trusted, and gh reads with the
user's credentials: an issue of another repository is read only when that repository is public
(`gh api repos/O/R` says so) or the user allowed it (`dossier.github_allow`), so the change
cannot choose which private repository ends up in a dossier that may be published. See
`RepoAccess`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from typing import Iterable

from msgspec import Raw, Struct

from delta.dossier.answers import NULL, decoded, first, is_empty, items, read_answer, text
from delta.dossier.items import MAX_COMMENTS, Comment, Fetched, bounded_text
from delta.dossier.refs import PR_BODY, Reference, Source, extract_references
from delta.dossier.transport import MAX_RESPONSE_BYTES, TrackerFailure
from indexer.contract.memory_limit import room_for_thread, start_thread


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


STDERR_BYTES = 64 * 1024  # of gh's error text; only its status line is looked at


def _run_gh(argv: list[str], timeout: float, what: str, cwd: str | None) -> tuple[int, bytes, str]:
    """(exit status, stdout, the start of stderr) of gh, read as it writes: refused
    (`malformed_response`) once stdout passes MAX_RESPONSE_BYTES and stopped at `timeout`,
    however much or however slowly it writes."""
    # Room for the two threads below is asked before gh runs: refused after, it would be left running.
    room_for_thread(2)
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                env=_gh_env(), cwd=cwd)
    except OSError:
        raise TrackerFailure("tracker_unavailable", "the gh CLI could not be started") from None
    assert proc.stdout is not None and proc.stderr is not None
    errors = bytearray()
    expired = threading.Event()

    def read_errors(fd: int) -> None:  # drained to the end, so gh never blocks on a full pipe
        while chunk := os.read(fd, 65536):
            errors.extend(chunk[:max(0, STDERR_BYTES - len(errors))])

    def expire() -> None:
        expired.set()
        proc.kill()

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    reader = threading.Thread(target=read_errors, args=(proc.stderr.fileno(),), daemon=True)
    out = bytearray()
    with proc:
        try:
            start_thread(timer)
            start_thread(reader)
            while chunk := os.read(proc.stdout.fileno(), 65536):
                out += chunk
                if len(out) > MAX_RESPONSE_BYTES:
                    raise TrackerFailure("malformed_response",
                                         f"gh sent more than {MAX_RESPONSE_BYTES} bytes for {what}")
        except BaseException:
            proc.kill()
            raise
        finally:
            returncode = proc.wait()  # the timer ends a gh that holds on past the deadline
            timer.cancel()
            if reader.ident is not None:  # started
                reader.join()
    if expired.is_set():
        raise TrackerFailure("timeout", f"gh did not answer for {what} in time")
    return returncode, bytes(out), errors.decode("utf-8", "replace")


class _Repository(Struct):
    private: bool
    visibility: Raw = Raw(b'"public"')  # GitHub.com leaves it out: its repositories are public or private


class _Pull(Struct):
    merged_at: Raw = NULL


class _Issue(Struct):
    """The fields of GitHub's issue answer a dossier reads; every other is skipped unmade."""

    title: str
    state: Raw = NULL
    body: Raw = NULL
    html_url: Raw = NULL
    comments: Raw = NULL
    pull_request: Raw = NULL


class _Comment(Struct):
    user: Raw = NULL
    created_at: Raw = NULL
    body: Raw = NULL


class _User(Struct):
    login: Raw = NULL


def _gh_api(gh: str, path: str, what: str, deadline: float, cwd: str | None) -> bytes:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TrackerFailure("timeout", f"gh did not answer for {what} in time")
    returncode, stdout, stderr = _run_gh([gh, "api", "-H", "Accept: application/vnd.github+json", path],
                                         remaining, what, cwd)
    if returncode != 0:
        raise _classify(returncode, stderr, what)
    return stdout


def _unusable(what: str) -> str:
    return f"gh sent output that is not usable JSON for {what}"


def _state(issue: _Issue) -> str:
    pull = decoded(issue.pull_request, _Pull)
    if pull is not None and not is_empty(pull.merged_at):
        return "merged"
    return text(issue.state)


class RepoAccess:
    """Which repositories' issues may be read with the user's gh credentials, within one retrieval.

    The home repository (the user's own setting or the clone's github.com remote) and those the
    user allowed are read as they are; any other only once `gh api repos/O/R` has said it is
    public, an answer kept per repository for the rest of the retrieval. A repository that is
    not public and one gh cannot see are refused alike (`other_repository`), so a published
    dossier does not tell which private repositories exist."""

    def __init__(self, home: str, allow: Iterable[str] = ()) -> None:
        self.home = home.lower()
        self.allow = {name.lower() for name in allow}
        self._answers: dict[str, bool | TrackerFailure] = {}

    def vouched(self, repo: str) -> bool:
        name = repo.lower()
        return name == self.home or name in self.allow or f"{name.partition('/')[0]}/*" in self.allow

    def check(self, gh: str, repo: str, deadline: float, cwd: str | None) -> None:
        """Return when `repo`'s issues may be read; else raise the typed reason they are not."""
        if self.vouched(repo):
            return
        key = repo.lower()
        if key not in self._answers:
            try:
                self._answers[key] = _is_public(gh, repo, deadline, cwd)
            except TrackerFailure as failure:
                self._answers[key] = False if failure.code == "not_found" else failure
        answer = self._answers[key]
        if isinstance(answer, TrackerFailure):
            raise answer
        if not answer:
            raise TrackerFailure("other_repository",
                                 f"{repo} is not a public repository gh can read and is not in your "
                                 f"dossier.github_allow: not read with your gh credentials")


def access_key(home: str, allow: Iterable[str]) -> str:
    """What a `RepoAccess(home, allow)` lets gh read, spelled the same for the same access."""
    return f"github home={home.lower()} allow={','.join(sorted({name.lower() for name in allow}))}"


def _is_public(gh: str, repo: str, deadline: float, cwd: str | None) -> bool:
    what = f"repository {repo}"
    answer = read_answer(_gh_api(gh, f"repos/{repo}", what, deadline, cwd), _Repository, _unusable(what),
                         f"gh sent no visibility for {what}")
    # GitHub Enterprise's "internal" repositories are private to outsiders, whatever `private` says
    return answer.private is False and text(answer.visibility) == "public"


def fetch(ref: Reference, this_repo: str, timeout: float, cwd: str | None = None,
          access: RepoAccess | None = None) -> Fetched:
    """The issue or pull request `ref` names. `access` (default: only `this_repo` is vouched for)
    decides whether another repository's issue may be read at all."""
    repo = ref.repo or this_repo
    if not repo:
        raise TrackerFailure("missing_config", "github: this repository's owner/repo is unknown; "
                             "set dossier.github_repo or add a github.com remote")
    if any(part in ("", ".", "..") for part in repo.split("/")) or repo.count("/") != 1:
        raise TrackerFailure("not_found", f"github: {repo[:100]} is no repository name")
    gh = shutil.which("gh")
    if gh is None:
        raise TrackerFailure("tracker_unavailable", "github: the gh CLI is not on PATH")
    what = f"{repo}#{ref.number}"
    deadline = time.monotonic() + timeout
    (access or RepoAccess(this_repo)).check(gh, repo, deadline, cwd)
    answer = _gh_api(gh, f"repos/{repo}/issues/{ref.number}", what, deadline, cwd)
    fetched, count = parse_issue(ref.id, answer, what, repo, this_repo)
    if count:
        thread = _gh_api(gh, f"repos/{repo}/issues/{ref.number}/comments?per_page=100", what, deadline, cwd)
        fetched.comments = parse_thread(thread, what)
    return fetched


def parse_issue(rid: str, data: bytes, what: str, repo: str, this_repo: str) -> tuple[Fetched, int]:
    """The ticket of gh's answer `data` for an issue or pull request, without its comments, and
    how many comments it says it has."""
    issue = read_answer(data, _Issue, _unusable(what), f"gh sent no issue title for {what}")
    count = 0
    if first(issue.comments) != ord("n"):  # null, or left out
        if first(issue.comments) not in b"-0123456789":  # true, text or a list is no count
            raise TrackerFailure("malformed_response", f"gh sent no comment count for {what}")
        count = read_answer(bytes(issue.comments), int, _unusable(what), f"gh sent no comment count for {what}")
    kind = "pull" if first(issue.pull_request) == ord("{") else "issue"
    body = bounded_text(text(issue.body))
    # the raw answer as gh sent it, in a wrapper naming its kind
    raw = Raw(b'{"kind":"' + kind.encode() + b'","issue":' + data + b"}")
    return Fetched(id=rid, tracker="github", title=issue.title, state=_state(issue), body=body,
                   url=text(issue.html_url), links=body_links(body, repo, this_repo), raw=raw), count


def parse_thread(data: bytes, what: str) -> list[Comment]:
    """The comments among the first MAX_COMMENTS entries of gh's answer for a thread."""
    thread = read_answer(data, Raw, _unusable(what), f"gh sent no comment list for {what}")
    if first(thread) != ord("["):
        raise TrackerFailure("malformed_response", f"gh sent no comment list for {what}")
    comments: list[Comment] = []
    for n, entry in enumerate(items(thread)):
        if n == MAX_COMMENTS:
            break
        c = decoded(entry, _Comment)
        if c is not None:
            user = decoded(c.user, _User)
            comments.append(Comment(text(user.login) if user is not None else "", text(c.created_at),
                                    bounded_text(text(c.body))))
    return comments


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
