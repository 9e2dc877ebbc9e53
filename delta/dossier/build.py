"""Building a dossier for one review target and patchset: extract, fetch, bound, persist.

Cheapest first: references are extracted from the branch name, the PR title and body
and the commits of merge-base..head; each is fetched from its tracker (gh, Jira, Linear);
every failure is a typed fact and the rest go on; items are bounded per item and
dossier-wide; the record is stored so the same patchset is served again without a fetch.
"""

from __future__ import annotations

import logging
import os
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

import msgspec
import pygit2
from msgspec import Struct

from delta.dossier import github, jira, linear
from delta.dossier.config import (
    ENV_OVERRIDES,
    READ_ENV,
    DossierConfig,
    github_repo,
    home_github_repo,
    load_config,
    user_config_path,
)
from delta.dossier.items import (
    MAX_PROVENANCE,
    RICH_TEXT_CHARS,
    TRUNCATED,
    Bounds,
    Fact,
    Fetched,
    Item,
    Omission,
    fit,
    make_item,
)
from delta.dossier.links import shown_links
from delta.dossier.persist import (
    Linked,
    Payload,
    load_record,
    payload_dir,
    record_key,
    save_record,
    sweep,
    write_payload,
)
from delta.dossier.refs import (
    BRANCH,
    COMMIT_BODY,
    COMMIT_SUBJECT,
    MAX_DIGITS,
    PR_BODY,
    PR_TITLE,
    TRACKER_KEY,
    Reference,
    Source,
    extract_references,
)
from delta.dossier.transport import TrackerFailure, redact
from delta.untrusted import untrusted
from indexer.contract.encode import encode_json
from indexer.contract.errors import StoreError
from indexer.contract.read_back import read_back_json
from indexer.contract.result import Unknown
from indexer.git.read import open_repo, repo_display_path, repo_identity, resolve_rev

if TYPE_CHECKING:
    from indexer.store.database import Store

SCHEMA = 2  # 2: fields that do not apply are absent, and unknowns typed, not blank
MAX_COMMITS = 1000  # commits of the range read for references; a longer range is read from its newest end
TOTAL_SECONDS = 120.0  # the whole retrieval; references left when it is spent become timeout facts
MAX_LINKS_PER_ITEM = 5  # linked tickets fetched (one hop) per item, for its payload only
MAX_LINKED = 20  # linked tickets fetched per dossier
# How much of the change's text is read for references: a commit message or a PR body can be any
# size, and finding references costs work and memory in proportion to what is read
SOURCE_CHARS = 1024 * 1024  # of one text (branch name, PR title or body, commit subject or body)
TOTAL_SOURCE_CHARS = 8 * 1024 * 1024  # of all of them, read in order
# A commit object larger is not read for references: a message of SOURCE_CHARS characters is
# at most four times that in UTF-8, and the rest of a commit is headers
COMMIT_READ_MAX = 16 * 1024 * 1024
# references past `max_references` named one omission each, up to this many (`references_total`
# counts them all): the change under review may name thousands, and the dossier stays bounded
MAX_REFERENCE_OMISSIONS = 100

log = logging.getLogger("rennet.dossier")


class ReviewTarget(Struct, omit_defaults=True):
    repo: str  # display path of the repository
    repo_id: str
    base_ref: str  # as given
    head_ref: str  # as given
    github_repo: str | Unknown  # owner/repo of this repository on GitHub
    branch: str | None = None  # head branch name when head names a branch; absent for a sha or tag


class Patchset(Struct):
    base_oid: str
    head_oid: str
    merge_base_oid: str | Unknown  # not_applicable when base and head share no history
    commits: int  # commits of merge-base..head read for references


# Said in every dossier, for the reviewer (often a model) it is handed to: what the trackers and
# the change wrote is there to be quoted, and may have been written to steer whoever reads it.
UNTRUSTED = untrusted("items' titles, states, bodies, criteria, links and URLs, and the facts' messages, are "
                      "what issue trackers sent", "references and their provenance are what the change under "
                      "review wrote")


class Dossier(Struct):
    """The bounded related-context dossier of one patchset; what the Delta packet's seam carries."""

    schema: int
    target: ReviewTarget
    patchset: Patchset
    config_origin: str
    references: list[Reference]
    references_total: int
    items: list[Item]
    facts: list[Fact]
    omissions: list[Omission]
    bounds: Bounds
    built_at: str
    payload_dir: str  # relative to the store home; holds one payload file per fetched item
    reused: bool = False  # served from the store without fetching
    untrusted: str = UNTRUSTED


