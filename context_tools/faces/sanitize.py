"""Sanitizing operator-visible strings (error messages, notes, rendered receipts).

`$HOME`-rooted paths collapse to `~/...`; credential-shaped `key=value` pairs keep
their key and lose their value; known token shapes (GitHub `ghp_` / `gho_` /
`github_pat_`, OpenAI-style `sk-`, Slack `xox?-`, `Bearer ...`, AWS access key ids
`AKIA...` / `ASIA...` and IAM's unique ids `AGPA...` / `AIDA...` / `AROA...`, each of
exactly 20 characters) become `[redacted]`.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Iterable, overload

REDACTED = "[redacted]"

_TOKENS = re.compile(
    r"(?:"
    r"\bgh[pousr]_[A-Za-z0-9]{16,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{16,}"
    r"|\bsk-[A-Za-z0-9_\-]{12,}"
    r"|\bxox[abposr]-[A-Za-z0-9\-]{8,}"
    r"|\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"
    r"|\bBearer\s+[A-Za-z0-9._~+/=\-]{6,}"
    r")"
)

# A key is a word of its own: `/etc/passwd: File exists` is a path and its error, no credential.
# It ends at its credential word or goes on past a separator (`SECRET_KEY`, `token-file`), a
# plural or a camel-case `Key`/`Id`: code names that merely hold the word (`Token24065: 1`,
# `tokenizer:`, `TokenType:`, a file `token.py:12:3`) are no credential.
#
# A key starts where a run of name characters does (or, in a run a `/` or `\` leads, a path's
# component, after its first `.` or `-`), never anywhere else: tried from every word boundary
# of a run such as `a-a-a-...`, the search was quadratic in the run.
# From its first possible start a key spans the rest of its run, so no later start can match
# where that one does not: the keys found are the same.
_KEY_VALUE = re.compile(
    r"(?i)(?:(?<![A-Za-z0-9_.\-/\\])|(?<=[/\\])(?P<skip>[A-Za-z0-9_]*[.\-]+)(?=[A-Za-z0-9_]))"
    r"(?P<key>[A-Za-z0-9_.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|authorization|auth[_\-]?token|credential|private[_\-]?key|session[_\-]?id|cookie)"
    r"(?:s|[_\-][A-Za-z0-9_\-]*|(?-i:Key|Id|ID))?)"
    r"(?P<sep>\s*[=:]\s*)"
    r"(\"[^\"]*\"|'[^']*'|[^\s,;&\"']+)"
)


def _home_pattern() -> re.Pattern[str] | None:
    home = os.path.expanduser("~").rstrip("/")
    if not home or home == "/" or home == "~":
        return None
    # where a path starts, not inside another's: `/srv/home/alice/x` is no path under `/home/alice`
    return re.compile(r"(?<![\w./\\~-])" + re.escape(home) + r"(?=/|$|[\s\"'`:;,)\]])")


def sanitize(text: str) -> str:
    """One operator-visible string, made safe to show and to store."""
    if not text:
        return text
    text = _TOKENS.sub(REDACTED, text)
    text = _KEY_VALUE.sub(lambda m: f"{m.group('skip') or ''}{m.group('key')}{m.group('sep')}{REDACTED}", text)
    home = _home_pattern()
    if home is not None:
        text = home.sub("~", text)
    return text


# C0 and C1 controls (a terminal reads U+009B as CSI, U+0085 as a line break), the line and
# paragraph separators that split a line wherever text is read by lines, and the marks that
# reorder text as it is drawn (what a title shows need not be what it says)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def sanitize_shown(text: str, limit: int = 400) -> str:
    """Sanitized for one line of a terminal rendering: its spacing kept, control characters
    escaped as git quotes them (a line break in a path shows as `\\n`; C1 controls, line
    separators and bidirectional marks as `\\x9b`, `\\u2028`, `\\u202e`), at most `limit`
    characters."""
    return _bounded(_escaped(sanitize(text)), limit)


def shown_lines(lines: Iterable[str]) -> str:
    """A terminal rendering made of these lines, each passed through `sanitize_shown`: what
    a repository, a user or a tracker named cannot break a line or reach the terminal as a
    control sequence."""
    return "\n".join(sanitize_shown(line) for line in lines)


def sanitize_line(text: str, limit: int = 240) -> str:
    """Sanitized, on one line (runs of spacing made one space, other control characters
    escaped as in `sanitize_shown`), at most `limit` characters."""
    return _bounded(_escaped(" ".join(sanitize(text).split())), limit)


# What makes a name quoted, beside a control character: a backslash or a double quote (which
# the quoted form escapes), no name at all, spacing at either end or a run of it (which a
# reader of words, or a fold of spacing, would lose).
# Beside them, a name's spacing other than the space and its invisible format characters (a
# no-break or ideographic space, a zero-width space or joiner, a soft hyphen, a byte order
# mark) are escaped: `a\u00a0b.py` and `a b.py` are two files that would draw alike.
_LOOKALIKE = re.compile("[\u00a0\u00ad\u1680\u180e\u2000-\u200d\u202f\u205f\u2060-\u2064\u3000\ufeff]")
_QUOTED = re.compile(r'[\\"]|\A\s|\s\Z|\s\s|\A\Z|' + _CONTROL.pattern + "|" + _LOOKALIKE.pattern)
_NAME_ESCAPES = {"\\": "\\\\", '"': '\\"', **_ESCAPES}


def shown_name(name: str, limit: int = 240) -> str:
    """A name the repository chose (a path, a symbol, a ref, a package) for one line of a text
    rendering, as git quotes a path: bare when it holds nothing that needs it, else in double
    quotes with `\\\\`, `\\"`, `\\n`, `\\t`, `\\r` and the escapes of `sanitize_shown` (spacing
    other than the space and invisible format characters too), so two names never show the same,
    nor alike, and a bare one never starts with a quote or holds a backslash.
    Shown exactly: neither redacted nor with `~` for the home folder, which a path in a tree is
    no operator's secret or place of (`--json` shows it as it is anyway). A name longer than
    `limit` shows quoted, cut between two characters, with `…` after its closing quote: no whole
    name shows so."""
    if len(name) <= limit and not _QUOTED.search(name):
        return name
    room = limit - 2  # the quotes
    pieces = []
    for ch in name[:limit]:  # every character shows as one at least
        piece = _NAME_ESCAPES.get(ch) or (_code(ord(ch)) if _CONTROL.match(ch) or _LOOKALIKE.match(ch) else ch)
        room -= len(piece)
        pieces.append(piece)
    if room >= 0 and len(name) <= limit:
        return '"' + "".join(pieces) + '"'
    room = limit - 3  # the quotes and the `…`
    kept = []
    for piece in pieces:
        room -= len(piece)
        if room < 0:
            break
        kept.append(piece)
    return '"' + "".join(kept) + '"…'


def shown_own(text: str, limit: int = 240) -> str:
    """A name the operator's machine or command line gave (the repository's folder, a rev, a
    workspace or its member, the store's files), sanitized as a message is (`~` for the home
    folder, credentials redacted), then shown as a name."""
    return shown_name(sanitize(text), limit)


# What a line of a file's content may not draw as it is: every character of `_CONTROL` but the
# tab, which indents code and moves nothing a reader relies on
_CONTENT_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTENT_ESCAPED = re.compile(r"\\|" + _CONTENT_UNSAFE.pattern)


def shown_content_line(line: str) -> tuple[bool, str]:
    """A line of a file's content for a terminal (a CRLF line's `\\r` already taken off): `(False,
    line)` as it is when it holds nothing that could move the cursor, start a line or reorder what
    is drawn; else `(True, text)`, those characters escaped as `sanitize_shown` escapes them and its
    backslashes doubled, so that it cannot read as a line holding the escapes' text. The caller
    marks which form it drew."""
    if not _CONTENT_UNSAFE.search(line):
        return False, line
    return True, _CONTENT_ESCAPED.sub(lambda m: "\\\\" if m.group() == "\\" else
                                      _ESCAPES.get(m.group(), _code(ord(m.group()))), line)


# What JSON may hold raw in a string but a terminal reads as a control or a reordering: JSON
# escapes C0 controls itself
_JSON_UNSHOWN = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_for_terminal(text: str) -> str:
    """JSON text with the characters above written as JSON escapes (`\\u202e`): the same values
    once parsed, and nothing that moves a terminal's cursor or reorders its line. They stand only
    inside strings, the rest of JSON being ASCII."""
    return _JSON_UNSHOWN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@overload
def json_for_stdout(text: str) -> str: ...
@overload
def json_for_stdout(text: bytes) -> bytes: ...
def json_for_stdout(text: str | bytes) -> str | bytes:
    """JSON as standard output gets it: on a terminal, which acts on what JSON leaves raw,
    through `json_for_terminal`; through a pipe or into a file exactly as it is, the one result
    a reader parses (or the canonical bytes a fingerprint hashes)."""
    if not sys.stdout.isatty():
        return text
    if isinstance(text, str):
        return json_for_terminal(text)
    return json_for_terminal(text.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def escaped_line(line: str) -> str:
    """A line of names `shown_name` drew and fields `sanitize_line` drew, with any control
    character left escaped: it holds none, unless a field was drawn as it came. No spacing is
    folded and nothing redacted, so a name's stays as it shows."""
    return _escaped(line)


def drawn_lines(lines: Iterable[str]) -> str:
    """A terminal rendering made of these lines, each passed through `escaped_line`."""
    return "\n".join(_escaped(line) for line in lines)


def _escaped(text: str) -> str:
    return _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), _code(ord(m.group()))), text)


def _code(point: int) -> str:
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def _bounded(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"
