"""Progress bars on stderr, shown only when it is a terminal: one row per stage, made when a
stage first reports."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

from indexer.store.writer_wait import WAIT_SECONDS

if TYPE_CHECKING:
    from rich.progress import TaskID

Update = Callable[[str, int, int], None]


def stage_bar(enabled: bool, labels: dict[str, str] | None = None):
    """(bar, update) where `update(stage, done, total)` moves that stage's row; (None, None) when
    not enabled or stderr is not a terminal. Use the bar as a context manager."""
    if not enabled or not sys.stderr.isatty():
        return None, None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    rows: dict[str, TaskID] = {}
    names = labels or {}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in rows:
            rows[stage] = bar.add_task(names.get(stage, stage), total=None)
        bar.update(rows[stage], completed=done, total=total)

    return bar, update


def waiting_once() -> Callable[[float], None]:
    """A line on stderr the first time a command waits for another indexer of the store."""
    told: list[bool] = []

    def tell(seconds: float) -> None:
        if not told:
            told.append(True)
            print(f"rennet: waiting for another indexer of the store to finish (at most {WAIT_SECONDS:.0f} s)",
                  file=sys.stderr, flush=True)
    return tell


@contextmanager
def on_the_way(repo: str, rev: str) -> Iterator[Update | None]:
    """While a command indexes a rev that has no snapshot yet: the progress bar on a terminal,
    one line on stderr otherwise (stdout stays the answer's)."""
    from context_tools.faces.sanitize import sanitize_line

    bar, update = stage_bar(True, {"parse": "parsing", "assemble": "assembling"})
    rev_shown, repo_shown = sanitize_line(rev), sanitize_line(os.path.realpath(repo))
    said = (rev_shown, repo_shown) in _ANNOUNCED  # tried before this wait for another indexer: said once
    _ANNOUNCED.add((rev_shown, repo_shown))
    if bar is None:
        if not said:
            print(f"rennet: indexing {rev_shown} of {repo_shown} first (no snapshot of it yet)", file=sys.stderr,
                  flush=True)
        yield None
        return
    if not said:
        sys.stderr.write(f"indexing {rev_shown} of {repo_shown} first\n")
    with bar:
        yield update


# What this process said it indexes first: a command retries after waiting for another indexer
_ANNOUNCED: set[tuple[str, str]] = set()
