"""Bounds on a parse and on the tree it gives (indexer/lang/grammars.py): a parse that runs over
its step count (`Budget`), or past its wall-clock deadline, is stopped, and the blob is
`unparseable` with the plain tokenizer's sites. No real source comes near the documented step
budget (a few percent of it), so the limits are lowered here to show that each one stops a
parse on its own. An ERROR node too wide to query, and the error bytes that choose between two
parses of one source (`error_bytes`), at their edges."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from indexer.lang import grammars

SOURCE = b"".join(b"def f%d(a):\n    return a + %d\n" % (i, i) for i in range(300))


def test_a_source_within_the_budget_is_parsed():
    facts = extract_blob(SOURCE, "m.py", "python")
    assert facts.skipped == "" and len(facts.symbols) == 300


def test_a_parse_over_its_step_count_is_unparseable(monkeypatch):
    monkeypatch.setattr(grammars, "PARSE_STEPS_BASE", 3)
    monkeypatch.setattr(grammars, "PARSE_STEPS_PER_KIB", 0)
    facts = extract_blob(SOURCE, "m.py", "python")
    assert (facts.skipped, facts.symbols, facts.plain_sites) == ("unparseable", [], True)
    assert grammars.parse("python", SOURCE) is None


def test_a_parse_past_its_deadline_is_unparseable(monkeypatch):
    monkeypatch.setattr(grammars, "WALL_SECONDS_BASE", -1.0)  # a deadline already past
    monkeypatch.setattr(grammars, "WALL_SECONDS_PER_MIB", 0.0)
    facts = extract_blob(SOURCE, "m.py", "python")
    assert (facts.skipped, facts.symbols) == ("unparseable", [])


def test_an_error_node_of_more_than_2000_children_is_too_wide_to_query():
    # Python reads a run of stray `)` as one ERROR node holding each of them
    assert not grammars.has_wide_error(grammars.parse("python", b")" * 2000).root_node)
    assert grammars.has_wide_error(grammars.parse("python", b")" * 2001).root_node)
    assert extract_blob(b")" * 2000 + b"\ndef f(): pass\n", "m.py", "python").skipped == ""
    assert extract_blob(b")" * 2001 + b"\ndef f(): pass\n", "m.py", "python").skipped == "unparseable"
    # deeper in the tree too, past a clean subtree
    nested = b"def ok():\n    pass\n\ndef f():\n    if x:\n        y = [" + b")" * 2001 + b"]\n"
    assert grammars.has_wide_error(grammars.parse("python", nested).root_node)


@pytest.mark.parametrize("language, path, head, comment", [
    ("rust", "lib.rs", b"fn early() {}\nfn broken() {\n", b"// note\n"),
    ("php", "a.php", b"<?php\nfunction early() {}\nfunction broken() {\n", b"// note\n"),
    ("ruby", "a.rb", b"def early; end\ndef broken\n  if x\n", b"# note\n"),
    ("rust", "lib.rs", b"fn early() {}\nfn broken() {\n", b"/* note */\n"),
])
def test_comments_after_an_unclosed_block_do_not_make_an_error_too_wide(language, path, head, comment):
    # recovery leaves each trailing comment a child of one ERROR node; they cost the query no
    # more than their lines, so the file is read and its earlier definitions kept
    src = head + comment * 4000
    assert grammars.parse(language, src).root_node.has_error
    facts = extract_blob(src, path, language)
    assert facts.skipped == ""
    assert "early" in {s.name for s in facts.symbols}


def test_stray_tokens_among_comments_still_make_an_error_too_wide():
    # only the children that are no comment count: 2001 stray `)` with a comment after each
    wide = b"def f(): pass\n" + b")\n#c\n" * 2001
    assert grammars.has_wide_error(grammars.parse("python", wide).root_node)
    assert extract_blob(wide, "m.py", "python").skipped == "unparseable"
    narrow = b"def f(): pass\n" + b")\n#c\n" * 1000 + b"#c\n" * 3000
    assert not grammars.has_wide_error(grammars.parse("python", narrow).root_node)


def _error_bytes(node, root) -> int:
    """What `error_bytes` counts, written as its documentation says, recursively."""
    if node.is_missing:
        return 1
    if node.is_error and node != root:
        return node.end_byte - node.start_byte
    if node.child_count == 0:
        return node.end_byte - node.start_byte if root.is_error and node.parent == root else 0
    return sum(_error_bytes(child, root) for child in node.children)


BROKEN = [
    ("python", b"def f(:\n    pass\n\nclass K:\n    def m(self):\n        return (1,\n\nx = ]\n"),
    ("python", b"if x:\n    if y:\n        z = (\n    w = 1\nv = ]]\n"),
    ("c", b"int f( { return 1; }\nstruct S { int a };\nint g() { if (x { } }\n"),
    ("javascript", b"function f( { }\nclass K { m() { return [1, } }\nconst x = ;\n"),
    ("go", b"package m\nfunc f( {\n}\ntype T struct { a int\nfunc g() { x := }\n"),
    ("python", b")))"),
    ("python", b"def f():\n    return 1\n"),
]


def test_error_bytes_count_each_outermost_error_and_each_missing_node():
    for language, source in BROKEN:
        root = grammars.parse(language, source).root_node
        assert grammars.error_bytes(root) == _error_bytes(root, root), source
    counts = [grammars.error_bytes(grammars.parse(language, source).root_node) for language, source in BROKEN]
    assert counts[-1] == 0 and all(counts[:-1])