_decode_stored = read_back_json(msgspec.json.Decoder(Dossier).decode)  # a dossier the store holds


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def head_branch(repo: pygit2.Repository, head: str) -> str:
    """The branch name `head` names (local or remote-tracking), or "" for a sha or tag."""
    name = head.removeprefix("refs/heads/")
    if f"refs/heads/{name}" in repo.references:
        return name
    if head.startswith("refs/remotes/") or f"refs/remotes/{head}" in repo.references:
        remote_ref = head.removeprefix("refs/remotes/")
        return remote_ref.split("/", 1)[1] if "/" in remote_ref else ""
    return ""


def _range_commits(repo: pygit2.Repository, base_oid: str, head_oid: str) -> tuple[str, list[str]]:
    """The merge base ("" when none) and the OIDs of merge-base..head, oldest first, at most
    MAX_COMMITS from the newest end. No commit is kept: each holds its whole message, and the
    change chooses how long those are."""
    from indexer.git.read import check_history, history_read

    check_history(repo)
    oids: list[str] = []
    with history_read(repo):
        merge_base = repo.merge_base(base_oid, head_oid)
        walker = repo.walk(head_oid, pygit2.enums.SortMode.TOPOLOGICAL)
        if merge_base is not None:
            walker.hide(merge_base)
        for commit in walker:
            oids.append(str(commit.id))
            if len(oids) >= MAX_COMMITS:
                break
    oids.reverse()  # oldest first
    return (str(merge_base) if merge_base is not None else ""), oids


def sources_of(branch: str, title: str | None, body: str | None, repo: pygit2.Repository,
               commits: list[str]) -> Iterator[Source]:
    """The texts of the change in the order they are read, one commit's message at a time. A
    commit object over COMMIT_READ_MAX bytes is not asked of libgit2, which reads an object
    whole: it gives an empty subject of its own kind, counted as a text cut."""
    if branch:
        yield Source(BRANCH, branch, branch)
    if title:
        yield Source(PR_TITLE, "pr.title", title)
    if body:
        yield Source(PR_BODY, "pr.body", body)
    for oid in commits:
        if repo.odb.read_header(oid)[1] > COMMIT_READ_MAX:
            yield Source(_UNREAD_COMMIT, oid, "")
            continue
        # as UTF-8 whatever its `encoding` header names: pygit2 decodes by that name with Python's
        # codecs, so the commit would choose the codec (`rot13`, `unicode_escape`, none at all)
        message = repo[oid].peel(pygit2.Commit).raw_message.decode("utf-8", "replace")
        subject, _, rest = message.partition("\n")
        yield Source(COMMIT_SUBJECT, oid, subject)
        if rest.strip():
            yield Source(COMMIT_BODY, oid, rest.strip("\n"))


def bounded_sources(sources: Iterable[Source]) -> tuple[list[Source], Fact | None]:
    """The sources as far as they are read (SOURCE_CHARS each, TOTAL_SOURCE_CHARS in all), and a
    `source_truncated` fact when any was cut: its references past the cut are not found. Each
    is cut as it comes, so no more than that is held whatever the change wrote."""
    out: list[Source] = []
    left, cut, unread = TOTAL_SOURCE_CHARS, 0, 0
    for source in sources:
        if source.kind == _UNREAD_COMMIT:
            unread += 1
            continue
        keep = min(len(source.text), SOURCE_CHARS, left)
        if keep < len(source.text):
            cut += 1
            source = Source(source.kind, source.where, source.text[:keep])
        left -= keep
        out.append(source)
    if not cut and not unread:
        return out, None
    said = [f"{cut} text(s) of the change were read in part for references ({SOURCE_CHARS} characters "
            f"each, {TOTAL_SOURCE_CHARS} in all)"] if cut else []
    said += [f"{unread} commit(s) over {COMMIT_READ_MAX >> 20} MiB were not read"] if unread else []
    return out, Fact("source_truncated", "change", "", "; ".join(said) + "; references past the cut were not found")


_UNREAD_COMMIT = "unread_commit"  # a commit past COMMIT_READ_MAX: never a text, only counted


Fetcher = Callable[[Reference, float], Fetched]  # the reference, and the seconds its exchange may take


