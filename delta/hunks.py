"""The hunk index: each hunk of a patch with a stable, content-derived id.

The id is patch-id style: a hash over the file path, the hunk's function context
(the section text of its header) and its +/- lines with all whitespace removed.
Line numbers are not part of it, so a hunk keeps its id when a rebase shifts its
lines. Two identical hunks in one file are told apart by their order of appearance.

The bodies stay in this process (`HunkRecord.body`) for the successor account and
the region map; the packet carries only ids, headers, spans and sizes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable

import pygit2

from delta import yaml_scalars
from delta.inventory import FileChange
from delta.syntax import Parsed, Parses, plain, same_trees
from indexer.lang.registry import CONTENT, HEAD_BYTES, detect_language, name_language

ID_HEX = 20  # 80 bits: collision-free for any realistic range, short enough to cite
_SPACE = re.compile(rb"\s+")


@dataclass(frozen=True)
class HunkRecord:
    id: str
    path: str
    header: str  # "@@ -12,7 +12,9 @@ def parse(...)"
    section: str  # function context: the header text after the second "@@"
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    additions: int
    deletions: int
    size: int  # bytes of the hunk's diff text (header and lines)
    whitespace_only: bool
    body: tuple[bytes, ...]  # normalized "+..." / "-..." lines; never leaves the process
    # hash of the +/- lines byte for byte (no line numbers, no path): the same change wherever it
    # sits. `id` and `body` drop whitespace, which can be the change itself (an indentation that
    # moves a line out of its block, a space inside a string), so a successor is carried or moved
    # only where this agrees too
    body_key: str
    old_changed: tuple[int, int] | None  # first and last deleted line (1-based), None if none
    new_changed: tuple[int, int] | None  # first and last added line
    # its runs of changed lines: old lines [first, end) and new lines [first, end) of each
    runs: tuple[tuple[int, int, int, int], ...] = ()


def section_of(header: str) -> str:
    parts = header.split("@@", 2)
    return parts[2].strip() if len(parts) == 3 else ""


def normalize(raw: bytes) -> bytes:
    return _SPACE.sub(b"", raw)


# Where leading whitespace is syntax, re-indenting a line changes what it means (a Python
# `return` moved out of its `if`, a YAML key moved under another, a Makefile recipe line):
# there a change is whitespace-only when every non-blank line keeps its indentation.
_INDENT_SUFFIXES = (".py", ".pyi", ".pyw", ".yaml", ".yml", ".sass", ".pug", ".jade", ".haml", ".coffee",
                    ".nim", ".hs", ".fs", ".mk")
_INDENT_NAMES = frozenset({"Makefile", "GNUmakefile", "makefile", "Snakefile", "SConstruct", "SConscript"})
_WHITESPACE = b" \t\n\r\f\v"
_EOFNL = ("=", ">", "<")  # libgit2's origins of the "\ No newline at end of file" marker


def indent_significant(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in _INDENT_NAMES or path.endswith(_INDENT_SUFFIXES)


# Where a CR is data outside a literal: a shell splits words at spaces and tabs alone, so a CR
# (or a form feed, a vertical tab) is part of the word it touches, or a word of its own: `cd /tmp`
# made `cd /tmp\r` names another folder, a blank line made `\r` runs a command named CR.
# tree-sitter-bash reads it as a blank, so there the words tell it (`words(lines, shell=True)`).
# Elsewhere a CRLF is a line end (Python, C, JavaScript; GNU make and a Dockerfile's instructions
# drop the CR of a CRLF; YAML folds line breaks to LF), but a Dockerfile's heredoc is a shell's
# text, a `.env` or `.envrc` is sourced by one, and a script whose interpreter no grammar knows
# may be a shell's.
_CR_IS_DATA = frozenset({"bash", "zsh", "fish", "dotenv"})
YAML = "yaml"  # no grammar, but its block scalars are read (`delta.yaml_scalars`)
_SHELL_BLANKS = bytes.maketrans(b"\t\n", b"  ")  # a hunk's line keeps its LF


def cr_is_data(path: str, *sides: bytes | None) -> bool:
    """Whether a CR is data in the file at `path` holding `sides` (either side saying so
    suffices; a side None, not read, says so where the name leaves it to the content)."""
    named = name_language(path)
    if named in _CR_IS_DATA or _sourced(path):
        return True
    if named not in (CONTENT, "dockerfile"):
        return False
    for data in sides:
        if data is None:
            return True
        if named == "dockerfile":
            if b"<<" in data:
                return True
            continue
        language = detect_language(path, data[:HEAD_BYTES])
        if language in _CR_IS_DATA or (language == "text" and data.startswith(b"#!")):
            return True
    return False


def _sourced(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower().startswith(".env")


def path_rules(path: str) -> tuple[bool, str, bool]:
    """What the path says of how a change of whitespace is read (whether indentation is syntax,
    the language its name gives, whether a shell sources it): two paths alike in these read a
    pair of blobs alike."""
    return indent_significant(path), name_language(path), _sourced(path)


def indents(lines: list[bytes]) -> list[bytes]:
    """The leading whitespace of each non-blank line."""
    out = []
    for line in lines:
        stripped = line.lstrip(b" \t")
        if stripped.strip():
            out.append(line[:len(line) - len(stripped)])
    return out


def words(lines: list[bytes], shell: bool = False) -> list[bytes]:
    """The non-blank lines, each as its words one space apart: what a change of whitespace alone
    keeps. Whitespace put between two characters, or taken from between them, is no change of
    whitespace alone: `rm -rf /tmp/x` and `rm -rf / tmp/x`, `'a b'` and `'ab'`, `return x` and a
    `return` whose `x` went to the next line (JavaScript returns nothing there) do different things.
    With `shell`, as a shell splits them: at spaces and tabs alone, a CR part of a word
    (`cr_is_data`)."""
    out = []
    for line in lines:
        parts = [p for p in line.translate(_SHELL_BLANKS).split(b" ") if p] if shell else line.split()
        if parts:
            out.append(b" ".join(parts))
    return out


def same_but_whitespace(old: bytes, new: bytes, path: str, parses: Parses | None = None) -> bool:
    """Whether two versions of the file at `path` differ in whitespace only: the same words on
    the same lines, blank lines, the spacing between words and line ends (a CRLF, but where a
    shell reads the CR, `cr_is_data`) aside (see `words`, and `indent_significant`), none of it inside a literal nor changing the syntax
    tree, where the file's grammar reads both sides; else, compared as lines alone, no spacing
    between the words of a line either (`delta.syntax`). `parses` bounds what is parsed."""
    return whitespace_verdict(old, new, path, parses) is not None


def whitespace_verdict(old: bytes, new: bytes, path: str, parses: Parses | None = None) -> str | None:
    """`same_but_whitespace`, and by what: "trees" when the grammar read both sides and found
    the same tree and literals, "lines" when they were compared as lines alone; None when
    they differ in more than whitespace."""
    if old.translate(None, _WHITESPACE) != new.translate(None, _WHITESPACE):
        return None  # a quick answer for most: other characters
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    shell = cr_is_data(path, old, new)
    if words(old_lines, shell) != words(new_lines, shell):
        return None
    if indent_significant(path) and indents(old_lines) != indents(new_lines):
        return None
    parses = parses or Parses()
    before = parses(path, old)
    after = parses(path, new) if before is not None else None
    if before is not None and after is not None:
        return "trees" if same_trees(before, after) else None
    if name_language(path) == YAML:
        return "lines" if yaml_scalars.compared(old_lines) == yaml_scalars.compared(new_lines) else None
    return "lines" if plain(old_lines) == plain(new_lines) else None


Sides = Callable[[], tuple[bytes | None, bytes | None]]
Group = tuple[int, int, int, int]  # the old lines [first, end) and new lines [first, end) of one run of changes
# A hunk's answer, by its two blobs, what the path's name says of its language, and its runs:
# git stores a blob once however many paths hold it, and each would be read and parsed again
Verdicts = dict[tuple[str, str, str, tuple[Group, ...]], bool]


class FileSides:
    """A file's two sides, each read, parsed and viewed once, when a hunk first needs it."""

    def __init__(self, path: str, sides: Sides | None, parses: Parses | None) -> None:
        self.path, self.sides, self.parses = path, sides, parses or Parses()
        self._data: list[tuple[bytes | None, bytes | None]] = []
        self._parsed: dict[int, tuple[Parsed, list[int]] | None] = {}
        self._cr: list[bool] = []
        self._yaml: dict[int, list[bytes | None] | None] = {}
        self._lines: dict[int, list[bytes]] = {}

    def data(self) -> tuple[bytes | None, bytes | None]:
        if not self._data:
            self._data.append(self.sides() if self.sides is not None else (None, None))
        return self._data[0]

    def cr_is_data(self) -> bool:
        """`cr_is_data` of the file, its sides read only where its name leaves it to them."""
        if not self._cr:
            self._cr.append(cr_is_data(self.path, *self.data()) if self.sides is not None else cr_is_data(self.path))
        return self._cr[0]

    def lines(self, side: int) -> list[bytes]:
        """A side's lines, split once however many hunks of the file are judged ([] unread)."""
        if side not in self._lines:
            data = self.data()[side]
            self._lines[side] = data.split(b"\n") if data is not None else []
        return self._lines[side]

    def yaml(self, side: int) -> list[bytes | None] | None:
        """A side's lines as YAML's are compared (`delta.yaml_scalars.view`), None without it."""
        if side not in self._yaml:
            data = self.data()[side]
            self._yaml[side] = yaml_scalars.view(data.split(b"\n")) if data is not None else None
        return self._yaml[side]

    def parsed(self, side: int) -> tuple[Parsed, list[int]] | None:
        """A side's tree (0 the old, 1 the new) and its lines' offsets, within the packet's bytes."""
        if side not in self._parsed:
            data = self.data()[side]
            found = self.parses(self.path, data) if data is not None else None
            self._parsed[side] = (found, _line_starts(data)) if found is not None and data is not None else None
        return self._parsed[side]

    def get(self) -> tuple[tuple[Parsed, list[int]], tuple[Parsed, list[int]]] | None:
        """Both sides' trees, the new side parsed only once the old one was."""
        before = self.parsed(0)
        after = self.parsed(1) if before is not None else None
        return (before, after) if before is not None and after is not None else None


