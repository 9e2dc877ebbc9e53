"""Extraction on hostile and unusual input: skip reasons, pathological nesting, encodings,
plain-tokenizer files, occurrence cap, determinism of the encoded facts."""

from __future__ import annotations

import os
import sys

import msgspec
import pytest

from indexer.extract.blob import extract_blob
from indexer.extract.tags import SIGNATURE_MAX
from indexer.extract.tokens import OCCURRENCE_CAP
from indexer.lang.registry import GRAMMAR_LANGUAGES
from indexer.store.versions import snapshot_version

ALL_GRAMMARS = sorted(GRAMMAR_LANGUAGES)


def test_extractor_version_is_a_string():
    assert isinstance(snapshot_version(), str) and snapshot_version()


def test_empty_file():
    for language in ALL_GRAMMARS + ["markdown", "text"]:
        facts = extract_blob(b"", "empty", language)
        assert (facts.skipped, facts.lines, facts.symbols, facts.occurrences) == ("", 0, [], [])


def test_binary_is_skipped_without_lines():
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 10
    facts = extract_blob(data, "logo.png", "binary")
    assert (facts.language, facts.skipped, facts.lines) == ("binary", "binary", -1)
    # a NUL in the first 8 KiB makes even a ".py" blob binary
    facts = extract_blob(b"def f():\n    pass\n\x00\x01", "x.py", "python")
    assert (facts.language, facts.skipped, facts.symbols) == ("binary", "binary", [])
    # but not a NUL after the first 8 KiB
    late_nul = b"def f():\n    pass\n" + b"# pad\n" * 2000 + b"\x00"
    assert extract_blob(late_nul, "x.py", "python").skipped == ""


def test_too_large_keeps_lines():
    data = b"def f():\n    return 1\n" * 100_000  # 2.2 MB
    assert len(data) > 2_000_000
    facts = extract_blob(data, "big.py", "python")
    assert (facts.skipped, facts.lines, facts.symbols) == ("too_large", 200_000, [])
    # a larger cap parses a file over the default one
    data = b"def f():\n    return 1\n" * 50_000  # 1.1 MB
    assert extract_blob(data, "big.py", "python").skipped == "too_large"
    facts = extract_blob(data, "big.py", "python", size_cap=2 << 20)
    assert facts.skipped == "" and len(facts.symbols) == 50_000
    assert facts.symbols[-1].line == 99_999


def test_latin1_source_is_parsed():
    # Latin-1 accents in comments and strings: parsed like UTF-8 text, symbols intact.
    data = "# caf\u00e9 cr\u00e8me\ndef naive():\n    return 'd\u00e9j\u00e0'\n\nclass K:\n    pass\n".encode("latin-1")
    facts = extract_blob(data, "legacy.py", "python")
    assert facts.skipped == ""
    assert [(s.name, s.kind, s.line, s.end_line) for s in facts.symbols] == [
        ("naive", "function", 2, 3), ("K", "class", 5, 6)]
    # an invalid byte inside an identifier does not crash; names decode with replacement
    odd = "def na\u00efve():\n    pass\n".encode("latin-1")
    facts = extract_blob(odd, "odd.py", "python")
    assert facts.skipped == "" and facts.lines == 2
    assert all(isinstance(o.name, str) for o in facts.occurrences)


def test_undecodable():
    utf16 = "def f():\n    pass\n".encode("utf-16")
    facts = extract_blob(utf16, "x.py", "python")
    assert (facts.skipped, facts.lines, facts.symbols) == ("undecodable", 2, [])
    noise = bytes(range(128, 256)) * 100 + b"\nabc\n"
    facts = extract_blob(noise, "x.txt", "text")
    assert facts.skipped == "undecodable" and facts.lines == 2


def test_minified_javascript():
    line = b"var a=function(b){return b+1};" * 400
    facts = extract_blob(line + b"\n", "dist/app.js", "javascript")
    assert (facts.skipped, facts.lines, facts.symbols) == ("minified", 1, [])
    assert extract_blob(b"function f(){}\n", "vendor/lib.min.js", "javascript").skipped == "minified"
    # a normal file with one long line is not minified
    normal = b"function f() {\n  return 1;\n}\n" * 200 + b"const s = '" + b"x" * 3000 + b"';\n"
    assert extract_blob(normal, "src/app.js", "javascript").skipped == ""
    # only script and style languages are checked: a long-lined markdown file is parsed
    assert extract_blob(b"word " * 2000 + b"\n", "README.md", "markdown").skipped == ""


def _nested(open_: bytes, close: bytes, depth: int, prefix: bytes = b"x = ", suffix: bytes = b"\n") -> bytes:
    return prefix + open_ * depth + close * depth + suffix


