"""Whitespace inside a literal is data to the element differ too: a symbol whose words are the
same on both sides but whose string, heredoc or template literal changed its spacing, blank
lines, trailing spaces or indentation is modified (and is no move); the same spacing changed
between tokens modifies nothing. Where the grammar cannot say (no tree of a side, a bound of
the packet passed), a symbol whose bytes differ is modified."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from indexer.api import open_store
from tests.examples import examples


def _packet(repo: Path, home: Path, base: str, head: str):
    with open_store(home) as store:
        return build_delta_packet(repo, base, head, store=store, write=False).packet


def _elements(tmp_path: Path, base_files: dict[str, str], head_files: dict[str, str]) -> dict[str, set[tuple]]:
    b = RepoBuilder(tmp_path / "r")
    base = b.commit(base_files)
    head = b.commit(head_files)
    p = _packet(tmp_path / "r", tmp_path / "home", base, head)
    return {fe.path: {(c.change, c.qualified, c.from_path) if c.from_path else (c.change, c.qualified)
                      for c in fe.changes.items} for fe in p.elements.items}


PY = '''def greet(name):
    return "hello, " + name


def query():
    return """
SELECT name, total
  FROM orders
 WHERE paid = 1
"""


def calm(a, b):
    return a + b


class Jobs:
    def clean(self):
        return "rm -rf /tmp/x"

    def keep(self):
        return "ok"
'''

SH = '''write_conf() {
  cat <<EOF > /etc/app.conf
listen 80
root /srv
EOF
}

banner() {
  cat <<EOF
welcome
EOF
}

calm() {
  echo  ok
}
'''

JS = '''function render(rows) {
  return `
<ul>
  ${rows}
</ul>
`;
}

class View {
  title() {
    return `a b`;
  }
}

function calm(a, b) {
  return a + b;
}
'''

GO = '''package p

func Cmd() string {
\treturn `rm -rf /tmp/x`
}

func Calm(a, b int) int {
\treturn a + b
}
'''

RB = '''def banner
  <<~TEXT
    welcome home
  TEXT
end

def calm(a, b)
  a + b
end
'''


def test_whitespace_inside_a_literal_modifies_its_symbol(tmp_path):
    """Was: none of these symbols listed (their words are the same): a space put into a Python
    string, a blank line in a SQL query, a trailing space and a blank line in Bash heredocs, an
    indent in a JavaScript template literal and spacing in another, a Go raw string, a Ruby
    heredoc. The same file's respaced code between tokens modifies nothing."""
    head = {
        "m.py": PY.replace('"hello, "', '"hello,  "').replace("  FROM orders", "\n  FROM orders")
        .replace("return a + b", "return a  +  b   ").replace('return "ok"', 'return  "ok"')
        .replace("rm -rf /tmp/x", "rm -rf  /tmp/x"),
        "m.sh": SH.replace("listen 80", "listen 80 ").replace("welcome\n", "welcome\n\n").replace("echo  ok", "echo ok"),
        "m.js": JS.replace("  ${rows}", "    ${rows}").replace("`a b`", "`a  b`")
        .replace("return a + b;", "return a  +  b;   "),
        "m.go": GO.replace("rm -rf /tmp/x", "rm -rf /tmp/x ").replace("a + b", "a  +  b"),
        "m.rb": RB.replace("welcome home", "welcome  home").replace("a + b", "a  +  b"),
    }
    got = _elements(tmp_path, {"m.py": PY, "m.sh": SH, "m.js": JS, "m.go": GO, "m.rb": RB}, head)
    assert got == {
        "m.py": {("modified", "greet"), ("modified", "query"), ("modified", "Jobs"), ("modified", "Jobs.clean")},
        "m.sh": {("modified", "write_conf"), ("modified", "banner")},
        "m.js": {("modified", "render"), ("modified", "View"), ("modified", "View.title")},
        "m.go": {("modified", "Cmd")},
        "m.rb": {("modified", "banner")},
    }


