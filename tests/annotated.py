"""Annotated source fixtures (tests/fixtures/): a small tree of files in one text file, with
what a test expects written in comments beside the lines they concern.

    # What the case is about: comment lines before the first file.
    ==> app.py <==
    from pkg import core  # -> src/pkg/core.py
    import os  # -> external
    ==> src/pkg/core.py <==

`==> path <==` starts a file (the form `head` prints); an annotation is a trailing `#` or `//`
comment that starts with one of the keys a test asks for (`->`, `site:`): its key, and the
rest of the comment as its value. The comments stay in the source: the extractor reads the
file as written."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).with_name("fixtures")
_FILE = re.compile(r"^==> (?P<path>\S+) <==$")


@dataclass(frozen=True)
class Note:
    path: str
    line: int  # 1-based, in its file
    key: str
    value: str


@dataclass(frozen=True)
class Case:
    name: str  # the fixture's file name, without its suffix
    files: dict[str, str]  # path -> text
    notes: list[Note]

    def __str__(self) -> str:
        return self.name


def load(fixture: Path, keys: tuple[str, ...] = ("->",)) -> Case:
    """The tree and the annotations (of the given `keys`) of one fixture file."""
    note = re.compile(r"\s(?:#|//)\s*(?P<key>" + "|".join(re.escape(k) for k in keys) + r")\s*(?P<value>.*?)\s*$")
    files: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in fixture.read_text(encoding="utf-8").splitlines():
        start = _FILE.match(raw)
        if start:
            current = files.setdefault(start["path"], [])
        elif current is not None:
            current.append(raw)
        elif raw.strip() and not raw.startswith("#"):
            raise ValueError(f"{fixture.name}: text before the first file: {raw!r}")
    notes = [Note(path, i, m["key"], m["value"]) for path, lines in files.items()
             for i, text in enumerate(lines, 1) if (m := note.search(text))]
    return Case(fixture.stem, {path: "".join(line + "\n" for line in lines) for path, lines in files.items()}, notes)


def cases(folder: str, keys: tuple[str, ...] = ("->",)) -> list[Case]:
    """Every fixture under tests/fixtures/`folder`, by name."""
    return [load(p, keys) for p in sorted((FIXTURES / folder).glob("*.txt"))]


def noted_sites(case: Case) -> dict[str, list[tuple[str, int, str]]]:
    """name -> its reference sites as (path, line, resolution), sorted, from `site:` notes:
    `// site: Part import, Bolt import` (a name twice on a line: listed twice)."""
    sites: dict[str, list[tuple[str, int, str]]] = {}
    for n in case.notes:
        if n.key != "site:":
            continue
        for item in n.value.split(","):
            name, resolution = item.split()
            sites.setdefault(name, []).append((n.path, n.line, resolution))
    return {name: sorted(found) for name, found in sites.items()}


def noted_reaches(case: Case) -> dict[str, list[tuple[str, int, str]]]:
    """name -> its resolved sites as (path, line, `path:line` of the definition each reaches),
    sorted, from `reaches:` notes: `# reaches: get pkg/api.py:4, Request -` (`-`: no resolved
    site of the name on the line; a name twice: two sites)."""
    found: dict[str, list[tuple[str, int, str]]] = {}
    for n in case.notes:
        if n.key != "reaches:":
            continue
        for item in n.value.split(","):
            name, definition = item.split()
            found.setdefault(name, [])
            if definition != "-":
                found[name].append((n.path, n.line, definition))
    return {name: sorted(sites) for name, sites in found.items()}