def _line_starts(data: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(b"\n", data)]


def _at(starts: list[int], line: int, size: int) -> int:
    """The offset of 1-based `line` (the end of the data past the last)."""
    return starts[line - 1] if 0 < line <= len(starts) else size


def _verdict(verdicts: Verdicts, key: tuple[str, str, str, tuple[Group, ...]], trees: FileSides, groups: list[Group],
             old_lines: list[bytes], new_lines: list[bytes]) -> bool:
    if key not in verdicts:
        verdicts[key] = _hunk_keeps_meaning(trees, groups, old_lines, new_lines)
    return verdicts[key]


def _hunk_keeps_meaning(trees: FileSides, groups: list[Group], old_lines: list[bytes], new_lines: list[bytes]) -> bool:
    """Whether a hunk whose words are the same keeps the file's meaning: each run of changes
    holds the same syntax on both sides, literals byte for byte (`delta.syntax.stretch`); with
    no tree of both sides, its lines compared without their grammar (`delta.syntax.plain`), a
    YAML file's as its two sides read whole say (`delta.yaml_scalars.view`)."""
    if name_language(trees.path) == YAML:
        old_view, new_view = trees.yaml(0), trees.yaml(1)
        if old_view is None or new_view is None:  # which lines are a block scalar's is not known: each line whole
            return [line.rstrip(b"\r\n") for line in old_lines] == [line.rstrip(b"\r\n") for line in new_lines]
        return all(_kept(old_view, a, b) == _kept(new_view, c, d) for a, b, c, d in groups)
    read = trees.get()
    if read is None:
        return plain(old_lines) == plain(new_lines)
    (before, old_starts), (after, new_starts) = read
    for old_first, old_end, new_first, new_end in groups:
        a0, a1 = _at(old_starts, old_first, len(before.data)), _at(old_starts, old_end, len(before.data))
        b0, b1 = _at(new_starts, new_first, len(after.data)), _at(new_starts, new_end, len(after.data))
        old_key = trees.parses.stretch(before, a0, a1)
        if old_key is None or old_key != trees.parses.stretch(after, b0, b1):
            return False
    return True