def _fetcher_for(ref: Reference, cfg: DossierConfig, this_repo: str, cwd: str | None,
                 environ: Mapping[str, str] | None, access: github.RepoAccess) -> tuple[str, Fetcher]:
    """(tracker name, fetch function) for a reference; raises TrackerFailure(missing_config) when unroutable."""
    if ref.tracker == "github":
        return "github", lambda r, timeout: github.fetch(r, this_repo, timeout, cwd, access)
    key = ref.key or ref.id  # a tracker reference's id is its key
    tracker = ref.tracker if ref.tracker in ("jira", "linear") else cfg.tracker_for_key(key)
    section = {"jira": cfg.jira, "linear": cfg.linear}.get(tracker or "")
    if section is not None and not (section.base_url and section.token_env):
        raise TrackerFailure("missing_config",
                             f"{tracker}: no base_url and token_env from a trusted source for {key}; set "
                             f"[dossier.{tracker}] base_url and token_env in {user_config_path(environ)} or "
                             f"{ENV_OVERRIDES[f'{tracker}.base_url']} and {ENV_OVERRIDES[f'{tracker}.token_env']}"
                             f" (a repository's .rennet.toml may not name them)", tracker)
    if tracker in ("jira", "linear") and not cfg.reads_key(tracker, key):
        listed = "projects" if tracker == "jira" else "teams"
        raise TrackerFailure("other_project",
                             f"{key}: not among the {listed} of your own dossier.{tracker} settings "
                             f"({user_config_path(environ)}, {READ_ENV[f'{tracker}.{listed}']}); not read with "
                             f"your token: the change under review names it (list it there, or \"*\" for any)",
                             tracker)
    if tracker == "jira" and cfg.jira is not None:
        jcfg = cfg.jira
        return "jira", lambda r, timeout: jira.fetch(r.key or r.id, jcfg, timeout, environ)
    if tracker == "linear" and cfg.linear is not None:
        lcfg = cfg.linear
        return "linear", lambda r, timeout: linear.fetch(r.key or r.id, lcfg, timeout, environ)
    name = tracker or "tracker"
    raise TrackerFailure("missing_config",
                         f"no {name if tracker else 'Jira or Linear'} settings claim {key}; add "
                         f"[dossier.{tracker or 'jira'}] projects/teams to .rennet.toml, and base_url and "
                         f"token_env to your own config ({user_config_path(environ)})", tracker or None)


def _secrets(cfg: DossierConfig, environ: Mapping[str, str] | None) -> list[str]:
    env = os.environ if environ is None else environ
    return [v for c in (cfg.jira, cfg.linear) if c is not None and (v := env.get(c.token_env))]


def _scrub(text: str, secrets: list[str]) -> str:
    for s in secrets:
        text = redact(text, s)
    return text


def redact_fetched(fetched: Fetched, secrets: list[str]) -> tuple[Fetched, bool]:
    """The ticket with every configured token a tracker echoed back (in its title, body, thread
    or raw answer, at any depth) replaced by `[redacted]`, and whether any was. Done on the
    ticket's JSON form, so nesting costs no recursion here: our own fields spell each secret in
    msgspec's one escaped spelling; the raw answer, kept as the tracker sent it, in any spelling
    JSON allows (`_spelled_anyhow`). The start of a token that a reader's cut at RICH_TEXT_CHARS
    left is replaced too (`_redact_at_cuts`).

    The raw answer comes back as that JSON (`msgspec.Raw`), written into the payload as it is:
    decoded, an answer of millions of small values holds tens of times its size, and an item's
    payload holds its own answer and those of up to `MAX_LINKS_PER_ITEM` linked tickets at once."""
    raw = bytes(fetched.raw) if isinstance(fetched.raw, msgspec.Raw) else encode_json(fetched.raw)
    rest = encode_json(msgspec.structs.replace(fetched, raw=None))
    found = False
    for secret in secrets:
        spelled = encode_json(secret)[1:-1]
        if not spelled:
            continue
        if spelled in rest:
            rest, found = rest.replace(spelled, b"[redacted]"), True
        if b"\\" not in raw:  # every character spelled as itself: msgspec's spelling is the only one
            if spelled in raw:
                raw, found = raw.replace(spelled, b"[redacted]"), True
        else:
            raw, count = _spelled_anyhow(secret).subn(rb"\1[redacted]", raw)
            found = found or count > 0
        rest, cut = _redact_at_cuts(rest, spelled)
        found = found or cut
    if found:
        try:
            msgspec.json.decode(raw, type=msgspec.Raw)
        except msgspec.DecodeError:  # a token spelled like JSON's own syntax, outside any string
            raw = encode_json(raw.decode("utf-8", "replace"))
    kept = msgspec.json.decode(rest, type=Fetched) if found else msgspec.structs.replace(fetched, raw=None)
    kept.raw = msgspec.Raw(raw)
    return kept, found


