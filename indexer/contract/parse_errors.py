"""How an answer says where a file's parse failed (`BlobFacts.parse_errors`): `context.file`'s
`meta.parse_errors`, a Delta packet file's `parse_errors` for its head side."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from msgspec import Struct

if TYPE_CHECKING:
    from indexer.model import BlobFacts, ParseError


class ErrorRegion(Struct, omit_defaults=True):
    line: int  # 1-based first line
    end_line: int  # 1-based, inclusive
    missing: str = ""  # a token the parser assumed where the source has none (`)`, `}`); absent for an ERROR


class FileParseErrors(Struct):
    """Where a file's parse failed (present only when it did)."""

    total: int  # regions in all
    regions: list[ErrorRegion]  # the first ones, in line order
    note: str


def regions_text(regions: Sequence[ParseError], total: int) -> str:
    """`lines 6-9, 12 (missing ')')`, with `, ...` when there are more regions than those kept."""
    parts = [(f"{r.line}" if r.end_line == r.line else f"{r.line}-{r.end_line}")
             + (f" (missing {r.missing!r})" if r.missing else "") for r in regions]
    single = len(regions) == 1 == total and regions[0].line == regions[0].end_line
    return ("line " if single else "lines ") + ", ".join(parts) + (", ..." if total > len(regions) else "")


def file_parse_errors(facts: BlobFacts | None, subject: str, what: str) -> FileParseErrors | None:
    """Where the parse of `subject` (the file of `facts`) failed, and that `what` (what the
    answer read of it) may miss or misread what is in or after it; None for a clean parse."""
    if facts is None or not facts.parse_error_total:
        return None
    regions = [ErrorRegion(r.line, r.end_line, r.missing) for r in facts.parse_errors]
    note = (f"{subject} does not parse at {regions_text(facts.parse_errors, facts.parse_error_total)} (a syntax error, "
            f"or syntax its grammar does not know), so {what} may miss or misread the definitions in or after "
            f"them (read from the parser's recovery)")
    return FileParseErrors(facts.parse_error_total, regions, note)
