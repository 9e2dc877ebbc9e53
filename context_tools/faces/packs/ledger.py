"""The ledger as a command: `ledger.read` -> `rennet ledger [--json]`, newest receipts first."""

from __future__ import annotations

from typing import Annotated

import msgspec

from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Result


class LedgerInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command: Annotated[str | None, msgspec.Meta(description="only receipts of this command id")] = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500, description="receipts per page")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class LedgerPage(msgspec.Struct):
    receipts: list


def read_ledger(input: LedgerInput, ctx) -> Result:
    from context_tools.faces import ledger

    writer = ctx.handle.ledger_writer
    if writer is not None:
        writer.flush()  # what this face did so far is part of the answer
    all_receipts = list(ledger.receipts(ctx.store))
    all_receipts.reverse()
    if input.command:
        all_receipts = [r for r in all_receipts if r.command == input.command]
    # The ledger grows between calls, so a cursor binds to the newest receipt it saw.
    import hashlib

    newest = f"{all_receipts[0].at}:{len(all_receipts)}" if all_receipts else "empty"
    binding = hashlib.sha256(f"ledger:{newest}".encode()).hexdigest()
    items, page = ctx.page(all_receipts, cap="receipts", limit=input.limit, cursor=input.cursor,
                           binding=binding)
    return Result(data=LedgerPage(receipts=items), page=page)


def render_ledger(result: Result) -> str:
    from context_tools.faces.sanitize import sanitize_line

    lines = []
    for r in result.data.receipts:
        where = f"{sanitize_line(r.repo, 60)}@{r.oid[:12]}" if r.oid else "-"
        counts = f"{r.returned}/{r.total}{'+' if r.truncated else ''}" if r.total is not None else "-"
        line = f"{r.at}  {r.surface:<6} {r.command:<20} {r.outcome:<14} {counts:<9} {r.duration_ms:>8.1f} ms  {where}"
        if r.spill:
            line += f"  spilled: {sanitize_line(r.spill, 120)}"
        if r.message:
            line += f"  ({sanitize_line(r.message, 120)})"
        lines.append(line)
    page = result.page
    if page is not None:  # the ledger's answer is always a page
        lines.append(f"[{page.returned} of {page.total}]" + (f"  next: --cursor {page.cursor}" if page.cursor else ""))
    return "\n".join(lines)


ROWS = (
    Command(
        id="ledger.read",
        summary="Receipts of past calls (what each face was asked and told), newest first.",
        input=LedgerInput,
        handler=read_ledger,
        authority="read",
        exposure=Exposure(cli=True, agent=False),
        caps={"receipts": 50},
        cli=CliShape(path=("ledger",)), render=render_ledger,
    ),
)
