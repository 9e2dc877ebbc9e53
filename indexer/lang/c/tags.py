"""C's tags hooks (indexer.lang.tags_hooks); C++ extends them (indexer.lang.cpp.tags)."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

import msgspec
from tree_sitter import Node

from indexer.lang.ancestry import children, first_above, place
from indexer.lang.ancestry import parent as parent_of
from indexer.lang.c.conditions import condition_at, condition_lines
from indexer.lang.c.imports import missed_includes
from indexer.lang.c.macros import enum_body_defines
from indexer.lang.import_specs import import_order
from indexer.lang.tags_hooks import Facts, TagsHooks
from indexer.model import Occurrence, Symbol

KINDS: dict[str, str | None] = {
    "struct_specifier": "struct", "union_specifier": "struct", "enum_specifier": "enum",
    "type_definition": "type", "function_declarator": "function", "preproc_def": "macro",
    "preproc_function_def": "macro",
    "declaration": None,  # shipped `union` pattern on a declaration; ours takes the union itself
}

_MACRO_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


def needs_body(def_node: Node, captured: str, name: Node) -> str | None:
    """A specifier is a definition only with a body (`struct S;` is a declaration)."""
    return "" if def_node.child_by_field_name("body") is not None else None


# What stands between a declaration and the scope it is written in without being a scope of
# its own: a conditional's branch, a template head.
_TRANSPARENT = frozenset(("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
                          "template_declaration"))
_DECLARATOR_WRAPPERS = frozenset(("pointer_declarator", "reference_declarator", "parenthesized_declarator",
                                  "attributed_declarator"))
_HOLDERS = frozenset(("namespace_definition", "linkage_specification", "export_declaration"))
_MACRO_SHAPED = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")
_CLASS_BODIES = frozenset(("field_declaration_list",))


def _written_in(node: Node) -> Node | None:
    """The node a declaration is written in, past conditionals and template heads (found once
    for the file above each conditional: they nest)."""
    return first_above(node, "c.transparent", _transparent)


def _transparent(node: Node) -> bool:
    return node.type in _TRANSPARENT


def _at_file_scope(node: Node) -> bool:
    """Whether a declaration is written at file or namespace scope (or in an `extern "C"`
    block): not in a function body, a class body or a statement."""
    scope = _written_in(node)
    if scope is None:
        return False
    if scope.type == "translation_unit":
        return True
    if scope.type != "declaration_list":
        return False
    holder = parent_of(scope)
    return holder is not None and holder.type in _HOLDERS


def _declaration(def_node: Node, captured: str, name: Node) -> str | None:
    """A variable or a constant at file or namespace scope (`static const char k[] = "x";`,
    `namespace ns { constexpr int kLimit = 3; }`); not a local, not an `extern` declaration of
    one defined elsewhere. A constant is an object its declaration makes const (`_const_object`),
    each declarator of it on its own (`char *p, *const q;` makes q const, not p)."""
    if captured != "variable" or not _at_file_scope(def_node):
        return None
    # Asked once a declarator, each reading of the declaration's children is kept or stops
    # before the declarators: `int a, b, ...;` of a commit under review may hold thousands.
    parts = children(def_node)
    last = parts[-1] if parts else None
    if last is None or last.type != ";" or last.is_missing or def_node.has_error:
        return None  # error recovery's (`ZEXTERN int ZEXPORT f OF((...))` gives `ZEXTERN int`), not one written
    if _old_style_parameter(def_node, name):
        return None
    first = def_node.child_by_field_name("declarator")
    specified = False
    for child in parts:  # the specifiers, before the first declarator
        if first is not None and child.start_byte >= first.start_byte:
            break
        kind = child.type
        if kind == "storage_class_specifier" and child.text == b"extern":
            return None
        if kind == "type_qualifier" and child.text == b"constexpr":
            return "constant"  # C++ [dcl.constexpr]: it declares the object const, a pointer too
        if kind == "type_qualifier" and child.text == b"const":
            specified = True
    holding = parts[bisect_right(parts, name.start_byte, key=_start) - 1]  # the name's declarator
    return "constant" if _const_object(holding, specified) else "variable"


_OLD_STYLE_REACH = 32  # how many declarations an old-style head's parameter list is looked for across


def _old_style_parameter(declaration: Node, name: Node) -> bool:
    """Whether a file-scope declaration declares a parameter of an old-style definition the
    grammar split (`char *gets(file, buf) FILE *file; char *buf; { ... }`: a head returning a
    pointer ends at its first parameter's declaration, and the rest and the body stand at file
    scope). So when the declarations run on to a block, which no file scope holds, and back to
    a head naming it among its parameters."""
    holder = parent_of(declaration)
    if holder is None:
        return False
    siblings, at = place(declaration, holder)
    named = [node for node in siblings[at + 1:at + 1 + 2 * _OLD_STYLE_REACH] if node.is_named
             and node.type != "comment"]
    after = next((node for node in named if node.type != "declaration"), None)
    if after is None or after.type != "compound_statement":
        return False
    spelled = name.text
    for head in reversed(siblings[max(0, at - 2 * _OLD_STYLE_REACH):at]):
        if not head.is_named or head.type == "comment":
            continue
        if head.type != "declaration":
            return False
        declarator = head.child_by_field_name("declarator")
        while declarator is not None and declarator.type == "pointer_declarator":
            declarator = declarator.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "function_declarator":
            parameters = declarator.child_by_field_name("parameters")
            return parameters is not None and any(
                p.text == spelled for p in parameters.named_children)
    return False


def _start(node: Node) -> int:
    return node.start_byte


def _const_object(declarator: Node | None, specified: bool) -> bool:
    """Whether the object a declarator names is const. C11 6.7.6.1: in `T * const D` D is a
    const pointer, the `const` in the specifiers (`specified`) qualifying what the innermost
    pointer points to; so the pointer nearest the name decides (`char *const q` is const,
    `const char *p` and `char *const *s` are not), and with none the specifiers do. An array's
    qualifiers are its elements' (6.7.3p9: `char *const a[2]` is const), and a reference,
    parentheses or a function pointer's parameters pass to the name within."""
    innermost: Node | None = None
    node = declarator
    for _ in range(64):  # a declarator nests a few levels; past that, the specifiers decide
        if node is None:
            break
        if node.type == "pointer_declarator":
            innermost = node
        node = node.child_by_field_name("declarator") if node.type != "parenthesized_declarator" else next(
            (c for c in node.named_children if c.type.endswith("declarator")), None)
    if innermost is None:
        return specified
    return any(c.type == "type_qualifier" and c.text == b"const" for c in innermost.children)


