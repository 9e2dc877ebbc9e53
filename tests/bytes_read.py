"""The work the C and C++ readers of a commit's file content do on a text, counted: the lines of
their Python they run (`tests/lines_run.py`) and the bytes of the text their scans in C read.

A scan done in C (a regex's search, a look back for a line's start, a slice) runs no line of
ours: a reader that scanned back to its line's start for each match on a long line ran as many
lines as a linear one, while the bytes it read grew as the square of the line. The text is
given as `Text`, whose slices are `Text` too, and the readers' compiled patterns are swapped
for ones that count: a search counts the bytes from where it starts to the end of its match (or
of its window when it finds none), a slice its length, a `find` the bytes up to what it found.
A regex that backtracks within what it reads once is not seen: its work is the engine's own."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import SupportsIndex

from indexer.lang import retry_views
from indexer.lang.c import comments, conditions, header, macros
from tests.lines_run import counted

MODULES: tuple[ModuleType, ...] = (comments, conditions, header, macros, retry_views)
_read = [0]


def _window(size: int, start: SupportsIndex | None, end: SupportsIndex | None) -> tuple[int, int]:
    return slice(start, end).indices(size)[:2]


class Text(bytes):
    """Bytes whose reads in C are counted: each returns plain results, a slice another `Text`."""

    def find(self, sub, start=None, end=None):
        s, e = _window(len(self), start, end)
        found = bytes.find(self, sub, s, e)
        _read[0] += (found + len(sub) - s) if found >= 0 else max(0, e - s)
        return found

    def rfind(self, sub, start=None, end=None):
        s, e = _window(len(self), start, end)
        found = bytes.rfind(self, sub, s, e)
        _read[0] += (e - found) if found >= 0 else max(0, e - s)
        return found

    def index(self, sub, start=None, end=None):
        found = self.find(sub, start, end)
        if found < 0:
            raise ValueError("subsection not found")
        return found

    def rindex(self, sub, start=None, end=None):
        found = self.rfind(sub, start, end)
        if found < 0:
            raise ValueError("subsection not found")
        return found

    def count(self, sub, start=None, end=None):
        s, e = _window(len(self), start, end)
        _read[0] += max(0, e - s)
        return bytes.count(self, sub, s, e)

    def __contains__(self, sub):
        return self.find(sub) >= 0 if isinstance(sub, bytes) else bytes.__contains__(self, sub)

    def __getitem__(self, key):
        got = bytes.__getitem__(self, key)
        if isinstance(got, int):
            _read[0] += 1
            return got
        _read[0] += len(got)
        return Text(got)

    def __add__(self, other):
        joined = bytes(self) + bytes(other)
        _read[0] += len(joined)
        return Text(joined)

    def __radd__(self, other):
        joined = bytes(other) + bytes(self)
        _read[0] += len(joined)
        return Text(joined)

    def _stripped(self, stripped: bytes) -> Text:
        _read[0] += len(self) - len(stripped) + 1
        return Text(stripped)

    def strip(self, chars=None):
        return self._stripped(bytes.strip(self, chars))

    def lstrip(self, chars=None):
        return self._stripped(bytes.lstrip(self, chars))

    def rstrip(self, chars=None):
        return self._stripped(bytes.rstrip(self, chars))

    def startswith(self, prefix, *args):
        _read[0] += max(len(p) for p in prefix) if isinstance(prefix, tuple) else len(prefix)
        return bytes.startswith(self, prefix, *args)

    def endswith(self, suffix, *args):
        _read[0] += max(len(p) for p in suffix) if isinstance(suffix, tuple) else len(suffix)
        return bytes.endswith(self, suffix, *args)

    def split(self, *args, **kwargs):
        _read[0] += len(self)
        return bytes.split(self, *args, **kwargs)

    def decode(self, *args, **kwargs):
        _read[0] += len(self)
        return bytes.decode(self, *args, **kwargs)


class _Counting:
    """A compiled pattern whose searches count the bytes they read (the module docstring)."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self._pattern = pattern

    def __getattr__(self, name: str) -> object:
        return getattr(self._pattern, name)

    def search(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[bytes] | None:
        found = self._pattern.search(string, pos, endpos)
        _read[0] += (found.end() if found else min(endpos, len(string))) - max(0, pos) + 1
        return found

    def match(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[bytes] | None:
        found = self._pattern.match(string, pos, endpos)
        _read[0] += (found.end() - max(0, pos) if found else 0) + 1
        return found

    def fullmatch(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[bytes] | None:
        found = self._pattern.fullmatch(string, pos, endpos)
        _read[0] += (found.end() - max(0, pos) if found else 0) + 1
        return found

    def finditer(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[bytes]]:
        last = max(0, pos)
        for found in self._pattern.finditer(string, pos, endpos):
            _read[0] += found.end() - last + 1
            last = found.end()
            yield found
        _read[0] += max(0, min(endpos, len(string)) - last)

    def _whole(self, string: bytes) -> None:
        _read[0] += len(string) + 1

    def sub(self, repl: bytes, string: bytes, count: int = 0) -> bytes:
        self._whole(string)
        return self._pattern.sub(repl, string, count)

    def findall(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> list[object]:
        self._whole(string)
        return self._pattern.findall(string, pos, endpos)

    def split(self, string: bytes, maxsplit: int = 0) -> list[bytes | None]:
        self._whole(string)
        return self._pattern.split(string, maxsplit)


def _counting(value: object) -> object:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, bytes):
        return _Counting(value)
    if isinstance(value, dict) and any(isinstance(v, re.Pattern) for v in value.values()):
        return {k: _counting(v) for k, v in value.items()}
    if type(value) is tuple and any(isinstance(v, re.Pattern) for v in value):
        return tuple(_counting(v) for v in value)
    return value


@contextmanager
def _patterns_counting() -> Iterator[None]:
    """The readers' bytes patterns swapped for counting ones, header's compiled ones too."""
    kept: list[tuple[ModuleType, str, object]] = []
    made = header._patterns()
    swaps = {mod: {name: _counting(value) for name, value in vars(mod).items()} for mod in MODULES}
    swaps[header]["_patterns"] = lambda: header._Patterns._make([_counting(p) for p in made])
    try:
        for mod, values in swaps.items():
            for name, value in values.items():
                if value is not vars(mod)[name]:
                    kept.append((mod, name, vars(mod)[name]))
                    setattr(mod, name, value)
        yield
    finally:
        for mod, name, value in kept:
            setattr(mod, name, value)


def work(call: Callable[[Text], object], text: bytes) -> int:
    """The lines of the readers' Python `call(Text(text))` runs, and the bytes their scans read."""
    with _patterns_counting():
        _read[0] = 0
        _, lines = counted(lambda: call(Text(text)), [m.__file__ for m in MODULES if m.__file__])
        return lines + _read[0]
