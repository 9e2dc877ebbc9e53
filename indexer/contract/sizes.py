"""Sizes in bytes as a user or an agent gives them, and the one parser every face uses.

A size is a whole number of bytes (`4096`, or the JSON integer 4096) or a whole number with
a `k`, `M` or `G` suffix in either case, in powers of 1024: `64k` is 65,536 bytes, `512M`
is 536,870,912. Nothing else is a size: no fractions, signs, spaces or `kB`/`KiB` spellings.
The same parser reads a command's size field (`context.map`'s `budget`, on the CLI, over
`rennet call`, MCP and the Python face), `rennet mcp --ceiling` / `--cache-bytes` and their
environment variables, and `$RENNET_LIMITS` (`indexer.contract.limits`); each caller names
the range it takes, so `"12x"`, a negative
number and a size past the field's maximum are each a typed `bad_input` naming the field.

A size field in an input Struct is typed `Annotated[int, Meta(ge=LOW, le=HIGH)] |
Annotated[str, Meta(pattern=SIZE_PATTERN)]`, so its JSON Schema says both spellings
truthfully; the Struct's `__post_init__` turns the string into bytes with `parse_size`, so a
handler only ever sees an int. The CLI recognises such a field by the pattern and parses its
argument with `parse_size` too (a bad one is a usage error there).
"""

from __future__ import annotations

import os
import re

from indexer.contract.errors import BadInput

SIZE_PATTERN = r"^[0-9]{1,15}[kKmMgG]?$"  # a bounded number of digits: no string costs more than a glance
_SIZE = re.compile(SIZE_PATTERN.strip("^$"))  # fullmatch: `$` alone would let "4k\n" through
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
SPELLING = "a whole number of bytes, or a whole number with a k, M or G suffix (1k = 1024 bytes)"


def parse_size(value: object, *, what: str, low: int = 0, high: int) -> int:
    """`value` (an int, or a string as above) in bytes, within `low`..`high`; else `bad_input`
    naming `what` (the field or option; "" where the caller names it) and the range."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise BadInput(f"{what or 'a size'} must be {SPELLING}, not {type(value).__name__}")
    if isinstance(value, int):
        size = value
    else:
        match = _SIZE.fullmatch(value) if len(value) <= 16 else None
        if match is None:
            shown = value if len(value) <= 24 else value[:24] + "..."
            raise BadInput(f"{_named(what, shown)} is not a size: give {SPELLING}")
        unit = value[-1].lower() if value[-1].isalpha() else ""
        size = int(value[: len(value) - len(unit)]) * UNITS[unit]
    if not low <= size <= high:
        raise BadInput(f"{_named(what, value)} is {size} bytes: give {show(low)} to {show(high)}")
    return size


def configured_size(explicit: int | str | None, *, option: str, variable: str, default: int, low: int,
                    high: int) -> int:
    """A server setting that is a size: its option's value, else its environment variable's, else
    `default`; a bad one is `bad_input` naming where it came from."""
    if explicit is not None:
        return parse_size(explicit, what=option, low=low, high=high)
    value = os.environ.get(variable, "")
    return parse_size(value, what=f"${variable}", low=low, high=high) if value else default


def _named(what: str, value: object) -> str:
    return f"{what} {value!r}" if what else repr(value)


def show(size: int) -> str:
    """A size in the shortest spelling `parse_size` reads back: `65536` -> `64k`."""
    for unit in ("g", "m", "k"):
        if size and size % UNITS[unit] == 0:
            return f"{size // UNITS[unit]}{unit.upper() if unit != 'k' else unit}"
    return str(size)