def _function_declarator(def_node: Node, captured: str, name: Node) -> str | None:
    """Not every function declarator declares a function: `log_msg msg(loc, name);` and
    `const std::string& s2(s);` in a body declare variables built by a constructor; a
    statement the grammar read as a declaration without a type is a call (`free(m);`,
    `PRAGMA_MACRO(diagnostic push)` at file scope, where a macro hid a body's braces), and
    so is a macro invocation in a class body (`MOCK_METHOD(int, Foo, (int));`)."""
    holder = parent_of(def_node)
    while holder is not None and holder.type in _DECLARATOR_WRAPPERS:
        holder = parent_of(holder)
    if holder is None:
        return ""
    kind = holder.type
    if kind == "declaration" and _in_body(holder):
        return None
    if kind == "init_declarator" and (outer := parent_of(holder)) is not None and outer.type == "declaration" \
            and _in_body(outer):
        return None  # error recovery's `else if (x)` (no `=`) in a body: no function, as any declaration there
    if kind in ("parameter_declaration", "optional_parameter_declaration"):
        return None  # a parameter of function type (`int f(int)`): a pointer to a function, no function
    if kind == "declaration" and (outer := parent_of(holder)) is not None and outer.type == "function_definition":
        return None  # an old-style definition's declaration list declares its parameters (`int apply(f) int f(int); {`)
    if kind == "declaration" and _not_parameters(def_node):
        return None  # `int x(4);`, `MACRO(a)` then `bar(1);`: arguments, which no parameter list holds
    if _after_statement(def_node, holder) or _macro_opening_line(def_node, holder):
        return None
    if kind == "ERROR" and holder.named_children and holder.named_children[0] == def_node:
        return None  # error recovery's `NAME(...)` with nothing before it: a call, as below
    if kind in ("declaration", "field_declaration", "function_definition") and \
            holder.child_by_field_name("type") is None:
        inner = def_node.child_by_field_name("declarator")
        if inner is None:
            return ""
        if inner.type in ("identifier", "field_identifier"):
            spelled = inner.text.decode("utf-8", "replace") if inner.text else ""
            if _MACRO_SHAPED.fullmatch(spelled):
                return None  # a macro invocation: no function is named so
            scope = _written_in(holder)
            in_class = scope is not None and scope.type in _CLASS_BODIES
            if kind == "declaration" and not in_class:
                return None  # a call statement: outside a class, a declaration has a type
            if kind == "function_definition" and not in_class and _not_parameters(def_node):
                return None
    return ""


