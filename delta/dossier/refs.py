"""Deterministic extraction of issue references from a change's text.

Sources are the branch name, the commit subjects and bodies of the reviewed
range, and the PR title and body when given. Nothing here touches the network:
the same sources always give the same references, in the same order.

Forms recognised: `#123`, `GH-123`, `owner/repo#123`, GitHub issue and pull
request URLs, Jira `/browse/ABC-1` URLs, Linear `linear.app/<team>/issue/ABC-1`
URLs, closing keywords (`fixes #12`), and tracker keys `ABC-123` when the
prefix is configured for the project or seen at least twice across the sources.
Code spans and URLs that are not issue URLs are masked before the short forms
are matched, so `a/b#1` inside `https://x/a/b#1` or `#3` inside backticks is no
reference.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterable

from msgspec import Struct, field

from delta.dossier.web_link import link_refusal

# Source kinds, in the order sources are read.
BRANCH = "branch"
PR_TITLE = "pr_title"
PR_BODY = "pr_body"
COMMIT_SUBJECT = "commit_subject"
COMMIT_BODY = "commit_body"


class Source(Struct, frozen=True):
    """One piece of text to read: its kind, where it came from (branch name, commit OID, field) and the text."""

    kind: str
    where: str
    text: str


class Provenance(Struct, frozen=True, order=True):
    """Where one reference was found: source kind, location (commit OID, branch name or field) and the text as written."""

    source: str
    where: str
    text: str


class Reference(Struct, omit_defaults=True):
    """An issue reference. `id` is canonical: `#12` (this repository), `owner/repo#12`, or a tracker key `ABC-12`.
    A field that does not apply to the reference's kind is absent, never a blank."""

    id: str
    tracker: str  # "github" | "jira" | "linear" | "tracker" (a key whose tracker the config decides)
    number: int | None = None  # GitHub issue or PR number
    repo: str | None = None  # "owner/repo" of a GitHub reference to another repository; absent for this one
    key: str | None = None  # tracker key, upper case
    url: str | None = None  # the URL the reference was first seen as, if any
    closing: bool = False  # preceded by a closing keyword somewhere (fixes/closes/resolves)
    provenance: list[Provenance] = field(default_factory=list)
    provenance_total: int = 0  # provenances found; `provenance` may be clipped when a dossier is bounded


# Prefixes that look like tracker keys but name standards, encodings, versions or words.
# A configured prefix overrides this list.
MAX_PASSED = 20  # keys passed over that a dossier names, each in a fact of its own

NOT_TRACKER_PREFIXES = frozenset("""
    UTF UCS ISO IEC IEEE RFC PEP CVE CWE GHSA ECMA ES SHA MD CRC AES DES RSA ECDSA TLS SSL HTTP
    HTTPS IPV CP WIN WINDOWS LATIN ASCII ANSI KOI EUC GB BIG JIS UTC GMT COVID SARS
    PY PYTHON NODE GO JAVA JDK LLVM GCC CLANG GPT ARM ARMV AVX SSE BASE INT UINT FLOAT
    ISSUE ISSUES BUG BUGS PR PULL FIX FIXES HOTFIX FEATURE FEAT RELEASE VERSION GH TOP STEP PHASE
    PART ROUND LEVEL TYPE SIZE NUMBER NO NR VOL CHAPTER PAGE SECTION ITEM
""".split())

# Branch segment words whose numbered children are releases, not issues (`release/123`).
MAX_DIGITS = 18  # a longer number is no issue's (and past 4,300 digits `int` refuses to read it)
# What one reference keeps of the text that named it: the reviewed change writes that text, and
# a dossier echoes it; a reference found more often keeps its first provenances and counts all.
PROVENANCE_CHARS = 512
MAX_KEPT_PROVENANCE = 100
# The shape of a Jira or Linear key wherever one comes from (the change, or a tracker's answer
# naming a linked ticket): a prefix as long as the trackers allow and an issue-sized number
TRACKER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}-[0-9]{1,18}")
RELEASE_WORDS = frozenset({"release", "releases", "rel", "version", "versions", "v", "tag", "tags", "stable"})

