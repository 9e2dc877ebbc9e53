"""Human tables with a header row, drawn by rich in plain text (no colour, no box lines), so a
table reads the same in a terminal, a pipe and a test. Every cell passes the sanitizer, but
those of the columns already drawn (names shown as git quotes a path), which keep their spacing."""

from __future__ import annotations

import io
from typing import Sequence

from context_tools.faces.sanitize import escaped_line, sanitize_line

WIDTH = 200  # wide enough that rows are never wrapped: a pipe gets one line per row
WHOLE = 40  # a column whose cells are all this short is never shortened: ids and verbs stay whole


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[str] = (),
          drawn: Sequence[str] = ()) -> str:
    """The rows under their headers, columns aligned; `right` names the columns aligned right,
    `drawn` those whose cells are drawn already (`shown_name`, `shown_own`)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="", expand=False)
    cells = [[escaped_line(str(cell)) if name in drawn else sanitize_line(str(cell), 120)
              for name, cell in zip(headers, row)] for row in rows]
    for at, name in enumerate(headers):
        # Past WIDTH rich shortens every column; only the long text (a summary, a message) should give.
        longest = max([len(name), *(len(row[at]) for row in cells)])
        grid.add_column(name, justify="right" if name in right else "left", no_wrap=True, overflow="ellipsis",
                        min_width=longest if longest <= WHOLE else None)
    for row in cells:
        grid.add_row(*row)
    out = io.StringIO()
    Console(file=out, width=WIDTH, color_system=None, highlight=False, markup=False, emoji=False,
            soft_wrap=False).print(grid)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines() if line.strip())
