"""Whitespace inside a string is data: a change of spacing, blank lines, trailing spaces or
indentation inside a string, heredoc, template literal or raw string is signal, file and
hunk, where the file's grammar reads both sides; the same change between tokens stays
whitespace_only. A file no grammar reads is compared as lines alone: spacing between the words
of a line counts there."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta.hunks import index_hunks
from delta.inventory import inventory
from delta.packet import build_delta_packet
from delta.range import open_repository, resolve_range
from tests.examples import examples

SQL = 'QUERY = """\nSELECT name, total\n  FROM orders\n WHERE paid = 1\n"""\n'
FILLER = "".join(f"def fn_{i}(a, b):\n    return a + b * {i}\n\n" for i in range(12))


def classes(path: Path, base: str, head: str, **kw) -> dict[str, tuple[str | None, list[str | None]]]:
    """Each file's noise class and its hunks' classes."""
    packet = build_delta_packet(path, base, head, index=False, elements=False, write=False, **kw).packet
    return {f.path: (f.noise.cls if f.noise else None, [h.noise for h in f.hunks]) for f in packet.files}


def test_whitespace_inside_a_string_is_a_change(tmp_path):
    """Was: each of these whitespace_only, ranked with the noise: the same words on the same
    lines, though the program's data changed (a SQL query's text, a heredoc written to a
    file, a shell line that no longer continues, a template literal)."""
    sh = "cat <<EOF > /etc/app.conf\nlisten 80\nroot /srv\nEOF\necho \\\n  done\n"
    js = "const q = `\nselect a\n  from t\n`;\nconst f = (a, b) => a + b;\n"
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"spaced.py": 'x = "a b"\n', "blank.py": SQL, "trailing.py": SQL, "indent.py": SQL,
                     "body.sh": sh, "end.sh": sh, "cont.sh": sh, "tpl.js": js, "raw.go": "package p\n\nvar s = `a\nb`\n",
                     "code.py": SQL + FILLER, "code.sh": sh, "code.js": js, "macro.c": '#define GREETING "a b"\n',
                     "code.c": '#define LIMIT 10\nint f(int a, int b) { return a + b; }\n'})
    head = b.commit({
        "spaced.py": 'x = "a  b"\n',
        "blank.py": SQL.replace("  FROM", "\n  FROM"),  # a blank line in the query
        "trailing.py": SQL.replace("total\n", "total  \n"),
        "indent.py": SQL.replace("  FROM", "    FROM"),
        "body.sh": sh.replace("listen 80", "listen  80"),  # written to the file so
        "end.sh": sh.replace("EOF\necho", "EOF \necho"),  # `EOF ` ends no heredoc: the rest is its text
        "cont.sh": sh.replace("echo \\\n", "echo \\ \n"),  # `done` is now a command of its own
        "tpl.js": js.replace("  from t", "  from t\n"),
        "raw.go": "package p\n\nvar s = `a \nb`\n",
        # between tokens: spacing, trailing spaces and blank lines are whitespace only
        "code.py": SQL.replace('QUERY = """', 'QUERY  =  """') + FILLER.replace("(a, b)", "(a,  b)").replace(
            "\n\n", "\n\n\n") + "   \n",
        "code.sh": sh.replace("cat <<EOF >", "cat  <<EOF  >").replace("echo \\", "echo   \\") + "\n\n",
        "code.js": js.replace("const f = (a, b)", "const  f =  (a,  b)  ").replace(";\n", ";   \n"),
        "macro.c": '#define GREETING "a  b"\n',
        "code.c": '#define LIMIT 10   \nint f(int a,  int b) {  return a + b; }\n',  # a macro's body ends at its line's end
    })
    found = classes(tmp_path / "r", base, head)
    signal = ("spaced.py", "blank.py", "trailing.py", "indent.py", "body.sh", "end.sh", "cont.sh", "tpl.js", "raw.go",
              "macro.c")
    assert {p: found[p] for p in signal} == {p: (None, [None]) for p in signal}
    for path in ("code.py", "code.sh", "code.js", "code.c"):
        assert found[path][0] == "whitespace_only", path
    # past the capture cap the two sides are compared without their hunks, to the same answer
    capped = classes(tmp_path / "r", base, head, capture_cap=10)
    assert {p: capped[p][0] for p in found} == {p: found[p][0] for p in found}
    # and the same range gives the same packet, byte for byte
    once, again = (build_delta_packet(tmp_path / "r", base, head, index=False, out=tmp_path / "o").packet
                   for _ in range(2))
    assert msgspec.json.encode(once) == msgspec.json.encode(again)


def test_a_hunk_that_changes_whitespace_inside_a_string_is_signal_beside_a_real_change(tmp_path):
    """A real change elsewhere makes the file signal, and each hunk stands alone: the one that
    puts a space into the query is signal, the one that only respaces code is whitespace_only
    (was: both whitespace_only)."""
    text = SQL + FILLER + SQL.replace("QUERY", "OTHER").replace("paid", "due") + FILLER.replace("fn_", "gn_")
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"m.py": text})
    head = b.commit({"m.py": text.replace("SELECT name, total", "SELECT name,  total", 1)
                     .replace("return a + b * 5\n", "return a  +  b * 5   \n", 1)
                     .replace("WHERE due = 1", "WHERE due = 0").replace("gn_9(a, b)", "gn_9(a,  b)")})
    cls, hunks = classes(tmp_path / "r", base, head)["m.py"]
    assert cls is None
    assert hunks == [None, "whitespace_only", None, "whitespace_only"]


def test_a_file_no_grammar_reads_keeps_its_spacing_between_words(tmp_path, monkeypatch):
    """SQL, YAML or a text file: the grammar cannot say a space lies outside a string, so
    spacing between the words of a line is a change; indentation (where it is no syntax),
    blank lines, trailing spaces and line ends stay whitespace only. So are a Python file
    with a syntax error and one over the parse size cap. A backslash at a line's end keeps what
    follows it."""
    import delta.syntax as syntax

    sql = "SELECT name, total\n  FROM orders\n WHERE note = 'paid in full'\n"
    ci = "steps:\n  - run: |\n      make build \\\n        --jobs 2\n"
    broken = "def f(:\n    return 'a b'\n"
    big = "x = 'a b'\n" + "y = 1\n" * 2000
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"q.sql": sql, "ci.yml": ci, "notes.txt": "a b\n", "broken.py": broken, "big.py": big,
                     "lines.sql": sql, "cont.yml": ci})
    head = b.commit({
        "q.sql": sql.replace("'paid in full'", "'paid  in full'"),
        "ci.yml": ci.replace("make build", "make  build"),
        "notes.txt": "a  b\n",
        "broken.py": broken.replace("return 'a b'", "return  'a b'"),
        "big.py": big.replace("x = 'a b'", "x  =  'a b'"),
        "lines.sql": "\n" + sql.replace("  FROM", "\tFROM").replace("\n", "  \r\n") + "\n\n",
        "cont.yml": ci.replace("build \\\n", "build \\ \n"),
    })
    monkeypatch.setattr(syntax, "SIZE_CAP", 8192)  # the indexer's parse size cap, lowered: big.py is over it
    found = classes(tmp_path / "r", base, head)
    signal = ("q.sql", "ci.yml", "notes.txt", "broken.py", "big.py", "cont.yml")
    assert {p: found[p] for p in signal} == {p: (None, [None]) for p in signal}
    assert found["lines.sql"][0] == "whitespace_only"


def test_past_the_bytes_a_packet_parses_files_are_compared_as_lines(tmp_path, monkeypatch):
    """`SYNTAX_BYTES` bounds the sources a packet parses, in its own order: past it, spacing
    between the words of a line counts, as for a file no grammar reads; within it the same
    change is whitespace only."""
    import delta.syntax as syntax

    code = "".join(f"def fn_{i}(a, b):\n    return a + b\n" for i in range(40))
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": code, "b.py": code.replace("fn_", "gn_")})
    head = b.commit({"a.py": code.replace("(a, b)", "(a,  b)"), "b.py": code.replace("fn_", "gn_").replace(
        "(a, b)", "(a,  b)")})
    assert {p: c for p, (c, _) in classes(tmp_path / "r", base, head).items()} == dict.fromkeys(
        ("a.py", "b.py"), "whitespace_only")
    monkeypatch.setattr(syntax, "SYNTAX_BYTES", 2 * len(code) + 40 + 10)  # a.py's two sides, not b.py's
    assert {p: c for p, (c, _) in classes(tmp_path / "r", base, head).items()} == {
        "a.py": "whitespace_only", "b.py": None}


# A Python module made of pieces, each a fixed text or a stretch of whitespace an edit may
# change: ("code", ...) between tokens, ("string", ...) inside a string literal.
Piece = tuple[str, str, str]  # (kind, base text, head text when edited)


def _module(kinds: list[int]) -> list[Piece]:
    pieces: list[Piece] = []
    fixed = ("", "", "")
    for i, kind in enumerate(kinds):
        if kind == 0:  # a string on one line
            pieces += [("", f"v{i} =", ""), ("code", " ", "  "), ("", '"alpha', ""), ("string", " ", "  "),
                       ("", 'beta"', ""), ("code", "", "   "), ("", "\n", "")]
        elif kind == 1:  # a triple-quoted string of lines
            pieces += [("", f'Q{i} = """\n', ""), ("string", "  ", "    "), ("", "select a", ""),
                       ("string", " ", "   "), ("", "from t", ""), ("string", "", "  "), ("", "\n", ""),
                       ("string", "", "\n"), ("", 'where b"""', ""), ("code", "", "  "), ("", "\n", "")]
        else:  # a function
            pieces += [("", f"def f{i}(a,", ""), ("code", " ", "  "), ("", "b):\n    c = a +", ""), ("code", " ", "    "),
                       ("", "b\n", ""), ("code", "", "\n"), ("", "    return c", ""), ("code", "", "  "), ("", "\n", "")]
        pieces.append(("code", "", "\n"))  # a blank line between two statements
    return [p if p[0] else (p[0], p[1], p[1]) for p in pieces] or [fixed]