def test_a_symbol_moved_with_a_literal_respaced_is_modified_not_moved(tmp_path):
    """Moved is for a body kept as it was. Within a file, a function reordered with a space put
    into its string is modified (was: moved); across files, one moved with a blank line put
    into its template literal or a trailing space into its heredoc is removed and added (was:
    moved). Moved with its code respaced between tokens, it is still moved."""
    funcs = {n: f'def {n}(x):\n    return "{n} x" + x\n\n\n' for n in "abcde"}
    tpl = "function travel(x) {\n  return `\n<b>${x}</b>\n`;\n}\n"
    trip = "function trip(x) {\n  return x + 1;\n}\n"
    sh = "notice() {\n  cat <<EOF\nbye\nEOF\n}\n"
    b_files = {"order.py": "".join(funcs[n] for n in "abcde"), "from.js": tpl + trip + "function stay() {}\n",
               "from.sh": sh + "stay() {\n  true\n}\n"}
    h_files = {"order.py": "".join(funcs[n] for n in "bcdae").replace('"a x"', '"a  x"').replace(
        "return \"b x\" + x", "return \"b x\"  +  x"),
        "from.js": "function stay() {}\n", "to.js": tpl.replace("<b>", "\n<b>") + trip.replace("x + 1", "x  +  1"),
        "from.sh": "stay() {\n  true\n}\n", "to.sh": sh.replace("bye", "bye ")}
    got = _elements(tmp_path, b_files, h_files)
    assert got["order.py"] == {("modified", "a")}
    assert got["to.js"] == {("added", "travel"), ("moved", "trip", "from.js")}
    assert got["from.js"] == {("removed", "travel")}
    assert got["to.sh"] == {("added", "notice")} and got["from.sh"] == {("removed", "notice")}
    # the same moves with nothing respaced inside a literal are moves
    h_files.update({"order.py": "".join(funcs[n] for n in "bcdae"), "to.js": tpl + trip, "to.sh": sh})
    got = _elements(tmp_path / "again", b_files, h_files)
    assert got["order.py"] == {("moved", "a")}
    assert got["to.js"] == {("moved", "travel", "from.js"), ("moved", "trip", "from.js")}
    assert got["to.sh"] == {("moved", "notice", "from.sh")} and got["from.sh"] == set()


CODE = "".join(f'def fn_{i}(a, b):\n    return "v {i}" + a + b\n\n\n' for i in range(8))


def test_past_the_packets_parse_bounds_a_respaced_symbol_is_modified(tmp_path, monkeypatch):
    """The differ parses within the packet's bounds, after the noise classes (`SYNTAX_BYTES`,
    `STRETCH_NODES`, `STRETCH_BUDGET`): past any of them, and in a file with a syntax error,
    it cannot tell layout from data, and a symbol whose bytes differ is modified. Within them
    the same change between tokens modifies nothing."""
    import delta.syntax as syntax

    # m.py changes one function's words, so the noise classes do not find it whitespace only
    head = CODE.replace("a + b\n", "a  +  b\n").replace('"v 3" + a', '"v 3" - a')
    broken = "def ok(a):\n    return a\n\n\ndef bad(:\n    pass\n"
    # a function moved to another file byte for byte is moved whatever the bounds: its bytes say so
    trip = 'def trip(x):\n    return "a  b" + x\n'
    base_files = {"m.py": CODE, "broken.py": broken, "from.py": trip + "\n\ndef stay():\n    return 1\n"}
    head_files = {"m.py": head, "broken.py": broken.replace("return a", "return  a"),
                  "from.py": "def stay():\n    return 1\n", "to.py": trip}
    within = _elements(tmp_path / "within", base_files, head_files)
    moved = {("moved", "trip", "from.py")}
    assert within == {"m.py": {("modified", "fn_3")}, "broken.py": {("modified", "ok")}, "from.py": set(),
                      "to.py": moved}
    every = {("modified", f"fn_{i}") for i in range(8)}
    monkeypatch.setattr(syntax, "SYNTAX_BYTES", 0)
    got = _elements(tmp_path / "bytes", base_files, head_files)
    assert got["m.py"] == every and got["to.py"] == moved
    monkeypatch.undo()
    monkeypatch.setattr(syntax, "STRETCH_BUDGET", 0)
    got = _elements(tmp_path / "budget", base_files, head_files)
    assert got["m.py"] == every and got["to.py"] == moved
    monkeypatch.undo()
    monkeypatch.setattr(syntax, "STRETCH_NODES", -10_000)
    got = _elements(tmp_path / "nodes", base_files, head_files)
    assert got["m.py"] == every and got["to.py"] == moved