_CLOSING = re.compile(r"(?i)\b(?:fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)\s*:?\s+$")
# A fence's opening run is atomic: with no newline after it (the text's last line) a shorter run
# fails too, and trying each one again read the line once a character, the square of the line.
_FENCE = re.compile(r"(?ms)^[ \t]*((?>```+|~~~+))[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_TICKS = re.compile(r"`+")
_URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>\"'`]+")
_URL_TRAIL = ".,;:!?)]}>*_'\""
# Names as long as the trackers allow at most (GitHub: owner 39, repository 100 characters), so
# an id the change writes stays short wherever it is spelled (a payload file is named by it).
_GITHUB_URL = re.compile(
    r"(?i)^(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9][A-Za-z0-9._-]{0,38})/([A-Za-z0-9._-]{1,100})"
    r"/(issues|pull|pulls)/([0-9]+)(?:[/#?].*)?$")
_JIRA_URL = re.compile(r"^(?:https?://)?[^/\s]+(?:/[^\s]*)?/browse/([A-Z][A-Z0-9_]{1,63})-([0-9]+)(?:[/#?].*)?$")
_LINEAR_URL = re.compile(r"(?i)^(?:https?://)?(?:www\.)?linear\.app/[\w.-]+/issue/([A-Za-z][A-Za-z0-9]{0,63})-([0-9]+)(?:[/#?].*)?$")
_OWNER_REPO = re.compile(
    r"(?<![\w.\-/@#])([A-Za-z0-9](?:[A-Za-z0-9._-]{0,37}[A-Za-z0-9_])?)/([A-Za-z0-9._-]{0,99}[A-Za-z0-9_])#([0-9]+)"
    r"(?!\w)")
_GH_KEY = re.compile(r"(?i)(?<![\w\-/#])GH-([0-9]+)(?![\w]|-[0-9]|\.[0-9])")
_HASH = re.compile(r"(?<![\w&#/\\])#([0-9]+)(?!\w)")
_TEXT_KEY = re.compile(r"(?<![\w\-/.#])([A-Z][A-Z0-9]{1,9})-([0-9]+)(?!\w|-[0-9]|\.[0-9])")

# a key followed by more numbers is a date or version (`proj-2024-01-05`, `proj-1.2`), as in a message
_BRANCH_KEY = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9]{1,9})-([0-9]+)(?![0-9]|-[0-9]|\.[0-9])")
_BRANCH_LEADING_NUMBER = re.compile(r"^#?([0-9]+)(?:[-_]+[A-Za-z]|$)")
_BRANCH_ISSUE_WORD = re.compile(r"(?i)(?:^|[-_])(?:issue|issues|gh|bug|pr|pull|fix)[-_#]([0-9]+)(?=$|[-_])")
_BRANCH_HASH = re.compile(r"(?:^|[-_])#([0-9]+)(?=$|[-_])")


class _Candidate(Struct):
    tracker: str
    number: int = 0
    repo: str = ""
    key: str = ""
    url: str = ""
    closing: bool = False
    gated: bool = False  # a bare tracker key: admitted only by prefix rules
    provenance: Provenance | None = None


def _may_show(url: str) -> bool:
    """Whether a URL the change wrote may be a reference's `url`: the change under review is
    as untrusted as a tracker's answer, and the dossier shows the URL as a link (a `www.` one
    is read as the http link a renderer makes of it). A reference whose URL may not be shown
    is still found, with no `url`."""
    return link_refusal("http://" + url if url[:4].lower() == "www." else url) is None


