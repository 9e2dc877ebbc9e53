"""YAML has no grammar here, but its block scalars are read (`delta/yaml_scalars.py`): a blank
line, a trailing space or a line of spaces inside one is the string's own, and a blank line
inside a multi-line quoted or plain scalar is a line break of its value, so a change there is
signal; trailing spaces outside a block scalar and blank lines between top-level keys are
whitespace only. PyYAML is the oracle: whatever the packet calls whitespace only loads the same."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta.hunks import index_hunks, whitespace_verdict
from delta.inventory import inventory
from delta.range import open_repository, resolve_range
from tests.examples import examples
from tests.test_noise_strings import classes

CI = """name: ci
on: push

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: |
          make build

          make test
      - run: >-
          echo one
          echo two
env:
  A: 1
"""


def test_whitespace_inside_a_block_scalar_is_data_and_between_keys_is_layout(tmp_path):
    """Was: each of the first five whitespace_only (the file compared as lines alone), though
    each changes a string YAML reads: a blank line put into or taken from a `run: |` script, a
    trailing space in one, a line of spaces past its indentation, a blank line inside a quoted
    string of two lines. Blank lines between top-level keys, trailing spaces outside the block
    scalars, the blank lines that end a block YAML drops, and CRLF line ends stay whitespace only."""
    quoted = 'msg: "first\n  second"\nother: 1\n'
    keys = "".join(f"key{i}: {i}\n" for i in range(8))
    b = RepoBuilder(tmp_path / "r")
    files = {"blank.yml": CI, "unblank.yml": CI, "trailing.yml": CI, "spaces.yml": CI, "quoted.yml": quoted,
             "layout.yml": CI, "crlf.yml": CI, "part.yml": CI + keys + "extra: 1\n" + keys + CI.replace("jobs:", "more:")}
    base = b.commit(files)
    head = b.commit({
        "blank.yml": CI.replace("make build\n", "make build\n\n"),
        "unblank.yml": CI.replace("make build\n\n", "make build\n"),
        "trailing.yml": CI.replace("make test\n", "make test \n"),
        "spaces.yml": CI.replace("make build\n\n", "make build\n            \n"),
        "quoted.yml": quoted.replace("first\n", "first\n\n"),
        "layout.yml": CI.replace("on: push\n", "on: push   \n\n").replace("env:", "\n\nenv:")
        .replace("make test\n", "make test\n\n"),  # the block's own ending blank line: dropped by `|`
        "crlf.yml": CI.replace("\n", "\r\n"),
        "part.yml": CI.replace("make build\n", "make build\n\n") + keys + "extra: 2\n" + keys
        + CI.replace("jobs:", "more:").replace("env:", "\nenv:"),
    })
    found = classes(tmp_path / "r", base, head)
    signal = ("blank.yml", "unblank.yml", "trailing.yml", "spaces.yml", "quoted.yml")
    assert {p: found[p] for p in signal} == {p: (None, [None]) for p in signal}
    assert found["layout.yml"][0] == found["crlf.yml"][0] == "whitespace_only"
    assert found["part.yml"] == (None, [None, None, "whitespace_only"])
    for path in signal + ("layout.yml", "crlf.yml"):  # the oracle agrees
        old, new = (b.repo[b.repo.revparse_single(f"{c}:{path}").id].data for c in (base, head))
        assert (yaml.safe_load(old) == yaml.safe_load(new)) == (found[path][0] == "whitespace_only"), path


def _entry(draw: st.DrawFn, n: int, depth: int) -> list[str]:
    """A mapping entry at `depth` spaces: a plain, quoted or flow value on one or two lines, a
    block scalar, or a nested mapping."""
    pad, inner = " " * depth, " " * (depth + 2)
    kind = draw(st.sampled_from([0, 1, 1, 1, 2, 3, 4, 5] + ([6] if depth < 4 else [])))  # block scalars the most
    key = f"{pad}k{n}:"
    if kind == 0:
        return [f"{key} v{n} w"]
    if kind == 1:
        return [f"{key} {draw(st.sampled_from(['|', '|-', '|+', '>', '>+', '>-', '|2']))}"] + [
            f"{inner}{' ' * draw(st.integers(0, 2)) if i else ''}line {i}" for i in range(draw(st.integers(1, 3)))]
    if kind == 2:  # its second line at the margin may read as a key, or an item
        q = draw(st.sampled_from(['"', "'"]))
        return [f"{key} {q}a{n} b", f"{draw(st.sampled_from([inner, inner[depth + 2:]]))}{draw(st.sampled_from(['', '- ', 'c: ']))}"
                f"d{n}{q}"]
    if kind == 3:
        return [f"{key} a{n} b", f"{inner}{draw(st.sampled_from(['', '- ']))}c{n} d"]  # a plain scalar of two lines
    if kind == 4:
        return [f"{key} [x{n},", f"{inner}y{n}]"]
    if kind == 5:
        return [f"{pad}# note {n}"]
    return [key] + [line for m in range(draw(st.integers(1, 2))) for line in _entry(draw, n * 10 + m, depth + 2)]


@st.composite
def _document(draw: st.DrawFn) -> tuple[str, str]:
    """A YAML document, and the same with one or two whitespace edits: a blank line (with or
    without spaces) put in or taken out, a blank line's spaces changed, trailing spaces put on
    a line."""
    lines = [line for n in range(draw(st.integers(1, 5))) for line in _entry(draw, n, 0)]
    if draw(st.integers(0, 4)) == 0:  # a document whose root is a scalar of lines
        lines = draw(st.sampled_from([["a b", "- c"], ['"a b', "c: d\""], ["--- |", "  a", "", "  b"]]))
    lines.append("")  # the file's end
    blank = st.sampled_from(["", "", " ", "  ", "    ", "      "])
    gaps = [draw(st.lists(blank, max_size=2)) for _ in lines]
    edited = [list(gap) for gap in gaps]
    ends = [""] * len(lines)
    for _ in range(draw(st.integers(1, 2))):
        at = draw(st.integers(0, len(lines) - 1))
        how = draw(st.integers(0, 2))
        if how == 0:
            edited[at] = [*edited[at], draw(blank)] if draw(st.booleans()) else edited[at][1:]
        elif how == 1 and edited[at]:  # a blank line's spaces
            edited[at] = [draw(blank), *edited[at][1:]]
        else:
            ends[at] = draw(st.sampled_from([" ", "  "]))
    old = [x for gap, line in zip(gaps, lines) for x in (*gap, line)]
    new = [x for gap, line, end in zip(edited, lines, ends) for x in (*gap, line + end)]
    return "\n".join(old), "\n".join(new)


def _load(text: str) -> tuple[bool, object]:
    try:
        return True, yaml.safe_load(text)
    except yaml.YAMLError:
        return False, None


@given(_document())
@settings(max_examples=examples(3000), deadline=None)
def test_what_is_whitespace_only_in_yaml_loads_the_same(case):
    """Random YAML documents, respaced: whatever the two sides' verdict calls whitespace only
    loads to the same value (or fails to load on both sides)."""
    old, new = case
    if whitespace_verdict(old.encode(), new.encode(), "c.yml") is not None:
        assert _load(old) == _load(new), (old, new)


@given(_document())
@settings(max_examples=examples(100), deadline=None)
def test_a_yaml_change_whose_every_hunk_is_whitespace_only_loads_the_same(case):
    """The same documents committed: a change each of whose hunks is whitespace_only, each read
    with its file's two sides, loads to the same value, and the file is whitespace only too."""
    old, new = case
    with tempfile.TemporaryDirectory() as tmp:
        b = RepoBuilder(Path(tmp) / "r")
        base, head = b.commit({"c.yml": old}), b.commit({"c.yml": new})
        repo = open_repository(Path(tmp) / "r")
        changes = inventory(repo, resolve_range(repo, base, head))
        sides = (old.encode(), new.encode())
        hunks = [h for change in changes for h in index_hunks(change, lambda: sides)]
        if hunks and all(h.whitespace_only for h in hunks):
            assert _load(old) == _load(new), (old, new)
            assert whitespace_verdict(*sides, "c.yml") is not None