def test_the_differ_parses_each_side_once_on_what_the_noise_classes_left(tmp_path, monkeypatch):
    """The differ's parses draw on the packet's `SYNTAX_BYTES` after the noise classes and
    hunks: given just what those spend, it parses nothing, and every respaced function is
    modified (was it given a budget of its own, the packet would parse twice what it may).
    Given one parse of each side more, it parses each side once for all of the file's symbols
    (the file's two trees are kept), and only the function whose string was respaced, and the
    one whose words changed, are modified; a file whose base side has a syntax error costs the
    parse of that side alone, its head side not parsed for nothing."""
    import delta.syntax as syntax

    body = "".join(f"    x{j} = a + {j}\n" for j in range(8))  # hunks of functions apart, each a candidate
    base = "".join(f'def fn_{i}(a, b):\n{body}    return "v {i}" + a + b\n\n\n' for i in range(6))
    head = base.replace("(a, b)", "(a,  b)").replace('"v 3" + a', '"v 3" - a').replace('"v 5"', '"v  5"')
    broken = "def ok(a):\n    return a\n\n\ndef bad(:\n    pass\n"  # ranked first, read first
    spent: list[int] = []
    real = syntax.Parses.__call__

    def counted(self, path, data):
        left = self.left
        found = real(self, path, data)
        spent.append(left - self.left)
        return found

    monkeypatch.setattr(syntax.Parses, "__call__", counted)
    b = RepoBuilder(tmp_path / "r")
    base_oid = b.commit({"a.py": broken, "m.py": base})
    head_oid = b.commit({"a.py": broken.replace("return a", "return  a"), "m.py": head})
    build_delta_packet(tmp_path / "r", base_oid, head_oid, elements=False, index=False, write=False)
    noise_spent = sum(spent)
    assert noise_spent >= len(base) + len(head)  # the hunks read both sides
    monkeypatch.setattr(syntax.Parses, "__call__", real)
    every = {("modified", "ok")} | {("modified", f"fn_{i}") for i in range(6)}
    monkeypatch.setattr(syntax, "SYNTAX_BYTES", noise_spent)
    got = _packet(tmp_path / "r", tmp_path / "home", base_oid, head_oid)
    assert {(c.change, c.qualified) for fe in got.elements.items for c in fe.changes.items} == every
    monkeypatch.setattr(syntax, "SYNTAX_BYTES", noise_spent + len(broken) + len(base) + len(head))
    got = _packet(tmp_path / "r", tmp_path / "home", base_oid, head_oid)
    assert {(c.change, c.qualified) for fe in got.elements.items for c in fe.changes.items} == {
        ("modified", "ok"), ("modified", "fn_3"), ("modified", "fn_5")}


def test_namesakes_moved_across_files_each_meet_their_own_peer(tmp_path):
    """Two functions of one name and words, one with a string respaced from the other, both moved
    to another file in their order: each addition is checked against the removal it would take,
    not against one an earlier move took, and both are moves."""
    twins = 'def f():\n    return "a b"\n\n\ndef f():\n    return "a  b"\n'
    got = _elements(tmp_path, {"from.py": twins + "\n\ndef stay():\n    return 1\n"},
                    {"from.py": "def stay():\n    return 1\n", "to.py": twins})
    assert got == {"from.py": set(), "to.py": {("moved", "f", "from.py")}}
    # in the other order: an addition is checked against the first removal of its words left, so
    # the first (its string respaced from that removal) is added, and the second is its move
    swapped = 'def f():\n    return "a  b"\n\n\ndef f():\n    return "a b"\n'
    got = _elements(tmp_path / "swapped", {"from.py": twins + "\n\ndef stay():\n    return 1\n"},
                    {"from.py": "def stay():\n    return 1\n", "to.py": swapped})
    assert got == {"from.py": {("removed", "f")}, "to.py": {("added", "f"), ("moved", "f", "from.py")}}


