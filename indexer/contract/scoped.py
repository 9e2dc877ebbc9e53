"""A setting of the thread's work held for the length of a block (a ContextVar set, then reset):
the limits in force, the progress sink of an MCP call, the bound and slot of its waits."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, TypeVar

T = TypeVar("T")


@contextmanager
def scoped(var: ContextVar[T], value: T) -> Iterator[None]:
    """`var` holds `value` within the block, in this thread, and what it held before after it."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)
