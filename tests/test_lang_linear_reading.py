"""Readers of one file's text at index time, for Bash, C#, Python, Go, Rust, Java, PHP and
Ruby, in work linear in the file: a regex search that fails is not retried over the same text
for each of many starts on one line, nor a text rewritten once for each level it nests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.bash import retry as bash_retry

ROOT = Path(__file__).resolve().parents[1]


def run_child(code: str) -> None:
    """Run `code` in a child: the work is in regexes and slices, done in C where a test cannot
    count lines, so a quadratic reading fails the test at its timeout instead of hanging it."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=60, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@settings(max_examples=2000, deadline=None)
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