def test_a_file_the_noise_classes_found_the_same_by_its_grammar_is_not_parsed_again(tmp_path, monkeypatch):
    """A file whose two sides the noise classes found to hold the same tree and literals has
    no symbol changed past its words: the differ reads their answer, and spends nothing of the
    packet's parse bytes on it. With those bytes just enough for the noise classes' parse, its
    respaced functions are still unmodified; another file's string respaced is modified."""
    import delta.syntax as syntax

    respaced = CODE.replace("a + b\n", "a  +  b   \n").replace("\n\n\n", "\n\n")
    other = 'def f():\n    return "a b"\n'
    monkeypatch.setattr(syntax, "SYNTAX_BYTES", len(CODE) + len(respaced))
    got = _elements(tmp_path, {"m.py": CODE, "o.py": other}, {"m.py": respaced, "o.py": other.replace("a b", "a  b")})
    assert got == {"m.py": set(), "o.py": {("modified", "f")}}


def test_symbols_inside_one_found_the_same_are_not_walked_again(tmp_path, monkeypatch):
    """Outermost first: a class whose tree and literals are the same on both sides holds
    methods that are the same too, each not walked again (the walks of a packet are bounded,
    and a respaced module of classes would spend them twice)."""
    import delta.syntax as syntax
    from delta import packet

    methods = "".join(f'    def m{i}(self, a, b):\n        return "v {i}" + a + b\n\n' for i in range(20))
    base = "class Big:\n" + methods + "\ndef other():\n    return 1\n"
    head = base.replace("a, b)", "a,  b)").replace("return 1", "return 2")
    walked: list[tuple[int, int]] = []
    real_stretch, real_diff = syntax.Parses.stretch, packet.diff_elements

    def counted(self, p, a, b):
        walked.append((a, b))
        return real_stretch(self, p, a, b)

    def diff(*args):  # the element differ's walks, not the hunks'
        monkeypatch.setattr(syntax.Parses, "stretch", counted)
        try:
            return real_diff(*args)
        finally:
            monkeypatch.setattr(syntax.Parses, "stretch", real_stretch)

    monkeypatch.setattr(packet, "diff_elements", diff)
    assert _elements(tmp_path, {"m.py": base}, {"m.py": head}) == {"m.py": {("modified", "other")}}
    assert [a for a, _ in walked] == [0, 0], walked  # Big's span on each side, and none of its methods


# Modules of functions, each made of pieces: fixed text, or whitespace an edit may change,
# ("code", ...) between tokens or ("data", ...) inside a literal; by language.
Piece = tuple[str, str, str]  # (kind, base text, head text when edited)


def _python(i: int) -> tuple[list[Piece], set[str]]:
    """A function, or at an odd place a class with a method, of strings on one line and of lines."""
    ind = "    " * (i % 2)
    head = [("", f"class K{i}:\n    def m(self, a,", "")] if i % 2 else [("", f"def f{i}(a,", "")]
    return head + [
        ("code", " ", "  "), ("", f'b):\n{ind}    s = "x', ""), ("data", " ", "  "), ("", 'y"', ""),
        ("code", "", "   "), ("", f'\n{ind}    q = """\n', ""), ("data", "  ", "    "), ("", "select a", ""),
        ("data", " ", "   "), ("", "from t", ""), ("data", "", "  "), ("", "\n", ""), ("data", "", "\n"),
        ("", 'where b"""\n', ""), ("code", "", "\n"), ("", f"{ind}    return s +", ""), ("code", " ", "    "),
        ("", "q\n", ""), ("code", "", "\n"), ("", "\n\n", "")], {f"K{i}", f"K{i}.m"} if i % 2 else {f"f{i}"}


def _bash(i: int) -> tuple[list[Piece], set[str]]:
    """A function writing a heredoc."""
    return [("", f"f{i}() {{\n  cat <<EOF", ""), ("code", "", "  "), ("", "\nlisten", ""), ("data", " ", "  "),
            ("", "80", ""), ("data", "", " "), ("", "\n", ""), ("data", "", "\n"), ("", "EOF\n  echo", ""),
            ("code", " ", "   "), ("", "done", ""), ("code", "", "  "), ("", "\n}\n\n", "")], {f"f{i}"}


