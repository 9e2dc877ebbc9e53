"""Dossier items: what a fetched ticket becomes, its acceptance criteria, and the two bounds.

An item is bounded on its own (title, body, criteria) and the dossier as a whole is
bounded in bytes; when the whole does not fit, whole items are dropped, lowest
priority first, and each omission is recorded. Comment threads never enter an item:
they are persisted beside the dossier and the item names the payload file.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct, field

from delta.dossier.refs import Provenance, Reference
from indexer.contract.encode import encode_json

TITLE_CHARS = 300
CRITERION_CHARS = 300
MAX_CRITERIA = 30
MAX_PROVENANCE = 10
# A ticket's body or comment as read from a tracker's rich text: criteria are looked for in
# this much, and an item clips it much further; the rest stays in the persisted payload.
RICH_TEXT_CHARS = 4_000_000
RICH_TEXT_DEPTH = 24  # rich-text nodes nested deeper give their text without their structure
MAX_COMMENTS = 100  # a thread's entries read, as the first page Linear and GitHub are asked for
CRITERIA_LINE_CHARS = 2_000  # a line longer than this is looked at up to here
TRUNCATED = "\n[rich text truncated at {chars} characters]"


def bounded_text(text: str) -> str:
    """A tracker's text within RICH_TEXT_CHARS, the cut marked in the text itself."""
    if len(text) <= RICH_TEXT_CHARS:
        return text
    return text[:RICH_TEXT_CHARS] + TRUNCATED.format(chars=RICH_TEXT_CHARS)


class Comment(Struct):
    author: str
    created_at: str
    body: str


class Fetched(Struct):
    """A ticket as a tracker client returns it, before bounding. `raw` is the tracker's own payload."""

    id: str
    tracker: str
    title: str
    state: str
    body: str
    url: str
    comments: list[Comment] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # ids or URLs of linked tickets, as the tracker gives them
    raw: Any = None


class Fact(Struct, frozen=True):
    """A retrieval outcome that is not an item: missing_config, tracker_unavailable, not_found,
    unauthorized, malformed_response, timeout, other_repository (a GitHub repository neither
    public nor allowed by the user, not read), other_project (a Jira project or Linear team the
    user's own settings do not list, not read), source_truncated (the change's text read in part),
    insecure_url (a tracker URL or a redirect refused, not read; or a link a ticket's answer gave
    that may not be shown, dropped from the item), redacted (a token a tracker echoed, replaced),
    unconfirmed_key (a key such as `PROJ-7` the change names once, of a prefix no setting lists:
    not taken for a reference, so a reader knows it was seen)."""

    code: str
    tracker: str
    ref: str
    message: str


class Criterion(Struct, frozen=True):
    text: str
    done: bool | None = None  # checkbox state; None for a criterion that is not a checkbox
    source: str = "section"  # "section" (an "Acceptance criteria" section) or "checklist"


class Item(Struct, omit_defaults=True):
    id: str
    tracker: str
    title: str
    state: str
    body: str
    body_chars: int  # length of the whole body, in characters
    body_truncated: bool
    acceptance_criteria: list[Criterion]
    criteria_total: int
    url: str
    closing: bool
    provenance: list[Provenance]
    provenance_total: int
    fetched_at: str
    comments: int  # comments in the persisted thread
    links: list[str] = field(default_factory=list)
    payload: str | None = None  # path of the persisted payload (thread, links, raw), relative to the store home


class Omission(Struct, frozen=True, omit_defaults=True):
    id: str
    tracker: str
    reason: str  # "item_bytes": one item over the per-item bound; "dossier_bytes": no room left dossier-wide;
    #              "max_references": a reference past the reference cap, not fetched
    bytes: int
    payload: str | None = None  # the persisted payload of a dropped item, still there for depth on demand


class Bounds(Struct, frozen=True):
    item_body_chars: int
    item_bytes: int
    dossier_bytes: int


# --- acceptance criteria --------------------------------------------------------------

_AC_HEADING = re.compile(
    r"(?i)^\s*(?P<style>#{1,6}|h[1-6]\.|\*\*|__)?\s*acceptance\s+criteria\s*(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?"
    r"\s*(?P<rest>.*)$")
