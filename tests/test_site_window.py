"""A site's readings of its line see at most `SITE_TEXT` bytes each side of it
(indexer/lang/bindings_base.py, `site_window`), and each reading of the text before a site reads
back from the site what a search of that text for a pattern anchored at its end finds: searched,
every byte of a long line was tried for each site of it, and a long name was backtracked through
at each byte. 4,000 sites on one line of 116 kB held `context references` for 66 s in Java, 25 s
in C++, 20 s in Ruby, 10 s in PHP; 2,000 JavaScript sites after an unmatched `)` took 27 s.

The patterns the readings were written as are kept here: each reading is compared with the
search it replaced, on texts Hypothesis makes of the bytes that pattern reads."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.query.symbols import script_annotations, script_casts, script_chains
from indexer.lang import member_syntax, site_lines
from indexer.lang.bindings_base import (
    CUT,
    DOTTED_NAMES,
    NAMES,
    SCRIPT_NAMES,
    SITE_TEXT,
    Bindings,
    closing_bracket,
    opening_bracket,
    site_window,
)
from indexer.lang.javascript.bindings import JavaScriptBindings
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import counted

ROOT = Path(__file__).resolve().parents[1]
IDENT = rb"[A-Za-z_$][\w$]*"


def _texts(*pieces: bytes, size: int = 14) -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(pieces), max_size=size).map(b"".join)


# -- the window ---------------------------------------------------------------------------

@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")), st.data(),
       st.integers(min_value=1, max_value=12), st.integers(min_value=0, max_value=3))
def test_the_window_is_the_line_near_the_site_never_part_of_a_name(line, data, width, length):
    """Within `SITE_TEXT` of the line's start the text before the site is all there; further,
    the window starts with `CUT` and then a suffix of the text before the site, at most
    `SITE_TEXT` long, that does not start inside a name begun before it; after the site, at
    most `SITE_TEXT` bytes."""
    col = data.draw(st.integers(min_value=0, max_value=len(line)))
    with mock.patch("indexer.lang.bindings_base.SITE_TEXT", width):
        window, at = site_window(line, col, length)
    assert window[at:] == line[col:col + length + width]
    if col <= width:
        assert window[:at] == line[:col]
        return
    assert window.startswith(CUT)
    kept = window[len(CUT):at]
    assert line[:col].endswith(kept) and len(kept) <= width
    start = col - len(kept)
    name = re.compile(rb"[\w$\x80-\xff]")
    if kept and name.match(line, start):
        assert not name.match(line, start - 1), (line, col, window)


def test_a_name_cut_by_the_window_is_not_read_as_a_shorter_one():
    """`<long name>.m` past the window: the receiver is unknown, never the name's tail; so are
    names that only blanks stand before up to the cut (what stands before them is not seen); a
    short receiver after a statement's end near the site is read as before."""
    rules = JavaScriptBindings()
    long_name = b"a" * (SITE_TEXT + 40)
    line = b"f(" + long_name + b".m)"
    window, at = site_window(line, line.index(b".m") + 1, 1)
    assert rules.site_syntax(window, at, "m").receiver == ()
    line = b" " * (SITE_TEXT * 2) + b"xs.m"
    window, at = site_window(line, len(line) - 1, 1)
    assert rules.site_syntax(window, at, "m").receiver == ()
    line = b" " * (SITE_TEXT * 2) + b"; xs.m"
    window, at = site_window(line, len(line) - 1, 1)
    assert rules.site_syntax(window, at, "m").receiver == ("xs",)


LANGUAGES = {  # a file holding one line of sites, the name asked, the unit repeated on that line
    "a.ts": ("class T { m() {} }\nfunction f(x: T) {\n", "x.m(); (x as T).m(); xs[0].m(); ", "\n}\n", "T.m"),
    "a.py": ("class T:\n    def m(self): pass\ndef f(x: T):\n    ", "x.m(); ", "\n", "T.m"),
    "A.java": ("class T { void m() {} }\nclass V { void f(T x) {\n", "x.m(); new T().m(); this.m(); ", "\n} }\n", "T.m"),
    "a.php": ("<?php\nclass T { function m() {} }\nfunction f() {\n", "T::m(); $this->m(); $x->m(); ", "\n}\n", "T.m"),
    "a.rb": ("class T\n  def m; end\nend\n", "T.m; A::T.m; x.m; ", "\n", "T.m"),
    "a.cpp": ("class T { void m(); };\nvoid f(T* x) {\n", "x->m(); T::m(); this->m(); ", "\n}\n", "T.m"),
    "a.rs": ("struct T;\nimpl T { fn m(&self) {} }\nfn f(x: T) {\n", "x.m(); T::m(&x); crate::T::m(&x); ", "\n}\n", "T.m"),
}


