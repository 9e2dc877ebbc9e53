"""Readers of one file's text at index time, for Bash, C#, Python, Go, Rust, Java, PHP and
Ruby, in work linear in the file: a regex search that fails is not retried over the same text
for each of many starts on one line, nor a text rewritten once for each level it nests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang import grammars
from indexer.lang.bash import retry as bash_retry
from indexer.lang.csharp import imports as cs_imports
from indexer.lang.csharp import retry as cs_retry
from tests.examples import examples

ROOT = Path(__file__).resolve().parents[1]


def run_child(code: str) -> None:
    """Run `code` in a child: the work is in regexes and slices, done in C where a test cannot
    count lines, so a quadratic reading fails the test at its timeout instead of hanging it."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=60, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@settings(max_examples=examples(250), deadline=None)
@given(st.lists(st.sampled_from([b"=~", b" ", b"\t", b"\\", b"\n", b"\r", b"]]", b"]", b"x", b"=", b"~"]),
                max_size=30).map(b"".join))
def test_bash_regex_operands_are_those_the_pattern_finds(data):
    """The `=~` operands read a line's last ` ]]` once are the ones `finditer` finds."""
    expected = [(m.span(), m.groups()) for m in bash_retry._BASH_REGEX.finditer(data)]
    assert [(m.span(), m.groups()) for m in bash_retry._regex_operands(data)] == expected


def test_bash_regex_operands_of_a_line_with_no_close_are_read_once():
    """`x =~ ` repeated on a line with no ` ]]`: each `=~` read on to the line's end and failed
    there (50,000 in 300 kB: 9 s of the file's extraction; 200,000: minutes)."""
    run_child("""if True:
        from indexer.lang.bash.retry import bash_pattern_view
        n = 200_000
        assert bash_pattern_view(b"[[ $a =~ " + b"x =~ " * n + b"\\n", None) is None
        assert bash_pattern_view(b"[[ $a =~ \\\\\\n" + b"x =~ " * n + b"\\n", None) is None
        view = bash_pattern_view(b"[[ $a =~ " + b"x =~ " * n + b" ]]\\n", None)
        assert view is not None and view.endswith(b"x ]]\\n")
    """)


def _branch_view_as_before(data: bytes) -> bytes | None:
    """The C# branch view as it was written first: whether a line is blanked asked of every
    open `#if` at each directive."""
    from indexer.lang.retry_views import blanked

    view: bytearray | None = None
    skipping: list[bool] = []
    blank_from = -1
    for match in cs_retry._CS_DIRECTIVE.finditer(data):
        word = match.group(1)
        if view is None:
            if word != b"if":
                continue
            view = bytearray(data)
        start, end = match.span()
        if blank_from >= 0:
            view[blank_from:start] = blanked(data[blank_from:start])
        if word == b"if":
            skipping.append(False)
        elif word in (b"elif", b"else") and skipping:
            skipping[-1] = True
        elif word == b"endif" and skipping:
            skipping.pop()
        view[start:end] = b" " * (end - start)
        blank_from = end if any(skipping) else -1
    if view is not None and blank_from >= 0:
        view[blank_from:] = blanked(data[blank_from:])
    return None if view is None else bytes(view)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from([b"#if X", b"  #if Y", b"#elif Z", b"#else", b"#endif", b"#region r",
                                 b", int b", b"int c;", b"// #if no", b""]), max_size=16))
def test_csharp_branch_view_is_the_one_asked_of_every_open_if(lines):
    """Counting the open `#if`s whose branch is blanked gives the view asking each of them did."""
    data = b"class A {\nvoid F(int a\n#if W\n" + b"\n".join(lines) + b"\n) {}\n}\n"
    root = grammars._parse("csharp", data).root_node
    view = cs_retry.csharp_branch_view(data, root)
    assert view is None or view == _branch_view_as_before(data)