_SHORT_ESCAPES = {'"': rb'\\"', "\\": rb"\\\\", "/": rb"/|\\/", "\b": rb"\\b", "\f": rb"\\f",
                  "\n": rb"\\n", "\r": rb"\\r", "\t": rb"\\t"}


def _escaped(code: int) -> bytes:
    """`\\uXXXX` of a code unit, its hex digits in either case."""
    return rb"\\u" + b"".join(f"[{c}{c.upper()}]".encode() if c.isalpha() else c.encode() for c in f"{code:04x}")


def _spelled_anyhow(secret: str) -> re.Pattern[bytes]:
    """Every spelling of `secret` inside a JSON string: each character as itself (where JSON lets
    it stand), as its short escape, or as `\\u` escapes, and begun after an even run of
    backslashes (an odd one would make its first character part of an escape). The run is group 1."""
    chars = []
    for ch in secret:
        code = ord(ch)
        forms = [_SHORT_ESCAPES[ch]] if ch in _SHORT_ESCAPES else []
        if code >= 0x20 and ch not in _SHORT_ESCAPES:
            forms.append(re.escape(ch.encode("utf-8", "surrogatepass")))
        if code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            forms.append(_escaped(0xD800 + high) + _escaped(0xDC00 + low))
        else:
            forms.append(_escaped(code))
        chars.append(b"(?:" + b"|".join(forms) + b")")
    return re.compile(rb"(?<!\\)((?:\\\\)*)" + b"".join(chars))


# A body or comment cut at RICH_TEXT_CHARS by its reader, as its JSON spells the mark of the cut
_CUT = encode_json(TRUNCATED.format(chars=RICH_TEXT_CHARS))[1:-1]
CUT_PREFIX_CHARS = 4  # a shorter start of a token before a cut is left: it tells nothing of it


def _redact_at_cuts(text: bytes, spelled: bytes) -> tuple[bytes, bool]:
    """`text` with the start of a token that runs into the mark of a cut replaced by `[redacted]`:
    a reader cut the text there, before the token could be looked for whole."""
    pieces: list[bytes] = []
    at = 0
    found = False
    while (mark := text.find(_CUT, at)) != -1:
        for k in range(min(len(spelled) - 1, mark - at), CUT_PREFIX_CHARS - 1, -1):
            if text[mark - k:mark] == spelled[:k]:
                pieces += (text[at:mark - k], b"[redacted]")
                at, found = mark, True
                break
        pieces.append(text[at:mark + len(_CUT)])
        at = mark + len(_CUT)
    pieces.append(text[at:])
    return b"".join(pieces), found


def retrieval_key(cfg: DossierConfig, github_home: str) -> str:
    """What a retrieval under `cfg` read and from where, spelled the same for the same: which
    repositories gh may read, and each tracker's URL, API, token variable and the projects or
    teams read with it. A stored dossier is served only under the same, so answers one tracker
    gave (a test server's, another site's) are never served as another's, nor issues read with
    a token to a run without it."""
    parts = [github.access_key(github_home, cfg.github_allow)]
    if cfg.jira is not None and cfg.jira.base_url and cfg.jira.token_env:
        parts.append(f"jira url={cfg.jira.base_url} api={cfg.jira.api_version} token_env={cfg.jira.token_env} "
                     f"read={_listed(cfg.trusted_projects)}")
    if cfg.linear is not None and cfg.linear.base_url and cfg.linear.token_env:
        parts.append(f"linear url={cfg.linear.base_url} token_env={cfg.linear.token_env} "
                     f"scheme={cfg.linear.auth_scheme} read={_listed(cfg.trusted_teams)}")
    return "\n".join(parts)


def _listed(names: list[str]) -> str:
    return ",".join(sorted({n.upper() for n in names}))


