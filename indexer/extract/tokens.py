"""Plain tokenizer: identifier occurrences of text files no grammar parses.

ASCII identifiers (`[A-Za-z_][A-Za-z0-9_]*`) on the raw bytes, so columns are byte columns
like the tree-sitter ones. Words that are keywords in common languages are skipped; the role
of every site is "identifier" since nothing tells its role.

The sites are a function of the bytes alone, so the store keeps only what they sum to
(`plain_uses`: sites per name, and how many) and a reader makes them again from the blob:
all of them (`plain_occurrences`), or one name's (`plain_sites_of`, a search for that name
alone). Making every site's record at index time was most of the cost of a text file (on
Django, 1.7 million sites in its locale catalogs and docs, a quarter of the extraction).
"""

from __future__ import annotations

import re
from collections import Counter

from indexer.model import Occurrence

OCCURRENCE_CAP = 20_000

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

KEYWORDS: frozenset[bytes] = frozenset(
    b"""
    if else elif elsif unless then fi do done while for foreach in of case esac switch default
    break continue return yield goto try catch finally throw throws raise except with as
    def fn func function fun sub end begin class struct enum union interface trait impl type
    module namespace package import from export require use using include extends implements
    public private protected internal static final const let var val mut pub async await
    new delete this self super null nil none true false undefined void and or not is
    lambda pass assert global nonlocal del print typeof instanceof sizeof
    int float double char bool boolean string long short unsigned signed byte
    """.split()
)


def plain_occurrences(data: bytes, cap: int = OCCURRENCE_CAP) -> list[Occurrence]:
    """Identifier sites in document order, at most `cap` of them (the first ones)."""
    out: list[Occurrence] = []
    append = out.append
    keywords = KEYWORDS
    find_words = _WORD.finditer
    names: dict[bytes, str] = {}  # each spelling decoded once
    # Line by line: a word never spans a newline, and the column is the match start.
    for line_number, line in enumerate(data.split(b"\n"), 1):
        for match in find_words(line):
            word = match.group()
            if word in keywords:
                continue
            name = names.get(word)
            if name is None:
                name = names[word] = word.decode("ascii")
            append(Occurrence(name, line_number, match.start(), "identifier"))
            if len(out) >= cap:
                return out
    return out


def plain_uses(data: bytes, cap: int = OCCURRENCE_CAP) -> tuple[dict[str, int], int]:
    """What `plain_occurrences(data, cap)` sums to: sites per name (in name order) and how many
    sites there are, without making them (one scan in C, no record per site)."""
    keywords = KEYWORDS
    words = [w for w in _WORD.findall(data) if w not in keywords]  # document order, as the sites'
    if len(words) > cap:
        del words[cap:]
    return {w.decode("ascii"): n for w, n in sorted(Counter(words).items())}, len(words)


_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset(b"0123456789")


def plain_sites_of(data: bytes, name: str, capped: bool, cap: int = OCCURRENCE_CAP) -> list[Occurrence]:
    """The sites of `name` among `plain_occurrences(data, cap)`, in document order, found by
    searching for the name alone; `capped`: there are `cap` sites or more (the facts say so),
    so only the first `cap` count."""
    word = name.encode("ascii", "replace")
    if not name or word in KEYWORDS or _WORD.fullmatch(word) is None:
        return []
    limit = _cap_offset(data, cap) if capped else len(data)
    out: list[Occurrence] = []
    line, line_start, counted_to = 1, 0, 0
    at = data.find(word)
    while at >= 0 and at < limit:
        end = at + len(word)
        if (end == len(data) or data[end] not in _WORD_BYTES) and _starts_word(data, at):
            line += data.count(b"\n", counted_to, at)
            counted_to = at
            newline = data.rfind(b"\n", line_start, at)
            if newline >= 0:
                line_start = newline + 1
            out.append(Occurrence(name, line, at - line_start, "identifier"))
        at = data.find(word, at + 1)
    return out


def _starts_word(data: bytes, at: int) -> bool:
    """Does the tokenizer's scan start a word at `at` (a letter or `_` there)? Only when what
    precedes it back to a non-word byte is digits, or nothing: a digit starts no word, a
    letter before would have started one that runs on through `at`."""
    before = at - 1
    while before >= 0 and data[before] in _WORD_BYTES:
        if data[before] not in _DIGITS:
            return False
        before -= 1
    return True


def _cap_offset(data: bytes, cap: int) -> int:
    """Where the site after the `cap`-th starts (the end of the data if there are no more):
    sites from there on are past the cap."""
    counted = 0
    keywords = KEYWORDS
    for match in _WORD.finditer(data):
        if match.group() in keywords:
            continue
        if counted == cap:
            return match.start()
        counted += 1
    return len(data)
