"""C comments (and, where asked, string and character literals) found in time linear in the text.

A regex of them (`/\\*.*?\\*/|//[^\\n]*`) tries every `/*` to the end of the text when none closes
it, and every quote to the end of its line when it does not close there: a file of unclosed
`/*`s, or a line of escaped quotes, cost time quadratic in its size (the text comes from a
commit under review). Here the same spans are found with one search from each token: once no
`*/` closes a `/*`, no later one does, and a quote that does not close on its line leaves every
quote of its kind it passed over unclosed too (each was escaped, so the scan from it runs on
as the first's did)."""

from __future__ import annotations

import re

Span = tuple[int, int]

_TOKENS = re.compile(rb"/[*/]")
_TOKENS_AND_LITERALS = re.compile(rb"/[*/]|[\"']")
_LITERAL = {34: re.compile(rb"\"(?:[^\"\\\n]|\\.)*\"", re.S), 39: re.compile(rb"'(?:[^'\\\n]|\\.)*'", re.S)}
_LITERAL_RUN = {34: re.compile(rb"\"(?:[^\"\\\n]|\\.)*", re.S), 39: re.compile(rb"'(?:[^'\\\n]|\\.)*", re.S)}


def comment_spans(data: bytes, literals: bool = False) -> list[Span]:
    """The spans `re.finditer` gives of `/\\*.*?\\*/|//[^\\n]*` over `data` (re.S), with
    `"(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'` after them when `literals`."""
    spans: list[Span] = []
    tokens = _TOKENS_AND_LITERALS if literals else _TOKENS
    closed = True  # whether a `*/` may still close a `/*`
    unclosed_to = {34: -1, 39: -1}  # per quote: where the last that did not close ran to
    pos = 0
    while (m := tokens.search(data, pos)) is not None:
        at = m.start()
        first = data[at]
        if first == 47:  # /
            if data[at + 1] == 47:  # `//`
                end = data.find(b"\n", at)
                end = len(data) if end < 0 else end
                spans.append((at, end))
                pos = end  # past `//`: a step forward
                continue
            if closed:
                end = data.find(b"*/", at + 2)
                if end >= 0:
                    spans.append((at, end + 2))
                    pos = end + 2
                    continue
                closed = False
            pos = at + 1
            continue
        if at < unclosed_to[first]:
            pos = at + 1
            continue
        found = _LITERAL[first].match(data, at)
        if found is not None:
            spans.append(found.span())
            pos = found.end()
            continue
        run = _LITERAL_RUN[first].match(data, at)
        unclosed_to[first] = run.end() if run is not None else at + 1
        pos = at + 1
    return spans


def blanked(data: bytes, literals: bool = False, keep_length: bool = False) -> bytes:
    """`data` with each span of `comment_spans` made one space (as `pattern.sub(b" ", data)`), or
    as many spaces as it is long."""
    spans = comment_spans(data, literals)
    if not spans:
        return data
    parts: list[bytes] = []
    at = 0
    for start, end in spans:
        parts += [data[at:start], b" " * (end - start) if keep_length else b" "]
        at = end
    parts.append(data[at:])
    return b"".join(parts)
