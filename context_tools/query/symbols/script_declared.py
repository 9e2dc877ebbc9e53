"""A JavaScript or TypeScript receiver's type as a declaration says it (`Declared`), what each
of the receiver typing's readers (`script_types` and the modules it coordinates) answers, and
the memo of them one query keeps (`Typed`)."""

from __future__ import annotations

from typing import NamedTuple

from context_tools.query.symbols.hierarchy import Cls


class Declared(NamedTuple):
    """A receiver's type as the code declares it: the type's name (`A & B` an intersection),
    the binding that said so and, where the binding names the very class (`this`), that class;
    `seen_from` the file whose names the type is written with, where another file's declaration
    said it (an imported `const`'s, a field's, a function's declared return or predicate: the
    site's file may bind the name to something else), `alternatives` the types of the values a conditional may
    take (`c ? a : b`), where there are several."""

    type: str
    rule: str
    cls: Cls | None = None
    seen_from: str | None = None
    alternatives: tuple[Declared, ...] = ()


# the declared type of each receiver asked (file, line, byte, dotted receiver, cast): what the
# code says of it, whichever definition a query weighs it against
Typed = dict[tuple[str, int, int, tuple[str, ...], "str | None"], "Declared | None"]