def test_a_document_of_keys_and_comments_respaced_between_them_is_whitespace_only():
    """The layout YAML ignores stays whitespace only in a document that holds a quote or a flow
    on one line: blank lines between keys, top-level or nested, and comments, trailing spaces,
    blank lines ending the file."""
    old = "a: 1\nb: 'x'\nc: [1, 2]\n# c\nd:\n  g: 1\n  e: |\n    t\nf: \"q\"\nl:\n  - 1\n  - 2\n"
    new = ("a: 1  \n\nb: 'x' \n\n\nc: [1, 2]\n\n# c\nd:\n  g: 1\n\n  e: |\n    t\n\n\nf: \"q\"\n\n"
           "l:\n  - 1\n  - 2\n\n")
    assert whitespace_verdict(old.encode(), new.encode(), "c.yaml") == "lines"
    assert yaml.safe_load(old) == yaml.safe_load(new)
    # a blank line before a nested item, or after a quote left open, is not told from data: signal
    for head in (old.replace("  - 2", "\n  - 2"), "k: 'a\n\nb: c'\n"):
        base = head.replace("\n\n", "\n")
        assert whitespace_verdict(base.encode(), head.encode(), "c.yaml") is None


def test_whitespace_in_a_block_scalar_at_the_documents_root_is_data():
    """A root block's text may start at the margin (YAML 1.2: its parent's indentation is -1;
    PyYAML refuses it, so no load is compared): its trailing spaces and indentation are data."""
    for old, new in (("--- |\nline one\n", "--- |\nline one  \n"),
                     ("--- |\nline one\nline two\n", "--- |\nline one\n line two\n")):
        assert whitespace_verdict(old.encode(), new.encode(), "c.yml") is None


