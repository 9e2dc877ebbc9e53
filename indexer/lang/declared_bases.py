"""The bases each class declares, read from the tree beside the file's symbols (`BlobFacts.bases`)
for the languages whose classes name their bases in a clause of the declaration (Java, C#, PHP,
C++) or by a call in its body (Ruby's `include`). A language names its class-like declaration
nodes and how to read one's bases (`BaseRules`); the class's qualified name is its symbol's, so
a namespace, package or enclosing class qualifies it exactly as the symbol list does. A class
with no symbol (a C++ `class ns::A : B` defined out of its namespace) declares nothing here."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Callable, NamedTuple

from tree_sitter import Node, Query, QueryCursor

from indexer.lang.class_kinds import CLASS_KINDS
from indexer.model import Base, Symbol

if TYPE_CHECKING:
    from indexer.lang.tags_hooks import Facts, Finish

# (class node, source) -> (base as written, its line, relation) in declaration order
Declared = Callable[[Node, bytes], list[tuple[str, int, str]]]
# Characters of the scopes a base records (`Base.nesting`): a symbol's container is held to
# as many (indexer.extract.tags.CONTAINER_CHARS)
NESTING_CHARS = 4096


class BaseRules(NamedTuple):
    language: str  # as the grammar registry names it
    classes: tuple[str, ...]  # node types of the class-like declarations
    declared: Declared
    # the declarations enclosing a class are its scopes, whatever its qualified name says
    # (`Base.nesting`: Ruby, where `class Foo::Bar` in `module A` is in A, not in A::Foo)
    lexical: bool = False
    # how a base naming the class around the declaration is written (Ruby `class NoArgument <
    # self` in `class Switch`), recorded as that class's qualified name written from the top
    # (`::OptionParser::Switch`); "" for none
    around: str = ""


@cache
def _query(language: str, classes: tuple[str, ...]) -> Query:
    from indexer.lang.grammars import language as grammar

    return Query(grammar(language), "[" + " ".join(f"({t})" for t in classes) + "] @class")


def bases(root: Node, data: bytes, symbols: list[Symbol], rules: BaseRules) -> list[Base]:
    """The declared bases of every class of the tree that is a symbol, in document order."""
    hosts = {(s.line, s.name): s for s in symbols if s.kind in CLASS_KINDS}
    if not hosts:
        return []
    found = QueryCursor(_query(rules.language, rules.classes)).captures(root).get("class", [])
    out: list[Base] = []
    enclosing: list[_Enclosing] = []  # the classes around the node (rules.lexical), outermost first
    for node in sorted(found, key=lambda n: n.start_byte):
        while enclosing and enclosing[-1].end <= node.start_byte:
            enclosing.pop()
        name = node.child_by_field_name("name")
        leaf = last_name(name) if name is not None else None
        sym = hosts.get((leaf.start_point[0] + 1, text(leaf, data))) if leaf is not None else None
        if sym is None:
            continue
        nesting: tuple[str, ...] = ()
        if rules.lexical:
            around = enclosing[-1] if enclosing else _TOP
            named = around.named and sym.container == around.qualified
            if not named:
                nesting = (*around.inside, "")
            enclosing.append(_Enclosing(node.end_byte, sym.qualified, named, *_within(sym.qualified, around)))
        for spec, line, relation in rules.declared(node, data):
            if rules.around and spec == rules.around:
                if not sym.container:
                    continue  # at the top it names no class
                spec = "::" + sym.container.replace(".", "::")
            out.append(Base(sym.qualified, spec, line, relation, nesting))
    out.sort(key=lambda b: b.line)
    return out


class _Enclosing(NamedTuple):
    """A class statement as the ones inside it see it (BaseRules.lexical)."""

    end: int  # byte
    qualified: str
    named: bool  # the statements around it are the scopes its qualified name shows
    inside: tuple[str, ...]  # the scopes of its body, innermost first (itself, then around it), at most NESTING_CHARS
    chars: int  # of `inside`


_TOP = _Enclosing(0, "", True, (), 0)


def _within(qualified: str, around: _Enclosing) -> tuple[tuple[str, ...], int]:
    """The scopes of the body of a class statement of that qualified name (with their
    characters), `around` the one it stands in: its own first, the outermost left out past
    NESTING_CHARS, so that what a base records is bounded as a symbol's container is."""
    inside, chars = (qualified, *around.inside), len(qualified) + around.chars
    if chars > NESTING_CHARS:
        keep = len(inside)
        while chars > NESTING_CHARS and keep:
            keep -= 1
            chars -= len(inside[keep])
        inside = inside[:keep]
    return inside, chars


def last_name(node: Node) -> Node:
    """The last name of a qualified one (`Foo::Bar` -> `Bar`), the node itself when plain."""
    while (inner := node.child_by_field_name("name")) is not None and inner is not node:
        node = inner
    return node


def text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def spelled(node: Node, data: bytes, drop: tuple[str, ...] = ()) -> str:
    """A base's name as written, without white space and without the subtrees of the node
    types in `drop` (type arguments)."""
    if not drop:
        return "".join(text(node, data).split())
    parts: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in drop:
            continue
        if n.child_count == 0:
            parts.append(text(n, data))
        else:
            stack.extend(reversed(n.children))
    return "".join("".join(parts).split())


def line_of(node: Node) -> int:
    return node.start_point[0] + 1


def finish_reading(rules: BaseRules, then: Finish | None = None) -> Finish:
    """A `finish` tags hook recording the classes' bases (`Facts.bases`), after `then`, a
    language's own finish, when it has one."""

    def finish(root: Node, data: bytes, facts: Facts) -> None:
        if then is not None:
            then(root, data, facts)
        facts.bases = bases(root, data, facts.symbols, rules)

    return finish