@pytest.mark.parametrize("language", ALL_GRAMMARS)
def test_pathological_nesting_does_not_crash(language):
    cases = [
        _nested(b"(", b")", 10_000),
        _nested(b"[", b"]", 10_000),
        _nested(b"{", b"}", 10_000, prefix=b"", suffix=b""),
        b"(" * 50_000,  # unbalanced: a 50,000-child ERROR node
        b"(\n" * 30_000,
        b"".join(b" " * i + b"def f%d():\n" % i for i in range(600)) + b" " * 600 + b"pass\n",
    ]
    for data in cases:  # how long each takes is the benchmark's to measure, not a test's
        facts = extract_blob(data, "deep", language)
        assert facts.skipped in ("", "unparseable", "minified"), facts.skipped
        assert facts.skipped != "extract_error"
        assert facts.lines == data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@pytest.mark.parametrize("language", ["c", "java", "go", "csharp", "php"])
def test_unclosed_block_comments_are_unparseable_with_bounded_bytes_handed(language, monkeypatch):
    """Each `/*` that never closes was lexed to the end of the file again, every chunk handed
    over kept by py-tree-sitter: time and memory quadratic in the file. The bytes handed to the
    parser are budgeted, far above what a real file reads (under twice its size)."""
    from indexer.lang import grammars

    handed: list[int] = []
    chunk = grammars.Budget.chunk

    def counted(self: grammars.Budget, source: bytes, offset: int) -> bytes:
        piece = chunk(self, source, offset)
        if self.handed is not None:  # during the parse, not the tree's later reads of node text
            handed.append(len(piece))
        return piece

    monkeypatch.setattr(grammars.Budget, "chunk", counted)
    data = (b"<?php\n" if language == "php" else b"") + b"#if X\n" + b"/* " * 20_000
    facts = extract_blob(data, "x", language)
    assert facts.skipped == "unparseable"
    assert sum(handed) <= grammars.HANDED_BYTES_BASE + grammars.HANDED_BYTES_PER_BYTE * len(data)
    # an ordinary file of the same language is read under twice over, and parsed
    handed.clear()
    ordinary = (b"<?php\n" if language == "php" else b"") + b"/* a closed comment */\n" * 2_000
    assert extract_blob(ordinary, "y", language).skipped == ""
    assert 0 < sum(handed) <= 2 * len(ordinary)


def test_node_text_read_after_the_parse_costs_about_the_text_not_the_file(monkeypatch):
    """py-tree-sitter reads a node's text through the parse's reader, a chunk at a time from
    the node's start: with the parse's 64 kB chunk, each name the C hooks read (`Node.text`)
    copied the file's next 64 kB, so a file of many small declarations cost the product of
    their count and its size up to 64 kB (6,000 prototypes, 100 kB: 0.59 s to extract;
    800 declarations of 20 `const`s each: 0.57 s; now 0.24 s and 0.11 s). After the parse the
    reader hands at most _TEXT_CHUNK bytes a read, and the text is the same."""
    from indexer.lang import grammars

    reads: list[int] = []
    chunk = grammars.Budget.chunk

    def counted(self: grammars.Budget, source: bytes, offset: int) -> bytes:
        piece = chunk(self, source, offset)
        if self.handed is None:  # the tree's reads of node text, after the parse
            reads.append(len(piece))
        return piece

    monkeypatch.setattr(grammars.Budget, "chunk", counted)
    n = 2_000
    data = "".join("const " * 3 + f"int f{i}(void);\n" for i in range(n)).encode()
    facts = extract_blob(data, "x.c", "c")
    assert [s.name for s in facts.symbols] == [f"f{i}" for i in range(n)]
    assert 0 < len(reads) and max(reads) <= 1 << 10  # was: up to 64 kB a read
    assert sum(reads) <= 64 * len(data)  # was: over 3,000 times its size


def test_a_definitions_line_is_not_searched_for_through_the_source():
    """Each definition's line start was searched for back from its name (`rfind`), and its
    line end on from there (`find`): on a file of one line, back to its start and on to its end
    each time, the square of its size (80,000 declarations on one line, 869 kB: 3.2 s to
    extract, 0.9 s of it searching; now 1.2 s). The start is the name's column back from it,
    the end looked for in what the signature reads: no search of the source a definition, and
    the signatures the same."""
    n = 2_000
    data = ("".join(f"int a{i};" for i in range(n)) + "\nint b; /* " + "x" * 900 + " */\n").encode()
    searches = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal searches
        if event == "c_call" and getattr(arg, "__name__", "") in ("find", "rfind") and getattr(arg, "__self__", None) is data:
            searches += 1

    sys.setprofile(count)
    try:
        facts = extract_blob(data, "one.c", "c")
    finally:
        sys.setprofile(None)
    assert searches < 10  # was: two a definition
    assert [s.name for s in facts.symbols] == [*(f"a{i}" for i in range(n)), "b"]
    line = data.split(b"\n")[0].decode()
    assert {s.signature for s in facts.symbols[:n]} == {line[:SIGNATURE_MAX]}
    assert facts.symbols[-1].signature == ("int b; /* " + "x" * 900)[:SIGNATURE_MAX]
    # what the signature reads is 800 bytes from the line's start: a line indented by 700
    # spaces still shows its code
    indented = extract_blob(b" " * 700 + b"int f(void) { return 0; }\n", "deep.c", "c")
    assert [s.signature for s in indented.symbols] == ["int f(void) { return 0; }"]


