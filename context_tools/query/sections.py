"""Embedded collections of a summary reply (overview, novelty): each is bounded, counted,
and carries a cursor that pages the rest through the same command narrowed to it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Sequence, TypeVar

import msgspec
from msgspec import Struct

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext


T = TypeVar("T")


# Generic in its items' type, named by the field that holds the section (`Section[TopFile]`), so
# the shipped schema types them too; each such type is a `$defs` entry of its own, with this
# docstring as its description, so the docstring stays one line.
class Section(Struct, Generic[T]):
    """The first page of one embedded collection."""

    items: list[T]
    total: int
    returned: int
    truncated: bool
    cursor: str | None = None  # valid for the same call with `section=<this section>`


def fitting(items: Sequence[object], room: int) -> int:
    """How many of `items`, from the first, take at most `room` bytes serialized (at least one)."""
    from indexer.contract.encode import encode_json

    used = 0
    for i, item in enumerate(items):
        used += len(encode_json(item)) + 1
        if used > room:
            return max(i, 1)
    return len(items)


def summary_section(ctx: CallContext, input: Struct, name: str, items: Sequence[T], binding: str,
                    share: int | None = None) -> Section[T]:
    """The first page of a section of the summary that `input` asked for; its cursor pages the
    same call narrowed to the section. `share`: under a reply ceiling, the section keeps the
    items that fit in that fraction of it (at least one), so that the summary is read, not
    spilled, beside its other sections."""
    query = msgspec.structs.replace(input, section=name, cursor=None, limit=None)
    size = ctx.cap("section")
    if share is not None and ctx.ceiling is not None:
        size = fitting(items[:size], ctx.ceiling // share)
    chunk, page = ctx.first_page_of(items, size=size, query=query, binding=binding)
    return Section(items=chunk, total=page.total, returned=page.returned, truncated=page.truncated,
                   cursor=page.cursor)


def refuse_paging_without_section(input: object) -> None:
    """A summary shows the first page of every section; `cursor` and `limit` page one section
    (`section`), so either without it is refused rather than ignored."""
    from indexer.contract.errors import BadInput

    for field in ("cursor", "limit"):
        if getattr(input, field):  # an empty cursor is none, as on every page
            raise BadInput(f"`{field}` pages one section: pass `section` with it")