def _one_line(path: str, units: int) -> Indexed:
    head, unit, tail, _ = LANGUAGES[path]
    line = unit * units
    pad = ("#\n" if path.endswith((".py", ".rb")) else "//\n") * (len(line) // 200 + 1)  # short of minified
    return Indexed({path: head + line + tail + pad}, f"rennet-site-window-{Path(path).suffix[1:]}-")


LONG = {path: _one_line(path, 400) for path in LANGUAGES}


RULES = {".ts": ("indexer.lang.javascript.bindings", "JavaScriptBindings"),
         ".py": ("indexer.lang.python.bindings", "PythonBindings"),
         ".java": ("indexer.lang.java.bindings", "JavaBindings"),
         ".php": ("indexer.lang.php.bindings", "PhpBindings"),
         ".rb": ("indexer.lang.ruby.bindings", "RubyBindings"),
         ".cpp": ("indexer.lang.c.bindings", "CppBindings"),
         ".rs": ("indexer.lang.rust.bindings", "RustBindings")}


@pytest.mark.parametrize("path", sorted(LANGUAGES))
def test_each_site_of_a_long_line_is_read_within_its_window(path):
    """The line each site's syntax is read from, for every site of a line of 400 units (10 kB
    and more): at most `SITE_TEXT` bytes each side of the site."""
    module, name = RULES[Path(path).suffix]
    rules = getattr(importlib.import_module(module), name)
    read = rules.site_syntax
    seen: list[int] = []

    def reading(self: Bindings, line: bytes, col: int, asked: str) -> object:
        seen.append(len(line))
        return read(self, line, col, asked)

    with mock.patch.object(rules, "site_syntax", reading):
        sites = LONG[path].asked().call("context.references", name=LANGUAGES[path][3]).data.sites
    assert sites and len(seen) >= 400
    assert max(seen) <= 2 * SITE_TEXT + len(CUT) + 1


def _unmatched(n: int) -> Indexed:
    # every site after a `)` no `(` opens: each looked for its partner over the line before it
    text = "class T { m() {} }\nclass U { m() {} }\nfunction f(x: T) {\n" + "x).m;" * n + "\n}\n" + "//\n" * n
    return Indexed({"a.ts": text}, f"rennet-site-window-unmatched-{n}-")


UNMATCHED = {n: _unmatched(n) for n in (500, 1000)}
READERS = [str(ROOT / "indexer" / "lang" / "bindings_base.py"), str(ROOT / "indexer" / "lang" / "javascript" / "bindings.py")]


def test_sites_after_unmatched_parentheses_cost_lines_in_proportion_to_them():
    """The lines of the site readers a references query runs for 500 such sites on one line
    and for 1,000: about twice, never four times (each site walked the line's bytes back
    before the window: at 800 and 1,600 sites, 32,020,801 lines and 128,041,601; now
    3,044,001 and 6,524,801)."""
    def run(n: int) -> int:
        asked = UNMATCHED[n].asked()
        asked.call("context.references", name="U.m")  # what a snapshot keeps once is not counted
        return counted(lambda: asked.call("context.references", name="T.m"), READERS)[1]

    small, large = run(500), run(1000)
    assert large <= 2.5 * small, (small, large)


# -- the readings, each the search it replaced ----------------------------------------------

_BRACKETS = _texts(b"(", b")", b"[", b"]", b"{", b"}", b"<", b">", b"x", b" ", size=40)


def _walk(text: bytes, walk: range, deeper: bytes, shallower: bytes) -> int | None:
    depth = 0
    for i in walk:
        c = text[i:i + 1]
        if c in deeper:
            depth += 1
        elif c in shallower:
            depth -= 1
            if depth == 0:
                return i
    return None


@settings(max_examples=examples(200), deadline=None)
@given(_BRACKETS, st.sampled_from([b"()", b"()[]{}", b"<>"]), st.data())
def test_a_bracket_is_matched_where_walking_every_byte_matches_it(text, kinds, data):
    at = data.draw(st.integers(min_value=-1, max_value=max(len(text) - 1, -1)))
    assert opening_bracket(text, at, kinds) == _walk(text, range(at, -1, -1), kinds[1::2], kinds[0::2])
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    assert closing_bracket(text, at, kinds) == _walk(text, range(at, len(text)), kinds[0::2], kinds[1::2])


_C_IDENT = rb"[A-Za-z_][A-Za-z0-9_]*"
_C_CHAIN = re.compile(rb"(" + _C_IDENT + rb"(?:[ \t]*\.[ \t]*" + _C_IDENT + rb")*)[ \t]*\.[ \t]*$")
_C_PATH = re.compile(rb"((?:" + _C_IDENT + rb"[ \t]*::[ \t]*)+)$")


@settings(max_examples=examples(200), deadline=None)
@given(_texts(b"a", b"Z", b"_", b"7", b" ", b"\t", b".", b":", b"::", b"(", b">", b"ab"))
def test_go_and_rust_names_are_read_back_as_searched(text):
    before = text.rstrip()
    if before.endswith(b"::"):
        m, read = _C_PATH.search(before), site_lines._PATH.search(before)
        split = (lambda names: [p.strip() for p in names.split(b"::") if p.strip()])
        assert ((m.start(), split(m.group(1))) if m else None) == ((read[0], split(read[1])) if read else None)
    if before.endswith(b"."):
        m = _C_CHAIN.search(before)
        assert NAMES.search(before) == ((m.start(), m.group(1)) if m else None)


_NEW = re.compile(rb"(?<![\w.])new[ \t]+([A-Za-z_][\w]*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*(?:<[^()]*>)?[ \t]*"
                  rb"\([^()]*\)[ \t]*\??\.$")
_DOTTED = re.compile(rb"([A-Za-z_$][\w$]*(?:[ \t]*\.[ \t]*[A-Za-z_$][\w$]*)*)[ \t]*(?:\?)?\.$")
_PHP_SCOPE = re.compile(rb"(\\?[A-Za-z_][\w\\]*)[ \t]*::$")
_RUBY_RECEIVER = re.compile(rb"((?:::)?[A-Za-z_]\w*(?:::[A-Z]\w*)*)[ \t]*&?\.$")
_RUBY_SCOPE = re.compile(rb"((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)[ \t]*::$")
_CPP_SCOPE = re.compile(rb"([A-Za-z_]\w*)[ \t]*(?:<[^<>;]*>)?[ \t]*::$")
_CPP_MEMBER = re.compile(rb"([A-Za-z_]\w*)[ \t]*(?:->|\.)$")
_MEMBER_TEXT = _texts(b"a", b"Z", b"B", b"_", b"7", b"$", b" ", b"\t", b".", b":", b"::", b"(", b")", b"<", b">",
                      b";", b"\\", b"new ", b"this", b"self", b"x", b"1", b"&", b"?")


@settings(max_examples=examples(250), deadline=None)
@given(_MEMBER_TEXT, st.sampled_from([b".", b"?.", b"::", b"->", b"&.", b").", b")?.", b">::"]))
def test_member_receivers_are_read_back_as_searched(text, end):
    before = (text + end).rstrip()
    m = _NEW.search(before)
    assert member_syntax._made_type(before) == (m.group(1) if m else None) if before.endswith(b".") else True
    if before.endswith(b"."):
        m = _DOTTED.search(before)
        found = SCRIPT_NAMES.search(before[:-2] + b"." if before.endswith(b"?.") else before)
        assert found == ((m.start(), m.group(1)) if m else None)
        m = _RUBY_RECEIVER.search(before)
        assert member_syntax._ruby_receiver(before) == ((m.start(), m.group(1)) if m else None)
    if before.endswith(b"::"):
        m = _PHP_SCOPE.search(before)
        assert member_syntax._php_scope(before) == ((m.start(), m.group(1)) if m else None)
        m = _RUBY_SCOPE.search(before)
        assert member_syntax._ruby_scope(before) == (m.group(1).rsplit(b"::", 1)[-1] if m else None)
        m = _CPP_SCOPE.search(before)
        assert member_syntax._cpp_scope(before) == (m.group(1) if m else None)
    if before.endswith((b"->", b".")):
        m = _CPP_MEMBER.search(before)
        assert member_syntax._cpp_member(before) == (m.group(1) if m else None)


_SCRIPT_TEXT = _texts(b"a", b"xs", b"_", b"7", b"$", b" ", b"\n", b".", b"?.", b"(", b")", b"]", b"[", b"[k]", b"!",
                      b"new ", b"x", b"s", b"return", b" as T", b"in ", b"f(", b"'", size=12)


def _dotted_at_end(text: bytes) -> tuple[str, ...] | None:
    m = re.search(rb"(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)\s*$", text)
    if m is None:
        return None
    before = text[:m.start()].rstrip()
    if before.endswith((b".", b")", b"]", b"}", b"!", b"'", b'"', b"`")) or re.search(rb"\bnew$", before):
        return None
    return tuple(p.strip().decode() for p in m.group(1).split(b"."))


@settings(max_examples=examples(250), deadline=None)
@given(_SCRIPT_TEXT)
def test_script_receivers_are_read_back_as_searched(text):
    """A container's dotted names (`_dotted_at_end`); what stands before a parenthesis, an
    expression's or a call's (`parenthesized`)."""
    assert script_annotations._dotted_at_end(text) == _dotted_at_end(text)
    before = text + b")."
    i = opening_bracket(before, len(before) - 2)
    if i is not None:
        lead = re.search(rb"([\w$]+|[)\]])\s*$", before[:i])
        expression = lead is None or lead.group(1) in script_casts._BEFORE_EXPRESSION
        assert script_casts.parenthesized(before) == (before[i + 1:-2] if expression else None)


_CALLBACK = re.compile(rb"(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)\s*\??\.\s*(" + "|".join(
    script_annotations._ARRAY_CALLBACKS).encode() + rb")\s*\(\s*(?:async\s+)?(?:function\b\s*[\w$]*\s*\(([^()]*)\)|\(([^()]*)\)"
                       rb"\s*(?::[^=]*)?=>|(" + IDENT + rb")\s*=>)")


@settings(max_examples=examples(250), deadline=None)
@given(st.lists(st.tuples(st.sampled_from([b"", b" ", b";", b"=> ", b")", b"("]),
                          st.sampled_from([b"xs", b"this.xs", b"a . b", b"1a.b", b"f()", b"", b"new xs", b"$"]),
                          st.sampled_from([b".forEach(", b"?.map(", b" .reduce(", b".map (", b".mapx("]),
                          st.sampled_from([b"(s) => ", b"s => ", b"function (s) {", b"function f(a, s)",
                                           b"(a, s): T => ", b"async (s) =>", b"(s = 1) =>", b"(s):", b"s"])),
                max_size=4).map(lambda parts: b"".join(b"".join(p) for p in parts)))
def test_callbacks_are_found_where_the_whole_pattern_finds_them(text):
    found = [(m.start(1), m.end(1), m.group(2).decode(), next(g for g in m.groups()[2:] if g is not None))
             for m in _CALLBACK.finditer(text)]
    assert list(script_annotations._callbacks(text)) == found


def _instance_alias(line: bytes, name: str) -> bool | None:
    word = re.escape(name.encode())
    declared = re.search(rb"\b(?:const|let|var)\s+" + word + rb"(?![\w$])\s*(?::[^=]*)?(=?)", line)
    if declared is not None:
        return bool(declared.group(1)) and re.compile(rb"\s*this\s*(?:;|,|$)").match(line, declared.end()) is not None
    alone = rb"(?<![\w$.])" + word + rb"(?![\w$.])"
    if re.search(rb"\bfunction\b[^(]*\([^()]*" + alone, line) or \
            re.search(rb"\([^()]*" + alone + rb"[^()]*\)\s*(?::[^=]*)?=>", line) or re.search(alone + rb"\s*=>", line):
        return False
    return None


@settings(max_examples=examples(250), deadline=None)
@given(_texts(b"s", b"self", b" ", b"(", b")", b",", b":", b"=", b"=>", b">", b"function", b"function ", b"x", b".",
              b"const ", b"this", b";", b"\n"))
def test_an_alias_of_this_is_told_as_the_patterns_tell_it(line):
    for name in ("s", "self"):
        assert JavaScriptBindings().instance_alias(line, name) == _instance_alias(line, name)


def test_a_dotted_receiver_is_read_back_at_most_dotted_names_long():
    """`a.a. ... .a.m`: up to `DOTTED_NAMES` names the receiver; more, none is read."""
    rules = JavaScriptBindings()
    for count, receiver in ((DOTTED_NAMES, ("a",) * DOTTED_NAMES), (DOTTED_NAMES + 1, ())):
        line = b"a." * count + b"m"
        assert rules.site_syntax(line, len(line) - 1, "m").receiver == receiver


def test_a_chain_of_keys_is_read_back_at_most_chain_steps_long():
    """`x[k].f[k]. ... .m`: a chain of up to `CHAIN_STEPS` fields and keys is read; a longer
    one is not (each site of it read the chain before it back)."""
    steps = script_chains.CHAIN_STEPS
    read = script_chains.chain_before(b"x" + b"[k].f" * (steps // 2) + b".")
    assert read is not None and read.names == ("x",) and len(read.steps) == steps
    assert script_chains.chain_before(b"x" + b"[k].f" * (steps // 2 + 1) + b".") is None
