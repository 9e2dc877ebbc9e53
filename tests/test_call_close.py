"""The bracket walk both languages' receiver rules make to know whether a call is the whole
value assigned (context_tools/query/symbols/call_close.py)."""

from hypothesis import given
from hypothesis import strategies as st

from context_tools.query.symbols.call_close import PYTHON, SCRIPT, after_call


def _after(source: bytes, spelling=PYTHON, most: int = 30) -> bytes | None:
    lines = source.split(b"\n")
    return after_call(lines, 0, lines[0].index(b"("), spelling, most)


def test_python_calls():
    assert _after(b"app = Flask(__name__)") == b""
    assert _after(b"app = Flask(__name__)  # the app") == b""
    assert _after(b"client = Flask(__name__).test_client()") == b".test_client()"
    assert _after(b'x = Foo(")", "(")') == b""  # brackets in strings are not counted
    assert _after(b"x = Foo('#', a)  # c") == b""  # nor a comment mark
    assert _after(b"x = Foo(a,  # first\n        b)\n") == b""  # over lines, a comment between
    assert _after(b"with Foo(a) as f:") == b"as f:"
    assert _after(b"x = Foo(a,\n b,\n c") is None  # never closes
    assert _after(b"x = Foo(a,\n b)", most=1) is None  # closes past the lines allowed
    assert _after(b"x = Foo(') # ')") == b""


def test_script_calls():
    assert _after(b"const a = createAtom('x');", SCRIPT) == b";"
    assert _after(b"const a = createAtom('x') // why", SCRIPT) == b""
    assert _after(b"const a = f(\")\").g()", SCRIPT) == b".g()"
    assert _after(b'const u = get("http://host/(")', SCRIPT) == b""  # `//` and `(` in a string
    assert _after(b"const t = f(`a)${b}`);", SCRIPT) == b";"
    assert _after(b"const x = f(a, // first\n  b); // done", SCRIPT) == b";"
    assert _after(b"const x = f(a) + g(b)", SCRIPT) == b"+ g(b)"
    assert _after(b"const x = f('it\\'s)', a)", SCRIPT) == b""  # an escaped quote


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=8), st.integers(0, 40), st.integers(1, 10),
       st.sampled_from([PYTHON, SCRIPT]))
def test_any_source_gives_none_or_the_text_after_a_close(lines, opened, most, spelling):
    rest = after_call(lines, 0, opened, spelling, most)
    assert rest is None or any(rest in line for line in lines[:most])


def test_brackets_found_from_either_end():
    from indexer.lang.bindings_base import closing_bracket, dotted_names, opening_bracket

    text = b"f(a[1], {b: (c)}) + g(d"
    assert closing_bracket(text, 1) == 16 and opening_bracket(text, 16) == 1
    assert closing_bracket(text, 1, b"()[]{}") == 16 and closing_bracket(text, 8, b"()[]{}") == 15
    assert closing_bracket(text, 3, b"[]") == 5 and closing_bracket(text, 12) == 14
    assert closing_bracket(b"f({)", 1) == 3 and closing_bracket(b"f({)", 1, b"(){}") is None  # the kinds asked
    assert closing_bracket(text, 21) is None  # `g(d` never closes
    assert dotted_names(b"this . map_") == ("this", "map_")