def _number(digits: str) -> int | None:
    """The issue number `digits` spell, or None when they are too many to be one."""
    return int(digits) if len(digits) <= MAX_DIGITS else None


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each of the (start, end) spans, in order and apart, made blanks: spelled out
    once for all of them, as a copy a span would cost a commit of many links their square."""
    pieces: list[str] = []
    at = 0
    for start, end in spans:
        pieces += (text[at:start], " " * (end - start))
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _spans(matches: Iterable[re.Match[str]]) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The inline code spans of `text`, in order: where the pattern ``(`+)(?!`)(.+?)(?<!`)\\1(?!`)``
    (re.S) finds them. A span opens at any backtick of a run, taking the rest of the run, and
    closes at the first later run of exactly that length. Each opening looks up its closing
    among the runs of its length by a search, where the pattern read on to the text's end for
    each backtick of a run never closed: a message of one long run and text after it cost the
    square of its length."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    starts: dict[int, list[int]] = {}  # a run's length -> the starts of runs of that length, in order
    for start, end in runs:
        starts.setdefault(end - start, []).append(start)
    spans: list[tuple[int, int]] = []
    at = 0  # where the search goes on: the end of the last span
    for start, end in runs:
        if start < at:
            continue  # inside a span (a span ends where a run does)
        for opening in range(start, end):
            width = end - opening
            closing = starts.get(width, [])
            # a run starts past `end` at the earliest (runs are maximal), so the span holds a character
            found = bisect_right(closing, end)
            if found < len(closing):
                at = closing[found] + width
                spans.append((opening, at))
                break
    return spans


def _mask_code(text: str) -> str:
    """Blank out fenced blocks and inline code spans, keeping offsets."""
    text = _blank(text, _spans(_FENCE.finditer(text)))
    return _blank(text, _code_spans(text))


def _is_closing(text: str, start: int) -> bool:
    # searched in place, not in a slice: a slice would start inside a word such as `prefix`,
    # and its `\b` would find a keyword (`fix`) at the slice's start
    return bool(_CLOSING.search(text, max(0, start - 24), start))


def _scan_text(source: Source) -> list[_Candidate]:
    text = base = _mask_code(source.text)
    found: list[tuple[int, _Candidate]] = []

    def add(pos: int, written: str, cand: _Candidate) -> None:
        cand.provenance = Provenance(source.kind, source.where, written[:PROVENANCE_CHARS])
        found.append((pos, cand))

    # URLs first: issue URLs are references, every URL is then masked.
    urls = list(_URL.finditer(text))
    for m in urls:
        url = m.group(0).rstrip(_URL_TRAIL)
        closing = _is_closing(base, m.start())
        if g := _GITHUB_URL.match(url):
            if (number := _number(g.group(4))) is not None:
                add(m.start(), url, _Candidate("github", number=number, repo=f"{g.group(1)}/{g.group(2)}", url=url,
                                               closing=closing))
        elif g := _LINEAR_URL.match(url):
            if (number := _number(g.group(2))) is not None:
                add(m.start(), url, _Candidate("linear", key=f"{g.group(1).upper()}-{number}", url=url,
                                               closing=closing))
        elif g := _JIRA_URL.match(url):
            if (number := _number(g.group(2))) is not None:
                add(m.start(), url, _Candidate("jira", key=f"{g.group(1)}-{number}", url=url, closing=closing))
    text = _blank(text, _spans(urls))

    owner_repos = list(_OWNER_REPO.finditer(text))
    for m in owner_repos:
        if (number := _number(m.group(3))) is not None:
            add(m.start(), m.group(0), _Candidate("github", number=number, repo=f"{m.group(1)}/{m.group(2)}",
                                                  closing=_is_closing(base, m.start())))
    text = _blank(text, _spans(owner_repos))
    gh_keys = list(_GH_KEY.finditer(text))
    for m in gh_keys:
        if (number := _number(m.group(1))) is not None:
            add(m.start(), m.group(0), _Candidate("github", number=number, closing=_is_closing(base, m.start())))
    text = _blank(text, _spans(gh_keys))
    for m in _HASH.finditer(text):
        if (number := _number(m.group(1))) is not None:
            add(m.start(), m.group(0), _Candidate("github", number=number, closing=_is_closing(base, m.start())))
    for m in _TEXT_KEY.finditer(text):
        if (number := _number(m.group(2))) is not None:
            add(m.start(), m.group(0), _Candidate("tracker", key=f"{m.group(1)}-{number}",
                                                  closing=_is_closing(base, m.start()), gated=True))
    found.sort(key=lambda pc: pc[0])
    return [c for _, c in found]


def _scan_branch(source: Source) -> list[_Candidate]:
    """Numbers count only in issue-like positions; dates and versions never do."""
    out: list[_Candidate] = []
    segments = source.text.split("/")
    for i, seg in enumerate(segments):
        prev = segments[i - 1].lower() if i else ""
        numbers: list[tuple[int, str]] = []
        if (m := _BRANCH_LEADING_NUMBER.match(seg)) and not (seg.isdigit() and prev in RELEASE_WORDS):
            numbers.append((m.start(1), m.group(1)))
        for pattern in (_BRANCH_ISSUE_WORD, _BRANCH_HASH):
            numbers.extend((m.start(1), m.group(1)) for m in pattern.finditer(seg))
        seen: set[int] = set()
        for pos, digits in sorted(numbers):
            if pos in seen or (number := _number(digits)) is None:
                continue
            seen.add(pos)
            out.append(_Candidate("github", number=number,
                                  provenance=Provenance(source.kind, source.where, seg[:PROVENANCE_CHARS])))
        for m in _BRANCH_KEY.finditer(seg):
            if (number := _number(m.group(2))) is None:
                continue
            key = f"{m.group(1).upper()}-{number}"
            out.append(_Candidate("tracker", key=key, gated=True,
                                  provenance=Provenance(source.kind, source.where, m.group(0))))
    return out


def _canonical_id(c: _Candidate, this_repo: str) -> str:
    if c.tracker == "github":
        if c.repo and c.repo.lower() != this_repo.lower():
            return f"{c.repo}#{c.number}"
        return f"#{c.number}"
    return c.key


def extract_references(sources: Iterable[Source], prefixes: Iterable[str] = (),
                       this_repo: str = "", passed: list[str] | None = None) -> list[Reference]:
    """References of all `sources`, deduplicated by canonical id with every provenance kept.

    `prefixes` are the tracker-key prefixes configured for the project; `this_repo`
    ("owner/repo", may be "") lets `owner/repo#12` of this very repository merge with `#12`.
    Order: by first appearance, reading the sources in the order given. `passed`, when given,
    gets the keys passed over only for a prefix neither configured nor seen twice (`PROJ-7` in
    one commit subject), the first MAX_PASSED in order, each once: a reader is told of them.
    """
    configured = {p.upper() for p in prefixes}
    candidates: list[_Candidate] = []
    for source in sources:
        candidates.extend(_scan_branch(source) if source.kind == BRANCH else _scan_text(source))

    prefix_counts: dict[str, int] = {}
    for c in candidates:
        if c.key:
            prefix = c.key.rsplit("-", 1)[0]
            prefix_counts[prefix] = prefix_counts.get(prefix, 0) + 1

    def admitted(c: _Candidate) -> bool:
        if not c.gated:
            return True
        prefix = c.key.rsplit("-", 1)[0]
        if prefix in configured:
            return True
        return prefix not in NOT_TRACKER_PREFIXES and prefix_counts.get(prefix, 0) >= 2

    refs: dict[str, Reference] = {}
    seen: dict[str, set[Provenance]] = {}  # every provenance of a reference, however many it keeps
    for c in candidates:
        if not admitted(c):
            if (passed is not None and len(passed) < MAX_PASSED and c.key not in passed
                    and c.key.rsplit("-", 1)[0] not in NOT_TRACKER_PREFIXES):
                passed.append(c.key)
            continue
        rid = _canonical_id(c, this_repo)
        # GitHub's owner and repository names are one in any case: `Up/Lib#1` is `up/lib#1`,
        # kept as it was first written
        same = rid.lower() if c.tracker == "github" else rid
        ref = refs.get(same)
        if ref is None:
            repo = c.repo if rid != f"#{c.number}" else ""
            ref = refs[same] = Reference(id=rid, tracker=c.tracker, number=c.number or None, repo=repo or None,
                                         key=c.key or None)
            seen[same] = set()
        if ref.tracker == "tracker" and c.tracker in ("jira", "linear"):
            ref.tracker = c.tracker  # a URL says which tracker the key lives in
        if c.url and not ref.url and _may_show(c.url):
            ref.url = c.url
        ref.closing = ref.closing or c.closing
        if c.provenance is not None and c.provenance not in seen[same]:
            seen[same].add(c.provenance)
            if len(ref.provenance) < MAX_KEPT_PROVENANCE:
                ref.provenance.append(c.provenance)
            ref.provenance_total = len(seen[same])
    return list(refs.values())
