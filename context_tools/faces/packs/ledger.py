"""The ledger as a command: `ledger.read` -> `rennet ledger [--json]`, newest receipts first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec

from context_tools.faces.ledger import Receipt
from context_tools.faces.registry import CliShape, Command, Exposure
from indexer.contract.result import Result, Unknown

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext


class LedgerInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command: Annotated[str | None, msgspec.Meta(description="only receipts of this command id (delta.build, not the verb delta; a name no command has is bad_input)")] = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500, description="receipts per page")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class ReceiptSnapshot(msgspec.Struct):
    """The snapshot a call read."""

    repo: str
    oid: str
    fingerprint: str | Unknown


class ReceiptPage(msgspec.Struct):
    """The page a call answered."""

    total: int
    returned: int
    truncated: bool


class ReceiptView(msgspec.Struct, omit_defaults=True):
    """One receipt as the ledger command shows it: what was not part of the call is a typed
    unknown, never a blank; `spill` and `message` appear only when there was one."""

    at: str  # UTC ISO-8601
    command: str
    surface: str
    input_digest: str | Unknown
    outcome: str  # "ok" or the error code
    duration_ms: float
    snapshot: ReceiptSnapshot | Unknown
    page: ReceiptPage | Unknown
    spill: str | None = None  # path of the spilled complete result
    message: str | None = None  # sanitized error message


def view(r: Receipt) -> ReceiptView:
    """The stored receipt (whose blanks stay as they were written, so old ledgers read) as shown."""
    snapshot: ReceiptSnapshot | Unknown = Unknown("not_applicable", "the call read no snapshot")
    if r.oid:
        snapshot = ReceiptSnapshot(r.repo, r.oid, r.fingerprint or Unknown(
            "not_recorded", "the answer was not read from one snapshot"))
    page: ReceiptPage | Unknown = Unknown("not_applicable", "the reply had no page")
    if r.total is not None:
        page = ReceiptPage(r.total, r.returned or 0, bool(r.truncated))
    digest = r.input_digest or Unknown("not_assessed", "the input was refused before it was decoded")
    return ReceiptView(r.at, r.command, r.surface, digest, r.outcome, r.duration_ms, snapshot, page,
                       spill=r.spill or None, message=r.message or None)


class LedgerPage(msgspec.Struct):
    receipts: list[ReceiptView]


def read_ledger(input: LedgerInput, ctx: CallContext) -> Result:
    from context_tools.faces import ledger

    writer = ctx.handle.ledger_writer
    if writer is not None:
        writer.flush()  # what this face did so far is part of the answer
    all_receipts = list(ledger.receipts(ctx.store))
    all_receipts.reverse()
    if input.command:
        chosen = [r for r in all_receipts if r.command == input.command]
        if not chosen:
            _known_command(input.command)
        all_receipts = chosen
    # The ledger grows between calls, so a cursor binds to the newest receipt it saw.
    import hashlib

    newest = f"{all_receipts[0].at}:{len(all_receipts)}" if all_receipts else "empty"
    binding = hashlib.sha256(f"ledger:{newest}".encode()).hexdigest()
    items, page = ctx.page(all_receipts, cap="receipts", limit=input.limit, cursor=input.cursor,
                           binding=binding)
    return Result(data=LedgerPage(receipts=[view(r) for r in items]), page=page)


def _known_command(name: str) -> None:
    """`bad_input` for a filter no command id answers to: a CLI verb (`delta`) or a typo would
    otherwise read as 'no receipts', as if the command had never run."""
    from context_tools.faces.registry import registry
    from indexer.contract.errors import BadInput

    table = registry()
    if name in table:
        return
    verbs = {" ".join(row.cli_path): row.id for row in table.cli_verbs()}
    meant = verbs.get(" ".join(name.split()))
    hint = f": the verb `rennet {' '.join(name.split())}` is the command {meant}" if meant else \
        " (`rennet commands` lists them)"
    raise BadInput(f"no command has the id {name!r}{hint}")


def render_ledger(result: Result) -> str:
    from context_tools.faces.render import footer
    from context_tools.faces.sanitize import shown_own
    from context_tools.faces.tables import table

    rows = []
    for r in result.data.receipts:
        read, p = r.snapshot, r.page
        where = f"{shown_own(read.repo, 120)}@{read.oid[:12]}" if isinstance(read, ReceiptSnapshot) else "-"
        counts = f"{p.returned}/{p.total}{'+' if p.truncated else ''}" if isinstance(p, ReceiptPage) else "-"
        notes = "; ".join(x for x in (f"spilled: {r.spill}" if r.spill else "", r.message or "") if x)
        rows.append([r.at, r.surface, r.command, r.outcome, counts, f"{r.duration_ms:.1f}", where, notes or "-"])
    page = result.page
    head = ["at", "surface", "command", "outcome", "items", "ms", "repository", "notes"]
    return "\n".join([table(head, rows, right=("items", "ms"), drawn=("repository",)) if rows else "no receipts",
                      *(footer(result) if page is not None else [f"[{len(rows)}]"])])


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
