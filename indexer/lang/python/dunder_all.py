"""A Python module's `__all__`, where its source spells it out: the names `from m import *`
binds (every name not starting with an underscore when a module has none).

Read from the module's top-level statements, in order:

    __all__ = ["a", "b"]          also a tuple, `"a", "b"`, or annotated (`__all__: list[str] = ...`)
    __all__ += ["c"]              a list or a tuple
    __all__.extend(["d"])
    __all__.append("e")

each of plain string literals (a `r` or `u` prefix is plain; a bytes or f-string, an escape
or an implicit concatenation is not). Such writes under a top-level `if`/`elif`/`else` or
`try`/`except`/`else`/`finally` (nested in one another too) combine: what may be listed after
the statement is the union of what each way through it lists (an `except` may run after any
part of the `try` body), sorted, as a set has no order of its own, so the same branches in
another order give the same list; where every way lists the same, it stays as written.
Anything else that binds or changes `__all__` in the module's scope makes it unknown (None),
as the value then depends on what runs: a value that is no such literal (`__all__ =
base.__all__ + [...]`, `[*a, "x"]`), another method (`remove`, `insert`), `del __all__`, `from
m import __all__`, a `+=` or a method call where no way through has bound it, a write in a
`for`, `while`, `with` or `match`, or in an `if` condition or an `except ... as __all__`, or
under `NESTING_MAX` blocks or more (Python itself cannot run such a module), or writes that
would copy and join more than `NAMES_WORK` names (thousands of them); so
does a way through the module that never binds it (`if FAST: __all__ = [...]` alone), since
`import *` then binds every public name. Reads (`print(__all__)`), another module's `__all__`
(`base.__all__`) and what a function or class body does are not writes of the module's own; a
function's `global __all__` is not followed. A module with no write of `__all__` gets None
too: the caller falls back to the underscore rule either way.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple

from tree_sitter import Node

_NAME = re.compile(rb"__all__")
_LENGTH = len(b"__all__")
# The blocks a write of `__all__` is read in, nested: CPython's tokenizer refuses a module
# indented deeper (its MAXINDENT), and the reading recurses a few frames a block, which a
# hostile file's nesting must not drive past Python's stack.
NESTING_MAX = 100
# The names the reading may copy and join over the module's writes: each write after the
# first copies what is listed so far, and a join of ways sorts it, so a module of many writes
# costs the square of their number. Past this it is unknown, far above real modules.
NAMES_WORK = 1 << 22
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
_SEQUENCES = frozenset({"list", "tuple", "expression_list"})


def dunder_all(root: Node, data: bytes) -> list[str] | None:
    """The names of the module's `__all__` (in the order written, as many times as written,
    but for what a union of branches sorts), or None when it has none or it is not read (see
    the module's docstring)."""
    if b"__all__" not in data:
        return None
    holding = _module_writes(root, [m.start() for m in _NAME.finditer(data)])
    if not holding:
        return None
    try:
        way = _Reading(holding, data).statements(root, _NOWHERE)
    except _TooMuchWork:
        return None
    end = way[0] if way is not None else _NOWHERE
    return None if end.unbound or end.names is None else list(end.names)


class _Bound(NamedTuple):
    """What `__all__` may be at a point of the module's top level, over every way there."""

    names: tuple[str, ...] | None  # the names some way lists; None when no way binds it
    unbound: bool  # some way leaves it unbound


_NOWHERE = _Bound(None, True)  # at the module's start


class _TooMuchWork(Exception):
    """The reading of `__all__` would copy and join more than NAMES_WORK names."""


def _join(states: list[_Bound]) -> _Bound:
    """Where ways meet: the union of what each lists (sorted unless they agree), unbound when any is."""
    listed = [s.names for s in states if s.names is not None]
    if not listed:
        names = None
    elif all(n == listed[0] for n in listed):
        names = listed[0]
    else:
        names = tuple(sorted({n for names in listed for n in names}))
    return _Bound(names, any(s.unbound for s in states))


# (the state after some statements, the join of every state met on the way, the first included):
# an `except` starts from the second, as it may run after any part of a `try` body
_Way = tuple[_Bound, _Bound]


class _Reading:
    """Runs the writes of `__all__` in the module's top-level statements, into `if` and `try`
    branches; any other statement holding a write makes it unknown (every method: None)."""

    def __init__(self, holding: set[Node], data: bytes) -> None:
        self.holding = holding
        self.data = data
        self.depth = 0  # the blocks entered: each costs a few Python frames
        self.work = 0  # the names copied and joined so far, at most NAMES_WORK

    def _join(self, states: list[_Bound]) -> _Bound:
        return _join(self._spend(states))

    def _spend(self, states: list[_Bound]) -> list[_Bound]:
        self.work += sum(len(s.names) for s in states if s.names is not None)
        if self.work > NAMES_WORK:
            raise _TooMuchWork
        return states

    def statements(self, parent: Node, at: _Bound) -> _Way | None:
        if self.depth >= NESTING_MAX:
            return None
        self.depth += 1
        try:
            now, seen = at, [at]
            for statement in parent.named_children:
                if statement not in self.holding:
                    continue
                way = self.statement(statement, now)
                if way is None:
                    return None
                now = way[0]
                seen.append(way[1])
            return now, self._join(seen)
        finally:
            self.depth -= 1

    def statement(self, statement: Node, at: _Bound) -> _Way | None:
        if statement.type == "if_statement":
            return self._if(statement, at)
        if statement.type == "try_statement":
            return self._try(statement, at)
        update = _literal_update(statement, self.data)
        if update is None:
            return None
        how, values = update
        if how == "=":
            after = _Bound(tuple(values), False)
        elif at.names is None:
            return None  # extended before it is bound: a NameError, or set some way not read
        else:  # a way where it was unbound raises here: the ways that get past it bind it
            after = self._spend([_Bound(at.names + tuple(values), False)])[0]
        return after, self._join([at, after])

    def _if(self, statement: Node, at: _Bound) -> _Way | None:
        clauses = self._clauses(statement, _IF_CLAUSES)
        if clauses is None:
            return None
        tried = [self.statements(_body(c), at) for c in clauses]
        ways = [w for w in tried if w is not None]
        if len(ways) != len(tried):
            return None
        ends = [w[0] for w in ways]
        if not any(c.type == "else_clause" for c in clauses):
            ends.append(at)  # no branch taken
        return self._join(ends), self._join([at] + [w[1] for w in ways])

    def _try(self, statement: Node, at: _Bound) -> _Way | None:
        clauses = self._clauses(statement, _TRY_CLAUSES)
        body = self.statements(_body(clauses[0]), at) if clauses else None
        if body is None or clauses is None:
            return None
        tried: list[_Way | None] = [body]
        last: Node | None = None
        for clause in clauses[1:]:
            if clause.type == "except_clause":  # may run after any part of the body
                tried.append(self.statements(_body(clause), body[1]))
            elif clause.type == "else_clause":  # runs after the whole body, in its place
                tried[0] = self.statements(_body(clause), body[0])
            else:
                last = clause
        ways = [w for w in tried if w is not None]
        if len(ways) != len(tried):
            return None
        ends, seen = self._join([w[0] for w in ways]), self._join([w[1] for w in ways])
        after = self.statements(_body(last), ends) if last is not None else (ends, seen)
        return None if after is None else (after[0], self._join([seen, after[1]]))

    def _clauses(self, statement: Node, types: frozenset[str]) -> list[Node] | None:
        """The statement's own block and clauses, or None when a write of `__all__` is anywhere
        but in their blocks (an `if` condition, an `except ... as __all__`)."""
        clauses = []
        for child in statement.named_children:
            if child.type in types:
                block = _block(child)
                if block is None or (child != block and any(c in self.holding and c != block
                                                            for c in child.named_children)):
                    return None  # a clause the parser left without its block, or a write outside it
                clauses.append(child)
            elif child in self.holding:
                return None
        return clauses


_IF_CLAUSES = frozenset({"block", "elif_clause", "else_clause"})
_TRY_CLAUSES = frozenset({"block", "except_clause", "else_clause", "finally_clause"})


def _block(clause: Node) -> Node | None:
    """A clause's block (a block is its own), None when a broken parse left it none."""
    if clause.type == "block":
        return clause
    return next((c for c in reversed(clause.named_children) if c.type == "block"), None)


def _body(clause: Node) -> Node:
    """The block of a clause `_Reading._clauses` kept (it keeps only clauses with one)."""
    block = _block(clause)
    assert block is not None, "a clause kept without its block"
    return block


def _module_writes(root: Node, starts: list[int]) -> set[Node]:
    """Every node below the module on the way down to an identifier `__all__` (at one of
    `starts`, sorted) that binds or changes the module's `__all__` there. Walked down once from
    the module, into the nodes holding such a start alone, each node's ancestors at hand:
    tree-sitter finds a node's parent by walking down from the root, so walking up from each
    identifier costs the square of its depth, and a file of kilobytes can nest thousands deep."""
    holding: set[Node] = set()
    at = set(starts)
    ends = [start + _LENGTH for start in starts]

    def holding_a_start(node: Node) -> list[Node]:
        found = []
        for child in node.children:
            k = bisect_left(starts, child.start_byte)
            if k < len(starts) and ends[k] <= child.end_byte:
                found.append(child)
        return found

    path = [root]  # the nodes from the module down to the one whose children are walked
    bound = [False]  # for each, whether an edge on the way down to it binds `__all__`
    todo = [iter(holding_a_start(root))]
    while todo:
        child = next(todo[-1], None)
        if child is None:
            todo.pop()
            path.pop()
            bound.pop()
            continue
        if child.type in _SCOPES:
            continue  # what a function or class body does is not a write of the module's
        parent = path[-1]
        binds = bound[-1] or (parent is not root and _binds(parent, child, path[-2]))
        if child.type == "identifier" and child.start_byte in at and child.end_byte == child.start_byte + _LENGTH:
            if parent.type == "attribute" and parent.child_by_field_name("attribute") == child:
                continue  # `base.__all__`: another object's
            if binds:
                for node in reversed(path[1:]):  # a node held has its ancestors held already
                    if node in holding:
                        break
                    holding.add(node)
            continue
        path.append(child)
        bound.append(binds)
        todo.append(iter(holding_a_start(child)))
    return holding


def _binds(node: Node, child: Node, outer: Node | None) -> bool:
    """Does `node` bind or change what its `child` (holding an identifier `__all__`) names?
    `outer`: the node holding `node`."""
    kind = node.type
    if kind == "assignment":
        return node.child_by_field_name("left") == child and node.child_by_field_name("right") is not None
    if kind in ("augmented_assignment", "for_statement"):
        return node.child_by_field_name("left") == child
    if kind == "named_expression":  # even in a comprehension, `:=` binds in the module
        return node.child_by_field_name("name") == child
    if kind == "attribute":  # `__all__.extend(...)`: any method called on it
        return (node.child_by_field_name("object") == child and outer is not None and outer.type == "call"
                and outer.child_by_field_name("function") == node)
    return kind in ("delete_statement", "import_from_statement", "import_statement", "as_pattern_target", "ERROR")


def _literal_update(statement: Node, data: bytes) -> tuple[str, list[str]] | None:
    """("=", names) for an assignment of a literal, ("+", names) for a literal extension,
    None for any other statement."""
    parts = _named(statement) if statement.type == "expression_statement" else []
    if len(parts) != 1:
        return None
    node = parts[0]
    kind = node.type
    if kind in ("assignment", "augmented_assignment"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return None
        if kind == "augmented_assignment":
            operator = node.child_by_field_name("operator")
            if operator is None or operator.type != "+=" or right.type == "expression_list":
                return None
        values = _strings(right, data)
        return None if values is None else ("=" if kind == "assignment" else "+", values)
    if kind == "call":
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or function.type != "attribute" or arguments is None or arguments.type != "argument_list":
            return None
        method, owner = function.child_by_field_name("attribute"), function.child_by_field_name("object")
        while owner is not None and owner.type == "parenthesized_expression" and owner.named_child_count == 1:
            owner = owner.named_children[0]
        args = _named(arguments)
        # called on `__all__` itself: not on what a walrus binds (`(__all__ := []).append("x")`)
        if method is None or owner is None or owner.type != "identifier" or len(args) != 1:
            return None
        name = _text(method, data)
        if name == "append":
            value = _string(args[0], data)
            return None if value is None else ("+", [value])
        if name == "extend":
            values = _strings(args[0], data)
            return None if values is None else ("+", values)
    return None


def _strings(node: Node, data: bytes) -> list[str] | None:
    if node.type not in _SEQUENCES:
        return None
    values = []
    for item in _named(node):
        value = _string(item, data)
        if value is None:
            return None
        values.append(value)
    return values


def _string(node: Node, data: bytes) -> str | None:
    """The value of a plain string literal, None for any other node."""
    if node.type != "string":
        return None
    value = ""
    for part in node.children:
        if part.type == "string_start":
            if set(_text(part, data).rstrip("'\"").lower()) - {"r", "u"}:
                return None  # bytes or f-string
        elif part.type == "string_content":
            if part.named_child_count:
                return None  # an escape sequence
            value += _text(part, data)
        elif part.type != "string_end":
            return None  # an f-string's field
    return value


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")
