"""What a dossier may show as a link.

A dossier is rendered as Markdown by reviewers' tools, and the URLs in it come from outside:
a tracker's answer, or the text of the change under review. A `javascript:`, `data:` or
`file:` URL there would be a link that runs script or reads the reviewer's files when
clicked. Only plain web links are shown: http or https (an intranet tracker may have no
https; neither scheme runs anything), a host, no user info (the
`https://github.com@evil.example/` disguise), printable ASCII without a character a URL may
not hold unescaped (no control character, whitespace or invisible format character to hide
or reorder what is shown), at most `URL_CHARS`.
"""

from __future__ import annotations

import re
import urllib.parse

URL_CHARS = 2048  # no issue URL comes near it
SCHEMES = ("http", "https")
# printable ASCII, less what RFC 3986 never allows unescaped (space, `"<>\^`{|}`)
URL_CHARACTERS = frozenset(chr(c) for c in range(0x21, 0x7F)) - frozenset('"<>\\^`{|}')
# an IPv6 host and, after it, nothing or a port
_BRACKETED = re.compile(r"\[[0-9A-Fa-f:.]+\](?::[0-9]*)?")


def link_refusal(url: str) -> str | None:
    """None when `url` may be shown as a link; else why not, in a phrase that never quotes it."""
    if len(url) > URL_CHARS:
        return f"is longer than {URL_CHARS} characters"
    if not URL_CHARACTERS.issuperset(url):
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
    if "[" in parts.netloc and not _BRACKETED.fullmatch(parts.netloc):
        # `[::1]x`, `[::1]]`: what follows the address is no port; `evil.example[::1]`: urllib
        # reads the bracketed address as the host, where the text shown names another
        return "is no well-formed URL"
    if not port_ok:
        return "has no usable port"
    return None
