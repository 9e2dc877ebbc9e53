"""The names a Python module binds in its own scope by an assignment statement: its module
variables (`TagsHooks.variables`), as Python's `ast` has them.

Every target of a statement at the top level or in a block of a compound statement there,
nested to any depth (`if`/`elif`/`else`, `try`/`except`/`except*`/`else`/`finally`, `with`,
`for`/`else`, `while`/`else`, `match`/`case`): each target of a chain (`a = b = 0`), each name of
a tuple or list, in brackets or not, nested and starred (`(x, (y, *rest)) = row`), and an
annotated name with or without a value (`X: int = 0`, `X: int`). A `def` or `class` body is no
module scope and is not entered. Augmented assignments (`x += 1`) only rebind a name bound
before, so they define nothing, as `for` and `with ... as` targets, `except ... as` names, a
walrus and imports do not either (those are bindings the local sites read, or imports).

A tags query reaches a fixed depth only, and a hostile file nests blocks as deep as its tree
goes: the statements are walked with a stack, not recursion, and only statements and their
blocks are entered, never an expression.
"""

from __future__ import annotations

from tree_sitter import Node

# Statements and clauses whose blocks run in the scope around them, and those blocks.
_HOLDERS = frozenset({
    "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
    "finally_clause", "with_statement", "for_statement", "while_statement", "match_statement",
    "case_clause", "block",
})
# What a target holds names in: `x, y`, `(x, y)`, `[x, y]`, `*rest`.
_PATTERNS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern"})


def module_variables(root: Node, data: bytes) -> list[tuple[Node, Node]]:
    """(assignment, name) of each name the module binds by an assignment statement in its own
    scope (see the module's docstring): the assignment whose left side holds the name, which is
    the inner one of a chain."""
    out: list[tuple[Node, Node]] = []
    holders = [root]
    targets: list[Node] = []
    while holders:
        for statement in holders.pop().named_children:
            kind = statement.type
            if kind in _HOLDERS:
                holders.append(statement)
                continue
            if kind != "expression_statement":
                continue
            assignment: Node | None = statement.named_child(0)
            # a chain nests each next target in the value of the one before: a loop
            while assignment is not None and assignment.type == "assignment":
                left = assignment.child_by_field_name("left")
                if left is not None:
                    targets.append(left)
                while targets:
                    target = targets.pop()
                    if target.type == "identifier":
                        out.append((assignment, target))
                    elif target.type in _PATTERNS:
                        targets.extend(target.named_children)
                assignment = assignment.child_by_field_name("right")
    return out
