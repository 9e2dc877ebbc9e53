"""A name a repository chose (a path, a symbol, a ref) shows in a text rendering as git quotes a
path: bare when nothing in it needs escaping, else quoted with C escapes, so two names never
show the same (`a<LF>b.py`, `a b.py` and the literal `a\\nb.py` are three files, and three
lines)."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.faces.sanitize import shown_name

_ESCAPE = re.compile(r'\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|(.))', re.S)
_SIMPLE = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_UNSHOWN = set("\u061c\u200e\u200f\u2028\u2029") | {chr(c) for c in range(0x202a, 0x202f)} | {
    chr(c) for c in range(0x2066, 0x206a)}


def _read(shown: str) -> tuple[str, bool]:
    """The name a rendering shows (a reader's side of the rule) and whether it was cut."""
    if not shown.startswith('"'):
        assert "\\" not in shown and shown == shown.strip() and "  " not in shown and shown
        return shown, False
    cut = shown.endswith('"…')
    body = shown[1:-2] if cut else shown[1:-1]
    assert shown.endswith('"…' if cut else '"') and not re.search(r'(?<!\\)(?:\\\\)*"', body), shown

    def one(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            assert m.group(3) in _SIMPLE, shown  # no escape but these
            return _SIMPLE[m.group(3)]
        return chr(int(m.group(1) or m.group(2), 16))

    return _ESCAPE.sub(one, body), cut


_NAMES = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(
    sorted(_UNSHOWN) + ["\x85", "\x9b", "\x1b", "\n", "\\", '"', " ", "\t", "\u3000", "n", "x", "…"])), max_size=40)


@settings(max_examples=1000, deadline=None)
@given(_NAMES, _NAMES)
def test_two_names_never_show_the_same_and_no_rendering_breaks_a_line(a, b):
    for name in (a, b):
        shown = shown_name(name)
        assert not any(unicodedata.category(ch) == "Cc" or ch in _UNSHOWN for ch in shown), shown
        assert len(shown.splitlines()) == 1
        assert _read(shown) == (name, False)  # what is shown reads back as the name, whole
    if a != b:
        assert shown_name(a) != shown_name(b)


@settings(max_examples=500, deadline=None)
@given(_NAMES, st.integers(min_value=8, max_value=30))
def test_a_cut_name_says_it_is_cut_and_shows_what_it_starts_with(name, limit):
    shown = shown_name(name, limit)
    assert len(shown) <= limit
    start, cut = _read(shown)
    assert name.startswith(start)
    assert cut == (start != name)  # a cut never reads as a whole name, and a whole name is never marked cut


def test_the_three_files_of_the_fault_show_as_git_shows_them():
    assert [shown_name(n) for n in ("a\nb.py", "a b.py", "a\\nb.py")] == ['"a\\nb.py"', "a b.py", '"a\\\\nb.py"']


def test_an_ordinary_name_shows_bare():
    for name in ("src/app.py", "a b.py", "Foo.bar", "café/naïve.py", "x…", "docs/sk-learn-compatibility.md",
                 "notes/Bearer tokens.md", "config/token=abc.py"):
        assert shown_name(name) == name


def test_spacing_at_an_end_or_in_a_run_is_kept_in_quotes():
    assert [shown_name(n) for n in (" a.py", "a.py ", "a  b.py", "", '"a".py')] == [
        '" a.py"', '"a.py "', '"a  b.py"', '""', '"\\"a\\".py"']


def test_a_long_name_is_cut_inside_its_quotes_and_never_inside_an_escape():
    assert shown_name("a" * 30, 12) == '"aaaaaaaaa"…'
    assert shown_name("ab\x1bcdef", 9) == '"ab\\x1b"…'
    assert shown_name("ab\x1bcdef", 8) == '"ab"…'  # `\x1b` whole or not at all
    assert shown_name("ab\x1bcd", 10) == '"ab\\x1bcd"'