def test_deep_python_nesting_keeps_symbols_and_containers():
    depth = 200
    data = b"".join(b"    " * i + b"class C%d:\n" % i for i in range(depth)) + b"    " * depth + b"pass\n"
    facts = extract_blob(data, "deep.py", "python")
    assert facts.skipped == ""
    assert len(facts.symbols) == depth
    assert facts.symbols[-1].container == ".".join(f"C{i}" for i in range(depth - 1))


def _child_steps(data: bytes, path: str, language: str) -> int:
    """How many times the extraction of `data` steps from a tree node to one of its children
    by index (`Node.child`): a count of work that does not hang on the machine's speed."""
    from tree_sitter import Node

    steps = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal steps
        if event == "c_call" and getattr(arg, "__name__", "") == "child" and isinstance(getattr(arg, "__self__", None), Node):
            steps += 1

    sys.setprofile(count)
    try:
        assert extract_blob(data, path, language).skipped == ""
    finally:
        sys.setprofile(None)
    return steps


def test_definitions_sharing_a_deep_last_side_find_their_end_in_steps_linear_in_the_file():
    """A Python definition ends at its last token that is no comment, found down the last
    children of its node. Every target of `a0, a1, ... = - - ... 0` is a definition of the
    same assignment, whose value nests one level a `-` on its last side: each target walked
    it again, n targets times n levels. The walk is kept by node, so the file's steps stay
    under twice its targets."""
    n = 1_000
    data = (", ".join(f"a{i}" for i in range(n)) + " = " + "-" * n + "0\n").encode()
    assert _child_steps(data, "m.py", "python") <= 2 * n  # was: n * (n + 1)
    chain = (" = ".join(f"a{i}" for i in range(n)) + " = 0\n").encode()  # each target's value holds the next
    assert _child_steps(chain, "m.py", "python") <= 2 * n



def test_a_tree_deeper_than_the_query_cursor_counts_is_unparseable():
    """tree-sitter's query cursor keeps a match's start depth in 16 bits, so matches below
    65,535 levels are lost. `x = f(f(...))` takes two levels a call, and three above the first."""
    at_limit = extract_blob(_nested(b"f(", b")", 32_766, prefix=b"x = ", suffix=b"\n"), "calls.py", "python")
    assert at_limit.skipped == "" and [s.name for s in at_limit.symbols] == ["x"]
    over = extract_blob(_nested(b"f(", b")", 32_767, prefix=b"x = ", suffix=b"\n"), "calls.py", "python")
    assert over.skipped == "unparseable" and over.symbols == []  # was: parsed, its deepest call lost
    assert {(o.name, o.role) for o in over.occurrences} == {("x", "identifier"), ("f", "identifier")}

def test_unparseable_falls_back_to_plain_occurrences():
    data = b"alpha beta\n" + b"(" * 50_000
    facts = extract_blob(data, "bad.py", "python")
    assert facts.skipped == "unparseable"
    assert facts.symbols == []
    assert [(o.name, o.line, o.col, o.role) for o in facts.occurrences] == [
        ("alpha", 1, 0, "identifier"), ("beta", 1, 6, "identifier")]


def test_plain_tokenizer_for_other_text():
    data = b"# Title\n\nUse `load_config` in the parser.\nif x then return\n"
    facts = extract_blob(data, "README.md", "markdown")
    assert facts.skipped == "" and facts.lines == 4 and facts.symbols == []
    got = [(o.name, o.line, o.col, o.role) for o in facts.occurrences]
    assert got == [
        ("Title", 1, 2, "identifier"),
        ("Use", 3, 0, "identifier"),
        ("load_config", 3, 5, "identifier"),
        ("the", 3, 21, "identifier"),
        ("parser", 3, 25, "identifier"),
        ("x", 4, 3, "identifier"),  # `if`, `then`, `return` are keywords
    ]