def _before(declarator: Node, holder: Node) -> Iterator[Node]:
    """The children of `holder` before the one holding `declarator` (`holder` is above it),
    nearest first. Read from the holder's children (kept for the file): tree-sitter finds a
    node's sibling through its parent, which it walks down from the root to find."""
    top = declarator
    while (up := parent_of(top)) is not None and up != holder:
        top = up
    if up is None:
        return iter(())
    children, at = place(top, holder)
    return (children[i] for i in range(at - 1, -1, -1))


def _after_statement(declarator: Node, holder: Node) -> bool:
    """Whether error recovery put a declarator after the end of the statement that gave it
    its type: glibc's ctype.h `extern int toascii (int) __THROW;` then `__exctype (_toupper);`
    read as one declaration (the first in an ERROR ending at its `;`), or `__isctype_f (alnum)`
    then `__isctype_f (alpha)`, the second read as a function whose type is the first. A
    macro's invocations, not functions."""
    token = next(_before(declarator, holder), None)
    while token is not None and token.child_count:  # the last token before it, however nested
        token = token.child(token.child_count - 1)
    if token is not None and token.type in ("{", "}", ";"):
        return True  # error recovery's: a statement opening a block (brotli's `if (...) {` then `f(s);`)
    before = next((n for n in _before(declarator, holder) if n.is_named and n.type != "comment"), None)
    if before is None:
        return False
    if before.type == "ERROR":
        last = before.child(before.child_count - 1)
        return last is not None and last.type == ";"
    if before.type == "macro_type_specifier":
        name = declarator.child_by_field_name("declarator")
        called = before.named_children[0] if before.named_children else None
        return name is not None and called is not None and name.text == called.text
    return False


_BUILT_IN_TYPES = frozenset(("primitive_type", "sized_type_specifier"))


def _macro_opening_line(declarator: Node, holder: Node) -> bool:
    """A macro-shaped name opening its line, called with arguments: pybind11's
    `TEST_SUBMODULE(name, m) {`, `PYBIND11_NAMESPACE_END(detail)`, `TEST_DTYPE(a, b);` after
    another, whatever the parser took for a type before it. A macro invoked (what it expands to
    names nothing written here), not a function of that name; a built-in return type on the
    line before (`int\nMY_FUNC(void)`, GNU style) keeps it a function."""
    name = declarator.child_by_field_name("declarator")
    if name is None or name.type not in ("identifier", "field_identifier") or name.text is None or \
            not _MACRO_SHAPED.fullmatch(name.text.decode("utf-8", "replace")):
        return False
    before = next((n for n in _before(declarator, holder) if n.type != "comment"), None)
    if before is None:
        return True
    if before.end_point[0] == name.start_point[0]:
        return False  # a type or a specifier before it on its line: `int MY_FUNC(void)`
    return before.type not in _BUILT_IN_TYPES


def _not_parameters(declarator: Node) -> bool:
    """Whether a declarator's parameter list holds what no parameter list can (`4`, `"x"`):
    the arguments of a call the grammar took for a function head."""
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None:
        return False
    return any(c.is_named and c.type not in ("parameter_declaration", "optional_parameter_declaration",
                                             "variadic_parameter_declaration", "variadic_parameter", "comment",
                                             "identifier")
               for c in parameters.children)


def _in_body(declaration: Node) -> bool:
    """A declaration written inside a function body (past conditionals)."""
    scope = _written_in(declaration)
    # an `#if` branch in an `if`/`else if` chain sits in the statement, not a block: `else if
    # (x)` there reads as a declaration of a function `if`
    return scope is not None and (scope.type in ("compound_statement", "for_statement", "condition_clause",
                                                 "else_clause") or scope.type.endswith("_statement"))