@pytest.mark.parametrize("old, new", [
    ("key: |\n  a", "key: |\n  a\n"),  # a file ending in a block: whether its last line ends
    ("key: | # c\n  a\n", "key: | # c\n  a  \n"),  # a header with a comment is a header
    ("key: |\n  a\n   \n  b\n", "key: |\n  a\n  \t\n  b\n"),  # a tab is no space
    ('k: "a\\\n  b"\n', 'k: "a\\ \n  b"\n'),  # after a line-end backslash, a space is escaped
    ("- [a\n\n- b]\n", "- [a\n- b]\n"),  # a flow left open runs across the blank line
])
def test_whitespace_yaml_reads_as_data_is_signal(old, new):
    assert _load(old) != _load(new)
    assert whitespace_verdict(old.encode(), new.encode(), "c.yml") is None


@pytest.mark.parametrize("old, new", [
    ("key: |\n  a\n\n  b\n", "key: |\n  a\n  \n  b\n"),  # a line of spaces within the block's indentation
    ("key: |\n  a\n  \nnext: 1\n", "key: |\n  a\nnext: 1\n"),  # a blank line ending a block, clipped
    ("\n\na: 1\nb: 2\n", "a: 1\nb: 2\n"),  # before the document's first line
    ("%YAML 1.1\n\n---\na: 1\n", "%YAML 1.1\n---\na: 1\n"),  # a directive is no line of the document
    ('"a b\nc: d"\n\n', '"a b\nc: d"\n '),  # a file's final line end, after a quote spanning lines
])
def test_layout_yaml_reads_as_no_data_is_whitespace_only(old, new):
    assert _load(old) == _load(new)
    assert whitespace_verdict(old.encode(), new.encode(), "c.yml") == "lines"
