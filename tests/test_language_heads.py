"""What a file's first bytes say of its language, at the edges of the rules
(indexer/lang/registry.py): a mode line is read in the first 512 bytes of the first two lines
(a shebang's, its first line alone: tests/test_languages.py)."""

from __future__ import annotations

from indexer.lang.registry import detect_language

MODE_LINE_BYTES = 512


def _mode_line_ending_at(last: int) -> bytes:
    """An extensionless file whose Emacs mode line's closing `;` is byte `last` of its first line."""
    tail = b"-*- mode: ruby;"
    first = b"#" + b" " * (last - len(tail)) + tail
    assert len(first) == last + 1
    return first + b"\nputs 1\n"


def test_a_mode_line_is_read_in_the_first_512_bytes():
    assert detect_language("bin/tool", _mode_line_ending_at(MODE_LINE_BYTES - 2)) == "ruby"
    assert detect_language("bin/tool", _mode_line_ending_at(MODE_LINE_BYTES - 1)) == "ruby"
    assert detect_language("bin/tool", _mode_line_ending_at(MODE_LINE_BYTES)) == "text"
    # on the second line too, not on the third
    assert detect_language("bin/tool", b"# a tool\n# -*- mode: ruby -*-\n") == "ruby"
    assert detect_language("bin/tool", b"#\n#\n# -*- mode: ruby -*-\n") == "text"