def _macro_name(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """`#define NAME value` read as a generic directive: NAME is the first word of its argument."""
    word = _MACRO_NAME.match(name)
    if word is None:
        return None
    row, col = node.start_point
    sites.append(Occurrence(word.group(1), row + 1, col + word.start(1), "definition"))
    return start + word.start(1), word.group(1)


def _missed_includes(root: Node, data: bytes, facts: Facts) -> None:
    missed = missed_includes(root, data, facts.imports)
    if missed:
        facts.imports = sorted(facts.imports + missed, key=import_order)


_SIGNATURE_MAX = 200  # as tags.py's


def _enum_body_macros(data: bytes, facts: Facts) -> None:
    """The `#define`s written between an enum's entries, which the parser is not shown
    (macros.enum_body_directives): macros at file scope, with their definition sites."""
    found = enum_body_defines(data)
    if not found:
        return
    symbols = list(facts.symbols)
    sites = list(facts.occurrences)
    for start, name_at, end in found:
        name_end = name_at
        while name_end < end and (data[name_end:name_end + 1].isalnum() or data[name_end] == 95):
            name_end += 1
        name = data[name_at:name_end].decode("utf-8", "replace")
        line = data.count(b"\n", 0, name_at) + 1
        line_start = data.rfind(b"\n", 0, name_at) + 1
        signature = data[line_start:end].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
        symbols.append(Symbol(name, "macro", "", line, data.count(b"\n", 0, max(start, end - 1)) + 1, start, end,
                              signature[:_SIGNATURE_MAX]))
        sites.append(Occurrence(name, line, name_at - line_start, "definition"))
    symbols.sort(key=lambda s: (s.start_byte, -s.end_byte, s.name, s.kind))
    sites.sort(key=lambda o: (o.line, o.col))
    facts.symbols = symbols
    facts.occurrences = sites


def _conditions(data: bytes, facts: Facts) -> None:
    """Each symbol marked with the preprocessor conditions it is written under (conditions.py)."""
    if b"#" not in data or not facts.symbols:
        return
    starts, conditions = condition_lines(data)
    if len(starts) == 1:
        return
    marked = []
    for s in facts.symbols:
        condition = condition_at(starts, conditions, s.line)
        marked.append(msgspec.structs.replace(s, condition=condition) if condition else s)
    facts.symbols = marked


_BRANCHES = frozenset(("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"))


def _typedef_functions(root: Node, facts: Facts) -> None:
    """A file-scope declaration of a plain name whose type is a typedef, in the same file, of a
    function type declares a function, not an object (`typedef int handler(int);` then `static
    handler on_open;`, expat's `Processor`; C11 6.7.8p3, 6.9.1p2): such a `variable` is made a
    `function`. A typedef of another file is not followed."""
    if not any(s.kind == "type" for s in facts.symbols) or not any(
            s.kind in ("variable", "constant") and not s.container for s in facts.symbols):
        return
    function_types: set[bytes] = set()
    declared: list[tuple[bytes, bytes, int]] = []  # (type name, name, 1-based line)
    stack = [root]
    while stack:
        for child in children(stack.pop()):
            kind = child.type
            if kind in _BRANCHES:
                stack.append(child)
            elif kind == "linkage_specification" and (body := child.child_by_field_name("body")) is not None:
                stack.append(body)
            elif kind == "type_definition":
                for declarator in child.children_by_field_name("declarator"):
                    named = declarator.child_by_field_name("declarator")
                    if declarator.type == "function_declarator" and named is not None \
                            and named.type == "type_identifier" and named.text:
                        function_types.add(named.text)
            elif kind == "declaration" and (type_node := child.child_by_field_name("type")) is not None \
                    and type_node.type == "type_identifier" and type_node.text:
                for declarator in child.children_by_field_name("declarator"):
                    if declarator.type == "identifier" and declarator.text:
                        declared.append((type_node.text, declarator.text, declarator.start_point[0] + 1))
    functions = {(name.decode("utf-8", "replace"), line) for type_name, name, line in declared
                 if type_name in function_types}
    if functions:
        facts.symbols = [msgspec.structs.replace(s, kind="function")
                         if s.kind in ("variable", "constant") and not s.container and (s.name, s.line) in functions
                         else s for s in facts.symbols]


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    _typedef_functions(root, facts)
    _missed_includes(root, data, facts)
    _enum_body_macros(data, facts)
    _conditions(data, facts)


HOOKS = TagsHooks(
    kinds=KINDS,
    kind_rules={**dict.fromkeys(("struct_specifier", "union_specifier", "enum_specifier"), needs_body),
                "function_declarator": _function_declarator, "declaration": _declaration},
    name_rules={"preproc_arg": _macro_name},
    storage_fields=True,
    hoisting=True,
    finish=_finish,
)
