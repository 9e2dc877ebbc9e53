"""The work a call does, counted as the lines of Rennet's own code it runs (not the tests'), or
of the modules named: what a test of a bound on work compares, for an input and one twice its
size, where a timed assertion would measure the machine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, TypeVar

if TYPE_CHECKING:
    from indexer.contract.result import Result
    from tests.indexed import Asked

ROOT = str(Path(__file__).resolve().parents[1])
TESTS = str(Path(__file__).resolve().parent)
T = TypeVar("T")


def counted(call: Callable[[], T], files: Iterable[str] | None = None) -> tuple[T, int]:
    """What `call()` returns, and the lines it ran of `files` (module paths), else of any of
    Rennet's modules."""
    only = None if files is None else frozenset(files)
    ran = 0

    def local(frame, event, arg):
        nonlocal ran
        if event == "line":
            ran += 1
        return local

    def tracer(frame, event, arg):
        file = frame.f_code.co_filename
        if only is not None:
            return local if file in only else None
        return local if file.startswith(ROOT) and not file.startswith(TESTS) else None

    sys.settrace(tracer)
    try:
        result = call()
    finally:
        sys.settrace(None)
    return result, ran


def lines_run(call: Callable[[], object], files: Iterable[str] | None = None) -> int:
    """The lines `call()` ran (`counted`)."""
    return counted(call, files)[1]


def module_lines(modules: str | tuple[str, ...], call: Callable[[], T]) -> tuple[T, int]:
    """`counted` of the module file or files named first."""
    return counted(call, (modules,) if isinstance(modules, str) else modules)


def references_counted(asked: Asked, name: str, files: Iterable[str], first: str) -> tuple[Result, int]:
    """The answer of `context.references` for `name` and the lines of `files` it ran, once a
    call for `first` has read what a snapshot keeps once (its tables, the name indexes), so
    that only the work of `name`'s sites is counted."""
    asked.call("context.references", name=first)
    return counted(lambda: asked.call("context.references", name=name), files)
