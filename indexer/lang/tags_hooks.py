"""What a language adds to the reading of its tags (indexer/extract/tags.py): the kinds of its
definition nodes, and the cases its grammar needs beyond them.

Each language's package supplies its `TagsHooks` as `HOOKS` in its `tags.py`
(`Language.hooks`); tags.py reads them once per blob and never names a language.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cache
from typing import TYPE_CHECKING, Callable, NamedTuple, Protocol

from tree_sitter import Node

from indexer.lang.language import part
from indexer.lang.registry import LANGUAGES
from indexer.model import Base, ImportSpec, Occurrence, Symbol

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


class Definition(Protocol):
    """What a hook reads and writes of a definition tags.py found."""

    kind: str
    start: int
    scope_end: int


class Facts(Protocol):
    """What a `finish` hook reads and writes of the facts of one tree."""

    symbols: list[Symbol]
    occurrences: list[Occurrence]
    imports: list[ImportSpec]
    exported_as: list[tuple[str, str]]
    es_module: bool
    dunder_all: list[str] | None
    bases: list[Base]
    build_ignored: bool
    class_starts: list[int] | None


# (definition node, the kind its capture says, its name's node) -> its kind, "" to leave it to
# `kinds`, or None to drop the match
KindRule = Callable[[Node, str, Node], "str | None"]
# (definition node, name node, source) -> the definition's name
Spelling = Callable[[Node, Node, bytes], str]
# (name node, its start byte, its text, the source, the definition sites made so far) ->
# (start, name) of the name as the language has it, or None when the node names nothing
NameRule = Callable[[Node, int, str, bytes, list[Occurrence]], "tuple[int, str] | None"]
# (name node, source) -> the container it is written under, as written ("" for none; `::` before
# it when written from the top)
ScopeRule = Callable[[Node, bytes], str]
# (a scope's name node) -> the scope's name
ScopeSpelling = Callable[[Node], str]
# (receiver node, method node, source) -> the kind of what a constant assigned the call's value is
Maker = Callable[[Node, Node, bytes], "str | None"]
# (tree root, source, the facts read from the tags) -> None: what the language reads after them
Finish = Callable[[Node, bytes, Facts], None]
# (definitions, end of the source) -> None
Definitions = Callable[["Sequence[Definition]", int], None]
# (tree root, source) -> (definition node, name node) of each variable the query cannot reach
Variables = Callable[[Node, bytes], "Iterable[tuple[Node, Node]]"]


class TagsHooks(NamedTuple):
    kinds: dict[str, str | None] = {}  # definition node type -> kind; None drops the match
    kind_rules: dict[str, KindRule] = {}  # node types whose kind the node itself says
    spelled: dict[str, Spelling] = {}  # definition node types whose name is not one identifier
    name_rules: dict[str, NameRule] = {}  # name node types read otherwise than as their text
    scope_rules: dict[str, ScopeRule] = {}  # name node types that say their container, when no capture does
    scope_spelled: dict[str, ScopeSpelling] = {}  # a scope's name node types whose name is not their text
    qualified_name: str = ""  # the node type of a qualified name, whose last segment is the name
    # definition node types that open a scope over a value defined elsewhere (Ruby `class << X`):
    # a scope for what is inside, and a use of the name
    scope_openers: frozenset[str] = frozenset()
    maker: Maker | None = None  # a call whose value, assigned to a constant, makes a class
    storage_fields: bool = False  # a field is storage in each value, never a constant
    # a variable's keyword says its kind, never its case (Go's `var`, Rust's `static`: a
    # constant is written `const`)
    keyword_kinds: bool = False
    hoisting: bool = False  # definitions written inside what is not their container (tags._HOISTED)
    # definition node types held by the innermost enclosing namespace wherever they are written
    # (tags._container_chain): a PHP function or class declared in a function body is its namespace's
    namespace_level: frozenset[str] = frozenset()
    bodiless_namespaces: bool = False  # `namespace A;` holds what follows it, up to the next
    to_the_end: frozenset[str] = frozenset()  # definition node types whose scope runs to the end of the file
    method_hosts: frozenset[str] = frozenset()  # kinds beyond class_kinds.METHOD_HOSTS whose functions are methods
    # kinds of definitions that hold nothing written inside them, which belongs to what holds
    # them (Ruby: a `def` run inside a method defines a method of the class around both, and a
    # constant's value is no scope)
    holderless: frozenset[str] = frozenset()
    body_fields_are_locals: bool = False  # a field of a struct in a function body is a local
    # a variable holds what its initializer defines, as it holds a function there: of the names
    # one declaration binds (`Object a = 1, b = new Object() { int c; };`, one span for both),
    # the one whose initializer it is (`c` is `b`'s), and none holds another of them
    declarators_hold: bool = False
    # members are held as code selects them (Go: `S.Sub.Deep` of a struct literal in a field's
    # type, a method's receiver type holding what its body declares; tags._selector_chain)
    selector_holders: bool = False
    # a variable holds the fields a class expression of its value declares (JS `var Box = class
    # { size = 0; }`: `Box.size`, as its methods are); elsewhere a variable holds a field,
    # constant or variable only through a definition between them (`a = b = 0`: siblings)
    variables_hold_fields: bool = False
    # a definition's explicit container names its holder from the top of the file, and is part
    # of the container of what is defined inside it (JS `obj.start = function () {}`: `obj`,
    # and a function inside is `obj.start.inner`)
    named_holders: bool = False
    # a definition's explicit container is written from where it stands, and is part of the
    # container of what is defined inside it; one written from the top (`::`) starts the chain
    # anew (Ruby's `class Foo::Bar` in `module A`: `A.Foo`, and a method inside is `A.Foo.Bar`'s;
    # `class ::Foo::Bar` there: `Foo`)
    relative_holders: bool = False
    # definition node types whose start bytes the tags pass on to `finish` (Facts.class_starts),
    # so that a walk looking for them enters only the subtrees that hold one (`holds_one`)
    class_types: frozenset[str] = frozenset()
    # a definition ends at its last token, not at the comments its grammar takes into the end
    # of an indented body (Python: a span and end line as `ast` gives them)
    ends_at_code: bool = False
    # variables no tags pattern can reach, each read as a `@definition.variable` match of its
    # definition and name nodes (Python: a module's variables, in blocks nested to any depth too)
    variables: Variables | None = None
    finish: Finish | None = None
    finish_definitions: Definitions | None = None


NO_HOOKS = TagsHooks()


def holds_one(node: Node, starts: list[int] | None) -> bool:
    """Whether one of the sorted `starts` lies in `node`; always, when they are not known
    (None: the tags may have dropped matches, so a walk must look everywhere)."""
    if starts is None:
        return True
    i = bisect_left(starts, node.start_byte)
    return i < len(starts) and starts[i] < node.end_byte


@cache
def of(language: str) -> TagsHooks:
    """The tags hooks of `language` (none for a language without its own)."""
    module = LANGUAGES[language].hooks
    return part(module, "HOOKS") if module else NO_HOOKS  # type: ignore[return-value]