@st.composite
def _edited(draw: st.DrawFn) -> tuple[str, str, list[int]]:
    """A module, the same with some of its whitespace edited, and the head's lines of the
    edits that fell inside a string."""
    pieces = _module(draw(st.lists(st.integers(0, 2), min_size=1, max_size=6)))
    editable = [n for n, p in enumerate(pieces) if p[0]]
    chosen = set(draw(st.lists(st.sampled_from(editable), min_size=1, max_size=3, unique=True)))
    base, head, inside = [], [], []
    for n, (kind, old, new) in enumerate(pieces):
        if n in chosen and kind == "string":
            inside.append("".join(head).count("\n") + 1)
        base.append(old)
        head.append(new if n in chosen else old)
    return "".join(base), "".join(head), inside


@given(_edited())
@settings(max_examples=examples(100), deadline=None)
def test_whitespace_edits_in_and_out_of_strings_classify_alike_by_file_and_by_hunk(case):
    """Random whitespace edits of a real module, committed: the file is whitespace_only
    exactly when no edit fell inside a string, and each hunk is whitespace_only exactly when
    none of its changed lines holds such an edit."""
    base_text, head_text, inside = case
    with tempfile.TemporaryDirectory() as tmp:
        b = RepoBuilder(Path(tmp) / "r")
        base = b.commit({"m.py": base_text})
        head = b.commit({"m.py": head_text})
        cls, _ = classes(Path(tmp) / "r", base, head)["m.py"]
        assert cls == (None if inside else "whitespace_only"), (base_text, head_text)
        repo = open_repository(Path(tmp) / "r")
        (change,) = inventory(repo, resolve_range(repo, base, head))
        sides = (base_text.encode(), head_text.encode())
        for h in index_hunks(change, lambda: sides):
            held = any(h.new_start <= line < h.new_start + h.new_lines for line in inside)
            assert h.whitespace_only == (not held), (h.header, base_text, head_text)


