"""Python sources tree-sitter-python's scanner crashes on (an indentation stack deeper than its
saved state holds) are never handed to it: their blobs are `unparseable`, the process lives,
and every real source is parsed as before (indexer/lang/python/indents.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob
from indexer.lang.python.indents import measured_widths, unsafe_source
from tests.examples import examples


def _nested(depth: int, indent: bytes, carried: bool = False) -> bytes:
    """`depth` nested `if`s, each indented by one more `indent` (or, `carried`, by one more
    line of ` \\` before it, the width carried over by backslash-newlines), a string in the
    innermost: the string keeps a delimiter open in the scanner's state."""
    def at(level: int) -> bytes:
        return b" \\\n" * level if carried else indent * level
    return b"".join(at(i) + b"if X:\n" for i in range(depth)) + at(depth) + b'x = "a"\n'


def test_a_source_nested_past_what_the_scanner_holds_is_unparseable_and_the_process_lives():
    """Was: the scanner wrote past its 1,024-byte state and the process died of SIGSEGV (a
    worker's death fails the whole index), from about 510 levels, and with a width carried by
    backslash-newlines, whose every line is short."""
    code = textwrap.dedent("""\
        import sys
        from indexer.extract.blob import extract_blob
        from tests.test_extract_python_indents import _nested
        for depth, indent, carried in ((600, b" ", False), (600, b"\\t", False), (700, b"", True)):
            print(extract_blob(_nested(depth, indent, carried), "deep.py", "python").skipped, flush=True)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    assert (done.returncode, done.stdout.split()) == (0, ["unparseable"] * 3), done.stderr[-2000:]


def test_the_bound_is_at_its_levels_and_a_source_within_it_is_parsed():
    within = _nested(256, b" ")  # widths 1 to 256: 256 levels, which fit however many strings are open
    assert not unsafe_source(within)
    facts = extract_blob(within, "deep.py", "python")
    assert facts.skipped == ""
    assert [s.name for s in facts.symbols] == ["x"]
    assert unsafe_source(_nested(257, b" "))
    assert unsafe_source(_nested(257, b"\t"))
    carried = _nested(257, b"", carried=True)  # no line over one space
    assert unsafe_source(carried)
    assert unsafe_source(carried.replace(b"\\\n", b"\\\r\n"))  # carried over CRLF line ends
    # a form feed before a line's backslash-newline: the width after it carries on all the same
    fed = b"".join(b"\f" + b" " * (w // 2) + b"\\\n" + b" " * (w - w // 2) + b"pass\n" for w in range(1, 258))
    assert len(scanner_widths(fed)) > 256
    assert unsafe_source(fed)


def test_no_standard_library_source_is_refused():
    sources = []
    for root, folders, files in os.walk(sysconfig.get_paths()["stdlib"]):
        folders[:] = [f for f in folders if f != "site-packages"]  # left unwalked: it may dwarf the library
        sources += [Path(root, name) for name in files if name.endswith(".py")]
    assert len(sources) > 1_000
    assert [p.name for p in sources if unsafe_source(p.read_bytes())] == []


def scanner_widths(data: bytes) -> set[int]:
    """The widths tree-sitter-python's scanner measures for an indentation, read as its loop
    reads them, from each line's start: a space 1, a tab 8, a form feed or carriage return
    starting again at 0, a backslash-newline carrying on; a newline or comment starts a new
    measure, one that reaches the end of the source measures 0, and only a width over 0 is ever
    a level."""
    out: set[int] = set()
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 0x0A]
    for i in starts:
        width = 0
        while i < len(data):
            c = data[i]
            if c == 0x20:
                width += 1
            elif c == 0x09:
                width += 8
            elif c in (0x0C, 0x0D):
                width = 0
            elif c == 0x5C:  # a backslash: carries on over a newline, else ends the measure
                j = i + 1 + (data[i + 1:i + 2] == b"\r")
                if data[j:j + 1] != b"\n":
                    width = -1
                    break
                i = j
            else:
                break
            i += 1
        else:
            width = 0  # the end of the source
        if width > 0 and data[i:i + 1] not in (b"\n", b"#"):
            out.add(width)
    return out


_CHUNKS = st.sampled_from([b" ", b"  ", b"\t", b"\\\n", b"\\\r\n", b"\n", b"\r", b"\f", b"x", b"#c\n", b"\\x", b"\\"])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_CHUNKS, max_size=60))
# a reset by a form feed or a carriage return, a width carried over CRLF: rare in the search
@example([b"  ", b"\f", b" ", b"x"])
@example([b"  ", b"\r", b" ", b"x"])
@example([b" ", b"\r", b"  ", b"x"])
@example([b"  ", b"\\\r\n", b"  ", b"x"])
def test_the_widths_counted_hold_every_width_the_scanner_measures(chunks):
    data = b"".join(chunks)
    assert scanner_widths(data) <= measured_widths(data)