def build_dossier(repo_path: str | os.PathLike[str] | pygit2.Repository, base: str, head: str, title: str | None = None,
                  body: str | None = None, store: Store | None = None, refresh: bool = False,
                  config: Mapping[str, object] | DossierConfig | None = None, *,
                  environ: Mapping[str, str] | None = None,
                  flags: Mapping[str, str | None] | None = None) -> Dossier:
    """The dossier of base..head, from the store when this patchset was already retrieved.

    `store` is an `indexer.store.database.Store` (opened at the default home when None); `config`
    overrides every other source (see `delta.dossier.config`); `flags` are the trusted settings
    given on the command line ("jira.base_url" and the like); `environ` is where token
    environment variables are looked up (os.environ when None), read at call time.
    """
    repo = repo_path if isinstance(repo_path, pygit2.Repository) else open_repo(repo_path)
    base_oid = resolve_rev(repo, base)
    head_oid = resolve_rev(repo, head)
    branch = head_branch(repo, head)
    cfg = load_config(repo, head_oid, config, environ=environ, flags=flags)
    this_repo = github_repo(repo, cfg)
    repo_id = repo_identity(repo)
    target = ReviewTarget(repo=repo_display_path(repo), repo_id=repo_id, base_ref=base, head_ref=head,
                          branch=branch or None, github_repo=this_repo or Unknown(
                              "not_recorded", "no dossier.github_repo setting and no github.com remote"))
    home = home_github_repo(repo, cfg)
    key = record_key(repo_id, base, head, base_oid, head_oid, retrieval_key(cfg, home))

    own_store = store is None
    if store is None:
        from indexer.store.database import Store

        store = Store.open()
    try:
        if not refresh and (stored := load_record(store, key)) is not None:
            try:
                dossier = _decode_stored(stored)
            except msgspec.DecodeError:
                dossier = None  # an older shape: retrieve again
            if dossier is not None and dossier.schema == SCHEMA:
                log.debug("dossier for %s..%s reused from the store", base_oid[:12], head_oid[:12])
                dossier.reused = True
                return dossier
        dossier = _retrieve(repo, target, base_oid, head_oid, title, body, cfg, home, store.home, key, environ)
        save_record(store, key, encode_json(dossier))
        sweep(store, key)
        return dossier
    finally:
        if own_store:
            store.close()


class _Retrieval:
    """Fetching for one dossier: routes references, keeps the time budget, turns failures into facts."""

    def __init__(self, cfg: DossierConfig, this_repo: str, home: str, cwd: str | None,
                 environ: Mapping[str, str] | None) -> None:
        self.cfg = cfg
        self.this_repo = this_repo
        self.access = github.RepoAccess(home, cfg.github_allow)  # for direct and linked references alike
        self.cwd = cwd
        self.environ = environ
        self.secrets = _secrets(cfg, environ)
        self.timed_out: set[str] = set()
        self.notes: list[Fact] = []  # about tickets that were read: a token redacted, a link dropped
        self.deadline = time.monotonic() + TOTAL_SECONDS

    def fetch(self, ref: Reference) -> Fetched | Fact:
        tracker = ref.tracker
        try:
            tracker, fetch = _fetcher_for(ref, self.cfg, self.this_repo, self.cwd, self.environ, self.access)
            ref.tracker = tracker  # a bare key now names the tracker the settings route it to
            if tracker in self.timed_out:
                raise TrackerFailure("timeout", f"{tracker} timed out earlier in this retrieval; {ref.id} not asked")
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TrackerFailure("timeout", f"retrieval time budget of {TOTAL_SECONDS:g}s spent; "
                                                f"{ref.id} not asked")
            log.debug("fetching %s %s", tracker, ref.id)
            try:
                # no exchange outlasts the retrieval's budget, whatever timeout the settings give
                got, redacted = redact_fetched(fetch(ref, min(self.cfg.timeout_seconds, left)), self.secrets)
                if redacted:
                    self.notes.append(Fact("redacted", tracker, ref.id,
                                           f"{tracker} echoed a configured token in {ref.id}; it is replaced "
                                           f"by [redacted] everywhere it was stored"))
                got, dropped = shown_links(got, ref.id)
                self.notes += dropped
                return got
            except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError) as exc:
                # a payload of a shape the parser did not foresee: this reference fails, the rest go on
                raise TrackerFailure("malformed_response",
                                     f"{tracker} answered {ref.id} in an unexpected shape ({type(exc).__name__})")
        except TrackerFailure as failure:
            tracker = failure.tracker or tracker  # a bare key: the tracker its settings route it to, if any
            if failure.code == "timeout":
                self.timed_out.add(tracker)
            message = _scrub(failure.message, self.secrets)
            log.info("dossier: %s %s: %s", failure.code, ref.id, message)
            return Fact(failure.code, tracker, ref.id, message)