def same_change(a: HunkRecord, a_sides: FileSides, b: HunkRecord, b_sides: FileSides) -> bool:
    """Whether two hunks (of two patchsets) whose lines are the same but for whitespace make the
    same change but for layout, by the rule a hunk is classed by: run by run, each side's
    changed lines hold the same words (split as a shell splits them where either file's CR is
    data), the same indentation where either path makes it syntax, and where the grammar reads
    both files' sides, the same tree and literals (`delta.syntax.stretch`, within the packet's
    bounds: past one, not the same); else, as lines, YAML's views where either path is YAML's,
    or `plain`."""
    if len(a.runs) != len(b.runs):
        return False
    shell = a_sides.cr_is_data() or b_sides.cr_is_data()
    indented = indent_significant(a.path) or indent_significant(b.path)
    yaml = YAML in (name_language(a.path), name_language(b.path))  # a view keeps at least what `plain` does
    for run_a, run_b in zip(a.runs, b.runs):
        for side in (0, 1):
            (first_a, end_a), (first_b, end_b) = run_a[2 * side:2 * side + 2], run_b[2 * side:2 * side + 2]
            data_a, data_b = a_sides.data()[side], b_sides.data()[side]
            lines_a = a_sides.lines(side)[first_a - 1:end_a - 1]
            lines_b = b_sides.lines(side)[first_b - 1:end_b - 1]
            if words(lines_a, shell) != words(lines_b, shell) or (indented and indents(lines_a) != indents(lines_b)):
                return False
            tree_a = a_sides.parsed(side) if data_a is not None else None
            tree_b = b_sides.parsed(side) if tree_a is not None and data_b is not None else None
            if tree_a is not None and tree_b is not None:
                (pa, starts_a), (pb, starts_b) = tree_a, tree_b
                key = a_sides.parses.stretch(pa, _at(starts_a, first_a, len(pa.data)), _at(starts_a, end_a, len(pa.data)))
                if key is None or key != b_sides.parses.stretch(pb, _at(starts_b, first_b, len(pb.data)),
                                                                 _at(starts_b, end_b, len(pb.data))):
                    return False
                continue
            view_a, view_b = (a_sides.yaml(side), b_sides.yaml(side)) if yaml else (None, None)
            if view_a is not None and view_b is not None:
                if _kept(view_a, first_a, end_a) != _kept(view_b, first_b, end_b):
                    return False
            elif plain(lines_a) != plain(lines_b):
                return False
    return True