def test_hunks_past_the_nodes_a_packet_walks_for_them_are_signal(tmp_path, monkeypatch):
    """A hunk's stretch is walked within `STRETCH_NODES` past its own bytes and the packet's
    `STRETCH_BUDGET`: past either it is signal, as a hunk deep in a hostile nesting would be."""
    import delta.syntax as syntax

    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"m.py": FILLER + FILLER.replace("fn_", "gn_")})
    head = b.commit({"m.py": FILLER.replace("return a + b * 2\n", "return a + b * 20\n").replace(
        "fn_8(a, b)", "fn_8(a,  b)") + FILLER.replace("fn_", "gn_").replace("gn_3(a, b)", "gn_3(a,  b)").replace(
        "gn_10(a, b)", "gn_10(a,  b)")})
    _, hunks = classes(tmp_path / "r", base, head)["m.py"]
    assert hunks == [None, "whitespace_only", "whitespace_only", "whitespace_only"]
    monkeypatch.setattr(syntax, "STRETCH_BUDGET", 0)
    assert classes(tmp_path / "r", base, head)["m.py"][1] == [None] * len(hunks)
    monkeypatch.undo()
    monkeypatch.setattr(syntax, "STRETCH_NODES", -10_000)
    assert classes(tmp_path / "r", base, head)["m.py"][1] == [None] * len(hunks)


def test_a_python_file_parsed_from_its_comment_view_is_read_by_its_grammar(tmp_path):
    """A Python file with a long run of comment lines is parsed from a view with the run
    blanked (tree-sitter-python's scanner is quadratic in such runs); the view keeps every
    token and literal where it stands, so the grammar still tells layout from data there:
    spacing between tokens is whitespace only and modifies no symbol, spacing inside a string
    is a change (was: such a file was compared as lines alone, its respaced code signal and
    each of its respaced functions modified)."""
    from indexer.lang import grammars

    comments = "".join(f"# note {i}\n" for i in range(40))
    source = comments + SQL + FILLER
    assert grammars.parse_as_shown("python", source.encode())[1] != source.encode()  # the view is what is parsed
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"layout.py": source, "data.py": source})
    head = b.commit({"layout.py": source.replace("(a, b)", "(a,  b)").replace("return a", "return  a"),
                     "data.py": source.replace("  FROM orders", "  FROM  orders")})
    assert classes(tmp_path / "r", base, head) == {
        "layout.py": ("whitespace_only", ["whitespace_only"]), "data.py": (None, [None])}
    from tests.test_elements_literals import _packet

    packet = _packet(tmp_path / "r", tmp_path / "home", base, head)
    modified = {fe.path: {c.qualified for c in fe.changes.items if c.change == "modified"} for fe in packet.elements.items}
    assert modified == {"layout.py": set(), "data.py": {"QUERY"}}, modified


