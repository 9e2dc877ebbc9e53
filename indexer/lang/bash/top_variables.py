"""The variables a shell script assigns at its top level (`TagsHooks.variables`): every
assignment the shell itself runs outside any function.

A statement of the file, and one in a compound command there, nested to any depth: `if`/`elif`/
`else` (its conditions too), `case` items, `for`/`while`/`until` bodies, `{ ...; }`, `&&`/`||`
lists, a `!` and a redirected statement (`{ ...; } >log`). Each assignment of `a=1`, of
`a=1 b=2`, and each `name=value` of `export`/`readonly`/`declare`/`typeset`/`local`. Not: an
assignment before a command (`LC_ALL=C sort`: the command's environment only), one in a
subshell, a pipeline or a command substitution (a child shell's, gone when it ends), in a
function body (run when called, and mostly `local`), nor `a[1]=x` (an element of an array
assigned elsewhere) or `export X` (no value).

A file nests compounds as deep as its tree goes: walked with a stack, not recursion.
"""

from __future__ import annotations

import re

from tree_sitter import Node

_NEWLINE = re.compile(rb"(?<!\\)\n")  # one a backslash does not continue

# Compound commands whose statements the shell runs itself, and their parts holding statements.
_HOLDERS = frozenset({
    "if_statement", "elif_clause", "else_clause", "case_statement", "case_item", "for_statement",
    "c_style_for_statement", "while_statement", "do_group", "compound_statement", "list",
    "negated_command", "redirected_statement",
})


def top_variables(root: Node, data: bytes) -> list[tuple[Node, Node]]:
    """(assignment, name) of each variable the script assigns at its top level (see the
    module's docstring)."""
    out: list[tuple[Node, Node]] = []
    holders = [root]
    while holders:
        for statement in holders.pop().named_children:
            kind = statement.type
            if kind in _HOLDERS:
                holders.append(statement)
            elif kind == "variable_assignment":
                _add(statement, out)
            elif kind in ("variable_assignments", "declaration_command"):
                for assignment in statement.named_children:
                    if assignment.type == "variable_assignment":
                        _add(assignment, out)
            elif kind == "command":
                _split_prefix(statement, data, out)
    return out


def _split_prefix(command: Node, data: bytes, out: list[tuple[Node, Node]]) -> None:
    """Assignments the grammar reads as a command's environment prefix that the shell runs as
    a statement: `a=1 b=2`, or `a=` alone, then a command on a later line (the shell ends a
    simple command at the newline); and a value the grammar ends early, taking the rest of
    the word for a command's name (`j=$top/.$name.jinfo`, `t=/tmp/ins$RANDOM-$$`,
    `a="$a "`cmd``), with no argument after it."""
    name = command.child_by_field_name("name")
    if name is None:
        return
    prefix = [c for c in command.named_children if c.type == "variable_assignment" and c.end_byte <= name.start_byte]
    if not prefix:
        return
    end = prefix[-1].end_byte
    glued = end == name.start_byte and command.child_by_field_name("argument") is None
    if glued or _NEWLINE.search(data, end, name.start_byte):
        for assignment in prefix:
            _add(assignment, out)


def _add(assignment: Node, out: list[tuple[Node, Node]]) -> None:
    name = assignment.child_by_field_name("name")
    if name is not None and name.type == "variable_name":
        out.append((assignment, name))
