"""The work a call does, counted as the lines of Rennet's own code it runs (not the tests'):
what a test of a bound on work compares, for an input and one twice its size, where a timed
assertion would measure the machine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

ROOT = str(Path(__file__).resolve().parents[1])
TESTS = str(Path(__file__).resolve().parent)


def lines_run(call: Callable[[], object]) -> int:
    ran = 0

    def local(frame, event, arg):
        nonlocal ran
        if event == "line":
            ran += 1
        return local

    def tracer(frame, event, arg):
        file = frame.f_code.co_filename
        return local if file.startswith(ROOT) and not file.startswith(TESTS) else None

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return ran