def _link_reference(link: str, tracker: str) -> Reference | None:
    """A reference for a linked ticket id as a tracker lists it (`ABC-1`, `#5`, `owner/repo#5`),
    or None for a link of no such shape: the tracker's answer names it, and its id becomes a
    request path sent with the token (`../../myself` would be another endpoint of the API)."""
    if tracker == "github":
        repo, _, number = link.rpartition("#")
        if not (number.isascii() and number.isdigit() and len(number) <= MAX_DIGITS):
            return None
        return Reference(id=link, tracker="github", number=int(number), repo=repo)
    if not TRACKER_KEY.fullmatch(link):
        return None
    return Reference(id=link, tracker=tracker, key=link)


def _linked(retrieval: _Retrieval, fetched: Fetched, direct: set[str], budget: list[int]) -> list[Linked]:
    """One hop: the tickets an item links to, fetched for its payload (never for the dossier)."""
    out: list[Linked] = []
    for link in fetched.links[:MAX_LINKS_PER_ITEM]:
        ref = _link_reference(link, fetched.tracker)
        if ref is None or ref.id in direct or budget[0] <= 0:
            continue
        budget[0] -= 1
        got = retrieval.fetch(ref)
        if isinstance(got, Fact):
            out.append(Linked(id=ref.id, tracker=ref.tracker, fact=got))
        else:
            out.append(Linked(id=ref.id, tracker=got.tracker, fetched_at=_now(), title=got.title, state=got.state,
                              body=got.body, url=got.url, comments=got.comments, raw=got.raw))
    return out


def _retrieve(repo: pygit2.Repository, target: ReviewTarget, base_oid: str, head_oid: str, title: str | None,
              body: str | None, cfg: DossierConfig, github_home: str, home: Path, key: bytes,
              environ: Mapping[str, str] | None) -> Dossier:
    merge_base, commits = _range_commits(repo, base_oid, head_oid)
    this_repo = target.github_repo if isinstance(target.github_repo, str) else ""
    sources, truncated = bounded_sources(sources_of(target.branch or "", title, body, repo, commits))
    passed: list[str] = []
    refs = extract_references(sources, cfg.prefixes(), this_repo, passed)
    total = len(refs)
    kept_refs, over = refs[:cfg.max_references], refs[cfg.max_references:]
    bounds = Bounds(cfg.item_body_chars, cfg.item_bytes, cfg.dossier_bytes)
    folder = payload_dir(target.repo_id, key, head_oid)
    retrieval = _Retrieval(cfg, this_repo, github_home, repo.workdir or None, environ)
    direct = {r.id for r in kept_refs}
    link_budget = [MAX_LINKED]

    items: list[Item] = []
    facts: list[Fact] = list(cfg.refused) + ([truncated] if truncated else [])
    facts += [Fact("unconfirmed_key", "tracker", key, f"{key} reads as a tracker key, but its prefix is not "
                   "configured (tracker_prefixes, or Jira projects or Linear teams) and the change names no "
                   "other key of it: not taken for a reference") for key in passed]
    for ref in kept_refs:
        got = retrieval.fetch(ref)
        if isinstance(got, Fact):
            facts.append(got)
            continue
        fetched_at = _now()
        payload = Payload(id=ref.id, tracker=got.tracker, fetched_at=fetched_at, comments=got.comments,
                          links=got.links, raw=got.raw, linked=_linked(retrieval, got, direct, link_budget))
        try:
            rel = write_payload(home, folder, payload)
        except OSError as exc:
            raise StoreError(f"cannot write dossier payload under {home}: {exc.strerror or type(exc).__name__}") \
                from None
        items.append(make_item(got, ref, fetched_at, bounds, rel))

    facts += retrieval.notes
    kept_items, omissions = fit(items, bounds)
    omissions += [Omission(r.id, r.tracker, "max_references", 0) for r in over[:MAX_REFERENCE_OMISSIONS]]
    shown_refs = [msgspec.structs.replace(r, provenance=r.provenance[:MAX_PROVENANCE]) for r in kept_refs]
    return Dossier(schema=SCHEMA, target=target,
                   patchset=Patchset(base_oid, head_oid, merge_base or Unknown(
                       "not_applicable", "base and head share no history"), len(commits)),
                   config_origin=cfg.origin, references=shown_refs, references_total=total,
                   items=kept_items, facts=facts, omissions=omissions, bounds=bounds, built_at=_now(),
                   payload_dir=folder)
