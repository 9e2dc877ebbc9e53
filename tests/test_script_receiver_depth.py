"""A JavaScript or TypeScript receiver's type read through declarations naming one another
(context_tools/query/symbols/script_types.py, `ScriptTypes.receiver`): each receiver is read
once a depth, `RECEIVER_DEPTH` deep at most, and a conditional's type takes `ALTERNATIVES`
values at most. A commit under review chooses how its declarations nest: it must not choose
how long a query runs, nor make one fail."""

from __future__ import annotations

from context_tools.query.symbols.script_types import RECEIVER_DEPTH
from context_tools.query.symbols.script_values import ALTERNATIVES, DeclaredValues

CLASSES = "class T { m() {} }\nclass U { m() {} }\ndeclare const c: boolean;\n"


def _doubling(name: str, n: int) -> str:
    """A function whose `a{k}` is a conditional of `a{k-1}` twice, n deep, and a site on a{n}."""
    body = "".join(f"  const a{k} = c ? a{k - 1} : a{k - 1};\n" for k in range(1, n + 1))
    return f"function {name}() {{\n  const a0 = new T();\n{body}  a{n}.m();\n}}\n"


def _chain(name: str, n: int) -> str:
    """A function whose `a{k}` is `c ? a{k-1} : b`, n deep (n + 1 values), and a site on a{n}."""
    body = "".join(f"  const a{k} = c ? a{k - 1} : b;\n" for k in range(1, n + 1))
    return f"function {name}() {{\n  const b = new T();\n  const a0 = new T();\n{body}  a{n}.m();\n}}\n"


def _sites(asked, name: str) -> dict[int, str]:
    return {s.line: s.rule for s in asked.call("context.references", name=name).data.sites}


def test_declarations_each_naming_the_one_before_twice_are_read_once_a_level(indexed_files, monkeypatch):
    """`const a2 = c ? a1 : a1` and so on, 12 deep: each declaration is read once a depth
    (was: once a way, 2 to the 12th; 16 such lines held `context references` for 21 s, each
    one more doubling it). The conditional takes more values than ALTERNATIVES: untyped."""
    asked = indexed_files({"a.ts": CLASSES + _doubling("f", 12)})
    read: list[str] = []
    declared_at = DeclaredValues.declared_at

    def counted(self, path, lines, n, text, d, name, *rest):
        read.append(name)
        return declared_at(self, path, lines, n, text, d, name, *rest)

    monkeypatch.setattr(DeclaredValues, "declared_at", counted)
    typed = _sites(asked, "T.m")
    assert 0 < len(read) <= 13 * RECEIVER_DEPTH, len(read)
    assert typed == {} and _sites(asked, "U.m") == {}  # untyped: T's and U's alike


def test_a_conditional_of_up_to_alternatives_values_types_its_receiver(indexed_files):
    """Conditionals nested as deep as their values stay within ALTERNATIVES type the site; one
    level more does not."""
    levels = ALTERNATIVES.bit_length() - 1  # 2 ** levels values
    asked = indexed_files({"a.ts": CLASSES + _doubling("f", levels) + _doubling("g", levels + 1)})
    typed = _sites(asked, "T.m")
    assert list(typed) == [5 + levels + 1], typed
    assert typed[5 + levels + 1].startswith(f"`a{levels}` = a conditional of `a{levels - 1}`")
    assert _sites(asked, "U.m") == {}


def test_a_declaration_chain_is_read_receiver_depth_deep(indexed_files):
    """A chain of declarations each naming the one before types the site while its receivers
    are RECEIVER_DEPTH at most; one more leaves it untyped."""
    within, past = _chain("f", RECEIVER_DEPTH - 1), _chain("g", RECEIVER_DEPTH)
    asked = indexed_files({"a.ts": CLASSES + within + past})
    first = 3 + within.count("\n") - 1  # f's site, its last line but one
    assert list(_sites(asked, "T.m")) == [first], _sites(asked, "T.m")


def test_declarations_naming_each_other_are_untyped_not_an_error(indexed_files):
    """`let a = c ? a : a` in a function, two top-level `let`s naming each other: the query
    answers, the sites untyped (was: `internal_error`, RecursionError). So does `const x =
    x[0]`, as before."""
    asked = indexed_files({"a.ts": CLASSES + "function f() {\n  let a = c ? a : a;\n  a.m();\n}\n"
                                             "let p = c ? q : q;\nlet q = c ? p : p;\np.m();\n"
                                             "function g() {\n  const x = x[0];\n  x.m();\n}\n"})
    assert _sites(asked, "T.m") == {}
