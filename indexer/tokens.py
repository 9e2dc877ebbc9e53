"""Plain tokenizer: identifier occurrences of text files no grammar parses.

ASCII identifiers (`[A-Za-z_][A-Za-z0-9_]*`) on the raw bytes, so columns are byte columns
like the tree-sitter ones. Words that are keywords in common languages are skipped; the role
of every site is "identifier" since nothing tells its role.
"""

from __future__ import annotations

import re

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