def _javascript(i: int) -> tuple[list[Piece], set[str]]:
    """A function, or at an odd place a class with a method, of a template literal."""
    ind = "  " * (i % 2)
    head = [("", f"class K{i} {{\n  m(a,", "")] if i % 2 else [("", f"function f{i}(a,", "")]
    tail = "  }\n}\n\n" if i % 2 else "}\n\n"
    return head + [
        ("code", " ", "  "), ("", f"b) {{\n{ind}  const t = `\n", ""), ("data", "  ", "    "), ("", "select a", ""),
        ("data", "", "  "), ("", "\n", ""), ("data", "", "\n"), ("", "`;", ""), ("code", "", "  "),
        ("", f"\n{ind}  return t", ""), ("code", " ", "  "), ("", f"+ a;\n{tail}", "")], \
        {f"K{i}", f"K{i}.m"} if i % 2 else {f"f{i}"}


LANGUAGES = {"m.py": _python, "m.sh": _bash, "m.js": _javascript}


@st.composite
def _edited(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str], dict[str, set[str]]]:
    """Modules in each language, the same with some of their whitespace edited, and the
    symbols of each that an edit inside a literal fell in (a method's class with it)."""
    base: dict[str, str] = {}
    head: dict[str, str] = {}
    inside: dict[str, set[str]] = {}
    for path, make in LANGUAGES.items():
        made = [make(i) for i in range(draw(st.integers(1, 3)))]
        pieces = [(names, p if p[0] else (p[0], p[1], p[1])) for part, names in made for p in part]
        editable = [n for n, (_, p) in enumerate(pieces) if p[0]]
        chosen = set(draw(st.lists(st.sampled_from(editable), max_size=3, unique=True)))
        base[path] = "".join(p[1] for _, p in pieces)
        head[path] = "".join(p[2] if n in chosen else p[1] for n, (_, p) in enumerate(pieces))
        inside[path] = {name for n in chosen if pieces[n][1][0] == "data" for name in pieces[n][0]}
    return base, head, inside


@given(_edited())
@settings(max_examples=examples(40), deadline=None)
def test_random_whitespace_edits_modify_exactly_the_symbols_with_one_in_a_literal(case):
    """Random whitespace edits of modules in Python, Bash and JavaScript, committed: a function,
    method or class is modified exactly when an edit fell inside one of its literals (a string,
    a heredoc, a template literal), whatever edits fell between its tokens; and the same range
    gives the same element list, byte for byte."""
    base_files, head_files, inside = case
    with tempfile.TemporaryDirectory() as tmp:
        b = RepoBuilder(Path(tmp) / "r")
        base = b.commit(base_files)
        head = b.commit(head_files)
        once = _packet(Path(tmp) / "r", Path(tmp) / "home", base, head)
        got = {fe.path: {(c.change, c.qualified) for c in fe.changes.items} for fe in once.elements.items}
        want = {path: {("modified", name) for name in names} for path, names in inside.items()
                if base_files[path] != head_files[path]}
        assert got == want, (base_files, head_files)
        again = _packet(Path(tmp) / "r", Path(tmp) / "home", base, head)
        assert msgspec.json.encode(once.elements) == msgspec.json.encode(again.elements)


def test_a_cr_put_into_a_shell_function_modifies_it_and_a_python_crlf_does_not(tmp_path):
    """Bash reads a CR as part of the word it ends (`cd /tmp\\r` is another folder), though its
    grammar reads it as a blank: a shell function with a line made CRLF is modified (was: not
    listed, its words and tree the same). A Python function made CRLF whole is not."""
    sh = "clean() {\n  cd /tmp\n  rm -rf build\n}\n\ncalm() {\n  echo ok\n}\n"
    head = {"m.sh": sh.replace("cd /tmp\n", "cd /tmp\r\n"), "m.py": PY.replace("\n", "\r\n")}
    got = _elements(tmp_path, {"m.sh": sh, "m.py": PY}, head)
    assert got == {"m.sh": {("modified", "clean")}, "m.py": set()}