def _crlf(text: str, line: str | None = None) -> str:
    """`text` with every line, or the one holding `line`, ended by a CRLF."""
    return "".join(s.replace("\n", "\r\n") if line is None or line in s else s for s in text.splitlines(True))


def test_a_cr_is_data_to_a_shell_and_a_line_end_elsewhere(tmp_path):
    """Bash splits words at spaces and tabs alone: a CR is part of the word it ends (`cd /tmp\\r`
    names another folder, `\\r` alone is a command), though tree-sitter-bash reads it as a blank.
    Was: a line made CRLF in a shell script whitespace_only, file and hunk. The same CRLF in
    Python, C, JavaScript, YAML, a Makefile (GNU make drops the CR) or a Dockerfile's
    instructions is a line end, whitespace only."""
    sh = 'd=/tmp/build\ncd /tmp\nrm -rf "$d"\n\nexit 0\n'
    docker = "FROM alpine\nRUN apk add curl\n"
    heredoc = "FROM alpine\nRUN <<EOF\napk add curl\nEOF\n"
    same = {"app.py": "def f(a, b):\n    return a + b\n", "lib.c": "int f(int a) {\n  return a;\n}\n",
            "app.js": "const f = (a) => {\n  return a;\n};\n", "ci.yml": "jobs:\n  run: |\n    make build\n",
            "Makefile": "A = x\nall:\n\techo $(A)\n", "img/Dockerfile": docker, "notes.txt": "a b\n"}
    data = {"one.sh": sh, "all.sh": sh, "blank.sh": sh, "deploy": "#!/bin/sh\n" + sh, "x.zsh": sh,
            "y.fish": sh, "run.bats": "#!/usr/bin/env bats\n" + sh, ".env": "HOME_DIR=/srv\n",
            "Dockerfile": heredoc}
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({**same, **data, "part.sh": sh + FILLER.replace("def", "#") + sh,
                     "part.py": FILLER + "x = 1\n" + FILLER})
    head = b.commit({
        **{p: _crlf(t) for p, t in same.items()},
        "one.sh": _crlf(sh, "cd /tmp"), "all.sh": _crlf(sh), "blank.sh": sh.replace("\n\n", "\n\r\n"),
        "deploy": "#!/bin/sh\n" + _crlf(sh, "rm -rf"), "x.zsh": _crlf(sh), "y.fish": _crlf(sh, "cd"),
        "run.bats": _crlf("#!/usr/bin/env bats\n" + sh), ".env": _crlf("HOME_DIR=/srv\n"),
        "Dockerfile": _crlf(heredoc),
        # a real change beside: the hunk that made a line CRLF stands alone
        "part.sh": _crlf(sh, "cd /tmp") + FILLER.replace("def", "#") + sh.replace("exit 0", "exit 1"),
        "part.py": _crlf(FILLER, "fn_1(") + "x = 2\n" + FILLER,
    })
    found = classes(tmp_path / "r", base, head)
    assert {p: found[p] for p in data} == {p: (None, [None] * len(found[p][1])) for p in data}
    assert {p: found[p][0] for p in same} == dict.fromkeys(same, "whitespace_only")
    assert found["part.sh"] == (None, [None, None])
    assert found["part.py"] == (None, ["whitespace_only", None])
    capped = classes(tmp_path / "r", base, head, capture_cap=10)  # the two sides alone, to the same answer
    assert {p: capped[p][0] for p in found} == {p: found[p][0] for p in found}


def test_a_side_not_read_says_a_cr_is_data_where_the_name_leaves_it_to_the_content():
    """`delta.hunks.cr_is_data`: a file named for no language (`deploy`) may be a shell's, so a
    side not read (None) says its CR is data; a name that tells the language decides alone."""
    from delta.hunks import cr_is_data

    assert cr_is_data("bin/deploy", b"plain words\n", None) and cr_is_data("bin/deploy", None, b"plain words\n")
    assert not cr_is_data("bin/deploy", b"plain words\n", b"plain words\n")
    assert not cr_is_data("app.py", None, None) and cr_is_data("run.sh", b"x\n", b"x\n")
    assert cr_is_data("img/Dockerfile", None) and not cr_is_data("img/Dockerfile", b"FROM alpine\n")
    assert cr_is_data("conf/.ENV.local", b"A=1\n")  # sourced by a shell, whatever its case
