"""Which links a tracker's answer may put in a dossier.

A dossier is rendered as Markdown by reviewers' tools, and an item's `url` and `links` are what
a tracker sent: a `javascript:`, `data:` or `file:` URL there would be a link that runs script or
reads the reviewer's files when clicked. Only plain web links are kept: http or https (an
intranet tracker may have no https; neither scheme runs anything), a host, no user info (the
`https://github.com@evil.example/` disguise), printable ASCII without a character a URL may
not hold unescaped (no control character, whitespace or invisible format character to hide
or reorder what is shown), at most `URL_CHARS`. Anything else is dropped and said in a fact.
"""

from __future__ import annotations

import urllib.parse

from delta.dossier.items import Fact, Fetched
from delta.dossier.refs import MAX_DIGITS, TRACKER_KEY, URL_CHARS

# URL_CHARS: a link shown is held to what a reference's `url` may be (no issue URL comes near it)
SCHEMES = ("http", "https")
# printable ASCII, less what RFC 3986 never allows unescaped (space, `"<>\^`{|}`)
_URL_CHARACTERS = frozenset(chr(c) for c in range(0x21, 0x7F)) - frozenset('"<>\\^`{|}')


def link_refusal(url: str) -> str | None:
    """None when `url` may be shown as a link; else why not, in a phrase that never quotes it."""
    if len(url) > URL_CHARS:
        return f"is longer than {URL_CHARS} characters"
    if not _URL_CHARACTERS.issuperset(url):
        return "holds a control character, whitespace or another character a URL may not hold"
    try:
        parts = urllib.parse.urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        return "is no well-formed URL"
    if parts.scheme.lower() not in SCHEMES:
        return "is no http or https link"
    if not parts.hostname:
        return "names no host"
    if "@" in parts.netloc:
        return "holds user info before its host"
    if not port_ok:
        return "has no usable port"
    return None


def is_ticket_id(link: str, tracker: str) -> bool:
    """Whether `link` is a ticket id as its tracker lists one (`ABC-1`; GitHub's `#5`, `owner/repo#5`)."""
    if tracker == "github":
        repo, hash_, number = link.rpartition("#")
        return (bool(hash_) and number.isascii() and number.isdigit() and len(number) <= MAX_DIGITS
                and (not repo or (repo.count("/") == 1 and _URL_CHARACTERS.issuperset(repo))))
    return TRACKER_KEY.fullmatch(link) is not None


def shown_links(fetched: Fetched, ref: str) -> tuple[Fetched, list[Fact]]:
    """The ticket with its `url` kept only when it may be shown (blank otherwise, as when a tracker
    sends none) and its `links` only those that are ticket ids or such URLs, with an `insecure_url`
    fact for what was dropped."""
    facts: list[Fact] = []
    tracker = fetched.tracker
    if fetched.url and (why := link_refusal(fetched.url)) is not None:
        fetched.url = ""
        facts.append(Fact("insecure_url", tracker, ref,
                          f"{tracker}: the url sent for {ref} {why}; dropped, not shown as a link"))
    kept = [link for link in fetched.links if is_ticket_id(link, tracker) or link_refusal(link) is None]
    if len(kept) < len(fetched.links):
        dropped = len(fetched.links) - len(kept)
        facts.append(Fact("insecure_url", tracker, ref,
                          f"{tracker}: {dropped} of the links sent for {ref} are neither a ticket id nor an "
                          f"http or https link; dropped"))
        fetched.links = kept
    return fetched, facts
