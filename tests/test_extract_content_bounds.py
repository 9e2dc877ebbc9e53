"""The content rules (indexer/lang/content.py) at the edges their documentation names: a NUL in
the first 8 KiB, an LFS pointer under 1 KiB, minified from 4 KiB with an average line longer
than 250 bytes, a generated header in the first 5 lines and first KiB. The numbers are the
documented ones, written here, not read from the code they check."""

from __future__ import annotations

from indexer.extract.blob import extract_blob

SNIFF = 8192
LFS_MAX = 1024
MINIFIED_SIZE, MINIFIED_LINE = 4096, 250


def test_a_nul_is_binary_within_the_first_8_kib_and_not_past_them():
    for at, skipped in ((SNIFF - 1, "binary"), (SNIFF, "")):
        data = b"x" * at + b"\x00" + b"\ny = 1\n"
        facts = extract_blob(data, "m.txt", "text")
        assert facts.skipped == skipped, at


def _pointer(size: int) -> bytes:
    head = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"a" * 64 + b"\nsize 12345\n"
    return head + b"x" * (size - len(head) - 1) + b"\n"


def test_an_lfs_pointer_is_under_1_kib():
    assert len(_pointer(LFS_MAX - 1)) == LFS_MAX - 1
    assert extract_blob(_pointer(LFS_MAX - 1), "w.bin.py", "python").skipped == "lfs_pointer"
    assert extract_blob(_pointer(LFS_MAX), "w.bin.py", "python").skipped == ""


def _lines(count: int, length: int) -> bytes:
    """`count` lines of `length` bytes each, newline included."""
    return (b"x" * (length - 1) + b"\n") * count


def test_minified_is_an_average_line_longer_than_250_bytes_from_4_kib():
    assert len(_lines(17, MINIFIED_LINE)) == 4250
    assert extract_blob(_lines(17, MINIFIED_LINE), "a.js", "javascript").skipped == ""  # 250 on average
    longer = _lines(16, MINIFIED_LINE) + _lines(1, MINIFIED_LINE + 1)
    assert extract_blob(longer, "a.js", "javascript").skipped == "minified"
    # under 4 KiB, however long its one line
    assert extract_blob(b"x" * (MINIFIED_SIZE - 2) + b"\n", "a.js", "javascript").skipped == ""
    assert extract_blob(b"x" * (MINIFIED_SIZE - 1) + b"\n", "a.js", "javascript").skipped == "minified"


def test_a_generated_header_is_read_in_the_first_5_lines_and_first_kib():
    marker = b"# DO NOT EDIT"
    for before, rule in ((b"x\n" * 4, "header:do-not-edit"), (b"x\n" * 5, ""),
                         (b"", "header:do-not-edit"), (b"#" * (1024 - len(marker)), "header:do-not-edit"),
                         (b"#" * (1025 - len(marker)), "")):
        assert extract_blob(before + marker + b"\ny = 1\n", "m.txt", "text").generated == rule, before[:12]
    # on the last line, without a newline after it
    assert extract_blob(b"x = 1\n" + marker, "m.txt", "text").generated == "header:do-not-edit"
    assert extract_blob(b"x = 1\ny = 2\n" + marker, "m.py", "python").generated == "header:do-not-edit"