_MD_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_JIRA_HEADING = re.compile(r"^\s*h[1-6]\.\s")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)[^*_]+(\*\*|__)\s*(?::\s*)?$")
# Matched against stripped lines: a `\s*` before or after a lazy group backtracks over a run of
# blanks once per blank, quadratic in a line of a hostile body.
_LIST = re.compile(r"^(?:[-*+\u2022]|\d+[.)])\s+(?:\[(?P<box>[ xX])\]\s+)?(?P<text>.+)$")
_JIRA_NUMBERED = re.compile(r"^#+\s+(?P<text>.+)$")
_CHECKBOX = re.compile(r"^(?:[-*+]|\d+[.)])\s+\[(?P<box>[ xX])\]\s+(?P<text>.+)$")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit]


def acceptance_criteria(body: str) -> list[Criterion]:
    """Criteria from "Acceptance criteria" sections (Markdown, Jira wiki, bold or plain label) and checklists."""
    out: list[Criterion] = []
    seen: set[str] = set()

    def add(text: str, done: bool | None, source: str) -> None:
        text = text.strip()
        if text and text not in seen:
            seen.add(text)
            out.append(Criterion(text, done, source))

    lines = [line[:CRITERIA_LINE_CHARS].strip() for line in body[:RICH_TEXT_CHARS].splitlines()]
    i = 0
    while i < len(lines):
        m = _AC_HEADING.match(lines[i]) if "acceptance" in lines[i].lower() else None
        if not m:
            i += 1
            continue
        jira_style = (m.group("style") or "").startswith("h")
        if m.group("rest"):
            add(m.group("rest"), None, "section")
        i += 1
        while i < len(lines):
            line = lines[i]
            if _JIRA_HEADING.match(line) or _BOLD_LINE.match(line) or (
                    "acceptance" in line.lower() and _AC_HEADING.match(line)):
                break
            if _MD_HEADING.match(line) and not jira_style:
                break
            if lm := _LIST.match(line):
                box = lm.group("box")
                add(lm.group("text"), None if box is None else box != " ", "section")
            elif jira_style and (jm := _JIRA_NUMBERED.match(line)):
                add(jm.group("text"), None, "section")
            elif line.strip():
                add(line, None, "section")
            i += 1
    for line in lines:
        if cm := _CHECKBOX.match(line):
            add(cm.group("text"), cm.group("box") != " ", "checklist")
    return out


# --- bounding -------------------------------------------------------------------------

def make_item(fetched: Fetched, ref: Reference, fetched_at: str, bounds: Bounds, payload: str) -> Item:
    """The bounded item of one fetched ticket: body and criteria clipped, thread left in the payload."""
    criteria = acceptance_criteria(fetched.body)
    body = fetched.body
    return Item(
        id=ref.id,
        tracker=fetched.tracker,
        title=_clip(fetched.title, TITLE_CHARS),
        state=fetched.state,
        body=_clip(body, bounds.item_body_chars),
        body_chars=len(body),
        body_truncated=len(body) > bounds.item_body_chars,
        acceptance_criteria=[Criterion(_clip(c.text, CRITERION_CHARS), c.done, c.source)
                             for c in criteria[:MAX_CRITERIA]],
        criteria_total=len(criteria),
        url=fetched.url,
        closing=ref.closing,
        provenance=list(ref.provenance[:MAX_PROVENANCE]),
        provenance_total=ref.provenance_total,
        fetched_at=fetched_at,
        comments=len(fetched.comments),
        links=fetched.links[:20],
        payload=payload,
    )


def item_size(item: Item) -> int:
    return len(encode_json(item))


def fit(items: list[Item], bounds: Bounds) -> tuple[list[Item], list[Omission]]:
    """Keep whole items within both bounds. Closing references go first; otherwise reference order."""
    kept: list[Item] = []
    omitted: list[Omission] = []
    used = 0
    order = sorted(range(len(items)), key=lambda i: (not items[i].closing, i))
    keep_idx: set[int] = set()
    for i in order:
        size = item_size(items[i])
        if size > bounds.item_bytes:
            omitted.append(Omission(items[i].id, items[i].tracker, "item_bytes", size, items[i].payload))
        elif used + size > bounds.dossier_bytes:
            omitted.append(Omission(items[i].id, items[i].tracker, "dossier_bytes", size, items[i].payload))
        else:
            used += size
            keep_idx.add(i)
    kept = [items[i] for i in range(len(items)) if i in keep_idx]
    return kept, omitted
