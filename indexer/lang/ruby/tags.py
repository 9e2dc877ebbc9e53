"""Ruby's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.declared_bases import finish_reading
from indexer.lang.ruby.bases import RULES
from indexer.lang.tags_hooks import TagsHooks
from indexer.model import Occurrence

# definitions whose name may be a constant path -> the field holding it (`A::B = 1` too)
_NAMED = {"class": "name", "module": "name", "assignment": "left"}
# Calls that make a class or module of the constant they are assigned to
_MAKERS = {("Class", "new"): "class", ("Struct", "new"): "class", ("Data", "define"): "class",
           ("Module", "new"): "module"}


def _maker(recv: Node, fn: Node, data: bytes) -> str | None:
    """`X = Struct.new(...)`: which maker, if any (ruby/queries.scm)."""
    return _MAKERS.get((data[recv.start_byte:recv.end_byte].decode("utf-8", "replace"),
                        data[fn.start_byte:fn.end_byte].decode("utf-8", "replace")))


def _alias_kind(node: Node, captured: str, name: Node) -> str | None:
    """`alias $ARGV $*` names a global variable, no method: nothing (else the table's kind)."""
    return None if name.type == "global_variable" else ""


def _symbol(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str]:
    """`attr_reader :owner` defines `owner`: a definition site no identifier leaf stands for."""
    row, col = node.start_point
    sites.append(Occurrence(name[1:], row + 1, col + 1, "definition"))
    return start + 1, name[1:]


def _written_scope(name: Node, data: bytes) -> str:
    """`class Foo::Bar` (a module, a constant `Foo::Bar = 1` too): the scope its name is written in, "Foo", from where it
    stands, as Ruby looks `Foo` up from there (in `module A`, A's Foo when there is one, and
    mostly there is); `class ::Foo::Bar`: "::Foo", top-level Foo's whatever encloses it. A scope
    that starts with `self` starts at the enclosing one, where its next name is taken without
    being looked up (`class self::Foo::Bar`: "self::Foo", the enclosing one's Foo); one that
    starts with any other value (`class klass::Bar`) names no constant the tree shows: "", the
    enclosing one's. `def Foo.bar` is a method of Foo as `class << Foo` makes one: "Foo"
    (`def self.bar`, `def obj.bar`: "")."""
    path = ancestry.parent(name)
    if path is not None and path.type == "singleton_method":
        target = path.child_by_field_name("object")
        return data[target.start_byte:target.end_byte].decode("utf-8", "replace") if (
            target is not None and target.type == "constant") else ""
    if path is None or path.type != "scope_resolution":
        return ""
    holder = ancestry.parent(path)
    field = _NAMED.get(holder.type) if holder is not None else None
    if holder is None or field is None or holder.child_by_field_name(field) != path:
        return ""
    parts: list[str] = []
    scope = path.child_by_field_name("scope")
    while scope is not None and scope.type == "scope_resolution":
        segment = scope.child_by_field_name("name")
        if segment is None:
            return ""
        parts.append(data[segment.start_byte:segment.end_byte].decode("utf-8", "replace"))
        scope = scope.child_by_field_name("scope")
    if scope is None:
        parts.append("")  # written from the top: `::Foo::Bar`
    elif scope.type == "constant":
        parts.append(data[scope.start_byte:scope.end_byte].decode("utf-8", "replace"))
    elif scope.type == "self":
        if not parts:
            return ""  # `self::Bar`: the enclosing one's, as a plain `Bar` is
        parts.append("self")
    else:
        return ""
    return "::".join(reversed(parts)) if parts != [""] else "::"


HOOKS = TagsHooks(
    # (a constant assignment is a constant, or a class `Struct.new` makes: its capture says which;
    # an `alias` is what a `def` there is: a method where a class or module holds it)
    kinds={"method": "function", "singleton_method": "method", "alias": "function", "class": "class",
           "singleton_class": "class", "module": "module"},
    kind_rules={"alias": _alias_kind},
    name_rules={"simple_symbol": _symbol},
    scope_openers=frozenset({"singleton_class"}),
    # (a singleton method's name is any of the four)
    scope_rules=dict.fromkeys(("constant", "identifier", "setter", "operator"), _written_scope),
    relative_holders=True,
    maker=_maker,
    method_hosts=frozenset({"module"}),  # a module's functions are its methods
    # a `def`, `alias_method` or `attr_reader` run in a method is the class's, as Ruby defines it
    # (`def self.status_code(c) define_method(:status_code)`); one in a constant's value
    # (`X = if ... class Y`) is the scope's around it
    holderless=frozenset({"function", "method", "constant"}),
    finish=finish_reading(RULES),
)
