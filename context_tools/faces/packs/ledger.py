"""The ledger as a command: `ledger.read` -> `rennet ledger [--json]`, newest receipts first."""

from __future__ import annotations

from typing import Annotated

import msgspec

from context_tools.faces.ledger import Receipt
from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Result


class LedgerInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command: Annotated[str | None, msgspec.Meta(description="only receipts of this command id")] = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500, description="receipts per page")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class LedgerPage(msgspec.Struct):
    receipts: list[Receipt]


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
    from context_tools.faces.tables import table

    rows = []
    for r in result.data.receipts:
        where = f"{r.repo}@{r.oid[:12]}" if r.oid else "-"
        counts = f"{r.returned}/{r.total}{'+' if r.truncated else ''}" if r.total is not None else "-"
        notes = "; ".join(x for x in (f"spilled: {r.spill}" if r.spill else "", r.message) if x)
        rows.append([r.at, r.surface, r.command, r.outcome, counts, f"{r.duration_ms:.1f}", where, notes or "-"])
    page = result.page
    head = ["at", "surface", "command", "outcome", "items", "ms", "repository", "notes"]
    return "\n".join([table(head, rows, right=("items", "ms")) if rows else "no receipts",
                      f"[{page.returned} of {page.total}]" + (f"  next: --cursor {page.cursor}" if page.cursor else "")
                      if page is not None else f"[{len(rows)}]"])


ROWS = (
    Command(
        id="ledger.read", output=('context_tools.faces.packs.ledger:LedgerPage',),
        examples=("rennet ledger", "rennet ledger --command context.symbol --limit 5 --json"),
        summary="Receipts of past calls (what each face was asked and told), newest first.",
        input=LedgerInput,
        handler=read_ledger,
        authority="read",
        exposure=Exposure(cli=True, agent=False),
        caps={"receipts": 50},
        cli=CliShape(path=("ledger",)), render=render_ledger,
    ),
)