def test_occurrence_cap_is_deterministic_prefix():
    data = b"".join(b"v%d = w%d\n" % (i, i) for i in range(15_000))  # 30,000 identifiers
    facts = extract_blob(data, "many.py", "python")
    assert len(facts.occurrences) == OCCURRENCE_CAP
    assert facts.occurrences[0].name == "v0" and facts.occurrences[-1].line == OCCURRENCE_CAP // 2
    text = extract_blob(data, "many.txt", "text")
    assert len(text.occurrences) == OCCURRENCE_CAP
    assert text.occurrences == sorted(text.occurrences, key=lambda o: (o.line, o.col))
    assert facts.occurrences_capped and text.occurrences_capped
    assert not extract_blob(b"a = b\n", "few.py", "python").occurrences_capped
    # with definition sites no identifier leaf stands for (Ruby's `attr_reader :owner`) too
    ruby = extract_blob(b"class K\n  attr_reader :owner; z = 1\nend\n" + b"x = y\n" * 15_000, "k.rb", "ruby")
    assert len(ruby.occurrences) == OCCURRENCE_CAP and ruby.occurrences_capped
    assert [(o.name, o.line, o.col, o.role) for o in ruby.occurrences[:4]] == [  # in document order
        ("K", 1, 6, "definition"), ("attr_reader", 2, 2, "call"), ("owner", 2, 15, "definition"),
        ("z", 2, 22, "local")]  # a local of the class body


def test_generated_marks():
    cases = {
        b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n": "header:go-code-generated",
        b"/* @generated by relay */\nexport const x = 1;\n": "header:@generated",
        b"# This file is autogenerated by pip-compile\nrequests==2\n": "header:autogenerated",
        b"<!-- DO NOT EDIT: built by tool -->\n<p>x</p>\n": "header:do-not-edit",
        b"x = 1\n": "",
    }
    for data, rule in cases.items():
        assert extract_blob(data, "f", "text").generated == rule
    assert extract_blob(b"// Code generated by x. DO NOT EDIT.\npackage x\n", "x.go", "go").generated == \
        "header:go-code-generated"


def test_a_file_skipped_unparsed_keeps_its_generated_mark():
    # The mark is read from the first lines, which a minified or too large file still has.
    bundle = b"/* @generated by webpack */\n" + b"var a=1;" * 1000 + b"\n"
    facts = extract_blob(bundle, "dist/app.js", "javascript")
    assert (facts.skipped, facts.generated) == ("minified", "header:@generated")
    large = b"// Code generated by protoc-gen-go. DO NOT EDIT.\n" + b"var x int\n" * 120_000
    facts = extract_blob(large, "big.pb.go", "go")
    assert (facts.skipped, facts.generated) == ("too_large", "header:go-code-generated")


def _corpus() -> list[tuple[bytes, str, str]]:
    here = os.path.dirname(__file__)
    items = []
    for name in sorted(os.listdir(here)):
        if name.startswith("test_extract") and name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as handle:
                items.append((handle.read(), name, "python"))
    from tests.test_extract_languages import CASES
    for language, path, source, _symbols, _imports in CASES:
        items.append((source.encode(), path, language))
    items.append((b"# Notes\n\nSee `thing`.\n", "NOTES.md", "markdown"))
    return items


def test_deterministic_encoding():
    corpus = _corpus()
    first = [msgspec.msgpack.encode(extract_blob(data, path, lang)) for data, path, lang in corpus]
    # a different order and interleaving must not change any blob's facts
    second = [msgspec.msgpack.encode(extract_blob(data, path, lang)) for data, path, lang in reversed(corpus)]
    assert first == list(reversed(second))
    assert all(b"extract_error" not in blob for blob in first)


def test_many_files_in_one_process():
    # Regression guard: py-tree-sitter 0.26.0 had a use-after-free under repeated parses with
    # node traversal; extract a few hundred real files in this process and check stability.
    import argparse
    import inspect as inspect_module
    import json
    paths = [argparse.__file__, json.__file__, inspect_module.__file__, msgspec.__file__, pytest.__file__]
    blobs = []
    for path in paths:
        with open(path, "rb") as handle:
            blobs.append(handle.read())
    for _ in range(20):
        for data in blobs:
            facts = extract_blob(data, "m.py", "python")
            assert facts.skipped == ""


def test_truncated_and_foreign_sources_never_error():
    # Every snippet, cut at several points, parsed with every grammar: partial trees and
    # ERROR nodes everywhere, yet never an extraction error.
    from tests.test_extract_languages import CASES
    for _language, path, source, _symbols, _imports in CASES:
        data = source.encode()
        for cut in (len(data) // 7, len(data) // 3, len(data) // 2, len(data) - 3):
            for language in ALL_GRAMMARS:
                facts = extract_blob(data[:cut], path, language)
                assert facts.skipped in ("", "unparseable"), (path, language, cut, facts.skipped)
                assert facts.occurrences == sorted(facts.occurrences, key=lambda o: (o.line, o.col))