def test_csharp_directives_of_unclosed_ifs_are_read_in_linear_time():
    """`#if` repeated and never closed: each directive asked every `#if` still open whether its
    branch was blanked (20,000 in 100 kB: 1.4 s of the file's extraction; 250,000: minutes)."""
    run_child("""if True:
        from indexer.extract.blob import extract_blob
        facts = extract_blob(b"#if\\n" * 250_000 + b"class A {}\\n", "a.cs", "csharp")
        assert [s.name for s in facts.symbols] == ["A"]
    """)


def _spec_as_before(spec: str) -> str:
    """A C# `using`'s type arguments taken away as they were first: the innermost `<...>` at
    each step, until none is left."""
    while "<" in spec:
        spec, count = re.subn(r"<[^<>]*>", "", spec)
        if not count:
            break
    return spec


@settings(max_examples=examples(250), deadline=None)
@given(st.text(alphabet="<>A.,_ ", max_size=30))
def test_csharp_using_type_arguments_go_in_one_reading_as_level_by_level(spec):
    assert cs_imports._without_type_arguments(spec) == _spec_as_before(spec)


def test_csharp_usings_of_deeply_nested_type_arguments_are_read_in_linear_time():
    """`using M = A<A<...B...>>;` 30,000 deep: its arguments were taken away one level per
    rewrite of the whole text (10 s a `using`; eight fit in a file of 720 kB)."""
    run_child("""if True:
        from indexer.extract.blob import extract_blob
        n = 30_000
        facts = extract_blob((b"using M = " + b"A<" * n + b"B" + b">" * n + b";\\n") * 8, "a.cs", "csharp")
        assert facts.skipped == "" and [i.spec for i in facts.imports] == ["A"] * 8
    """)


class _Read(list):
    """A node's children that count how many of them are read, one at a time or in a slice."""

    read = 0

    def __getitem__(self, key):  # type: ignore[override]
        got = super().__getitem__(key)
        _Read.read += len(got) if isinstance(key, slice) else 1
        return got


def test_rust_mod_declarations_read_the_attributes_above_them_alone(monkeypatch):
    """`mod m;` repeated: each copied every sibling before it to look back for a `#[path]`
    (80,000 in 950 kB: 12.7 s of extraction). The siblings read are now those looked at."""
    from indexer.extract.blob import extract_blob
    from indexer.lang import ancestry

    real = ancestry.place
    monkeypatch.setattr(ancestry, "place", lambda node, parent: (lambda kept: (_Read(kept[0]), kept[1]))(real(node, parent)))

    def work(n: int) -> int:
        _Read.read = 0
        facts = extract_blob(b"".join(b"mod m%d;\n" % i for i in range(n)) + b'#[path = "x.rs"]\nmod p;\n',
                             "src/lib.rs", "rust")
        assert len(facts.imports) == n + 1 and facts.imports[-1].names == ("x.rs",)
        return _Read.read

    assert work(2000) <= 2.1 * work(1000)


def test_python_dunder_all_of_many_writes_costs_a_bounded_work():
    """Each `__all__.append` copied what was listed so far and joined it with the way before,
    sorted: the square of the writes (5,000 in 135 kB: 5 s of extraction; 40,000 in 1 MB:
    minutes). Past NAMES_WORK names copied and joined, `__all__` is unknown (the module's
    public names stand for it) and the file's other facts are kept."""
    run_child("""if True:
        from indexer.extract.blob import extract_blob
        data = b'__all__ = ["a"]\\n' + b"".join(b'__all__.append("b%d")\\n' % i for i in range(40_000))
        facts = extract_blob(data + b"def f():\\n    pass\\n", "m.py", "python")
        assert facts.skipped == "" and facts.dunder_all is None and [s.name for s in facts.symbols][-1] == "f"
    """)


def test_python_dunder_all_of_a_thousand_writes_is_read():
    """Well below NAMES_WORK: read whole, branches and all."""
    from indexer.extract.blob import extract_blob

    data = (b'__all__ = ["a"]\n' + b"".join(b'__all__.append("b%d")\n' % i for i in range(1000))
            + b'try:\n    import x\nexcept ImportError:\n    __all__ += ["c"]\n')
    names = extract_blob(data, "m.py", "python").dunder_all
    assert names is not None and len(names) == 1002 and names == sorted(names) and "c" in names