def _kept(view: list[bytes | None], first: int, end: int) -> list[bytes]:
    """The lines [first, end) (1-based) of a YAML view that a change of whitespace alone keeps."""
    return [line for line in view[first - 1:end - 1] if line is not None]


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def hunk_id(path: str, section: str, body: tuple[bytes, ...], ordinal: int = 0) -> str:
    parts = [b"rennet-hunk/1", path.encode(), section.encode(), b"\n".join(body)]
    if ordinal:
        parts.append(str(ordinal).encode())
    return "h" + _digest(*parts)[:ID_HEX]


def index_hunks(change: FileChange, sides: Sides | None = None, parses: Parses | None = None,
                verdicts: Verdicts | None = None, same: bool = False) -> list[HunkRecord]:
    """The hunks of one file's patch, in patch order. Binary patches have none. `sides` gives
    the file's two sides (None where it has none) for the grammar to tell whether a hunk whose
    words are the same is whitespace only; without it, its lines alone are compared.
    `verdicts`, shared by the files of one packet, keeps those answers by blob. With `same`
    (the two sides were found to differ in whitespace only, `same_but_whitespace`), each hunk
    whose words are the same is whitespace only, the sides not read again."""
    made = None if change.binary else change.patch()
    if made is None:
        return []
    patch: pygit2.Patch = made.patch  # `made` holds the bytes its lines point into until we return
    records: list[HunkRecord] = []
    seen: dict[str, int] = {}
    indented = indent_significant(change.path)
    trees = FileSides(change.path, sides, parses)
    verdicts = {} if verdicts is None else verdicts
    language = name_language(change.path) if sides is not None else ""
    for hunk in patch.hunks:
        # git drops trailing whitespace from the function context after cutting it at 80
        # bytes; libgit2 keeps it. The header travels so a reader finds it in `git diff`.
        header = hunk.header.rstrip()
        section = section_of(header)
        body: list[bytes] = []
        added: list[bytes] = []
        removed: list[bytes] = []
        old_lines: list[int] = []
        new_lines: list[int] = []
        added_raw: list[bytes] = []
        removed_raw: list[bytes] = []
        exact: list[bytes] = []
        old_side: list[bytes] = []  # the hunk's lines on each side, context too
        new_side: list[bytes] = []
        groups: list[Group] = []
        run: list[int] | None = None
        old_next = hunk.old_start if hunk.old_lines else hunk.old_start + 1
        new_next = hunk.new_start if hunk.new_lines else hunk.new_start + 1
        # as `git diff` prints the hunk: its header as git cuts it, a line an origin byte and its
        # text; libgit2 gives a "\ No newline at end of file" marker the line break of the line
        # before it, which git prints with that line, and no origin byte of its own
        size = len(header.encode()) + 1
        for line in hunk.lines:
            raw = line.raw_content
            size += len(raw) if line.origin in _EOFNL else 1 + len(raw)
            if line.origin in "+-" or line.origin in _EOFNL:
                exact.append(line.origin.encode() + raw)
            if line.origin in "+-" and run is None:
                run = [old_next, old_next, new_next, new_next]
            if line.origin == "+":
                norm = normalize(raw)
                body.append(b"+" + norm)
                added.append(norm)
                added_raw.append(raw)
                new_lines.append(line.new_lineno)
                new_side.append(raw)
                assert run is not None
                run[3] = new_next = line.new_lineno + 1
            elif line.origin == "-":
                norm = normalize(raw)
                body.append(b"-" + norm)
                removed.append(norm)
                removed_raw.append(raw)
                old_lines.append(line.old_lineno)
                old_side.append(raw)
                assert run is not None
                run[1] = old_next = line.old_lineno + 1
            elif line.origin == " ":
                if run is not None:
                    groups.append((run[0], run[1], run[2], run[3]))
                    run = None
                old_side.append(raw)
                new_side.append(raw)
                old_next, new_next = line.old_lineno + 1, line.new_lineno + 1
        if run is not None:
            groups.append((run[0], run[1], run[2], run[3]))
        frozen = tuple(body)
        base_id = hunk_id(change.path, section, frozen)
        ordinal = seen.get(base_id, 0)
        seen[base_id] = ordinal + 1
        records.append(HunkRecord(
            id=hunk_id(change.path, section, frozen, ordinal) if ordinal else base_id,
            path=change.path,
            header=header,
            section=section,
            old_start=hunk.old_start, old_lines=hunk.old_lines,
            new_start=hunk.new_start, new_lines=hunk.new_lines,
            additions=len(added), deletions=len(removed),
            size=size,
            whitespace_only=b"".join(added) == b"".join(removed) and words(added_raw) == words(removed_raw) and (
                not indented or indents(added_raw) == indents(removed_raw)) and (
                words(added_raw, True) == words(removed_raw, True) or not trees.cr_is_data()) and (same or _verdict(
                verdicts, (change.old_oid, change.new_oid, language, tuple(groups)), trees, groups, old_side, new_side)),
            body=frozen,
            body_key=_digest(b"rennet-body/2", *exact)[:ID_HEX],
            old_changed=(min(old_lines), max(old_lines)) if old_lines else None,
            new_changed=(min(new_lines), max(new_lines)) if new_lines else None,
            runs=tuple(groups),
        ))
    return records
