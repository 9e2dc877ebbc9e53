"""Syntax tree -> symbols, identifier occurrences, imports, main block and package name.

One run of the language's query (shipped tags.scm + ours + identifier leaves) gives
definitions, references, scopes, imports, facts, local scopes and bindings (read in
indexer/lang/local_scopes.py, which says which sites are "local") and the occurrence sites. Python
work is per definition and per identifier, never a walk over the whole tree (a language's
`variables` hook walks only statements: Python's module scope, whose blocks nest deeper than a
pattern reaches), and no step recurses, so a deeply nested source costs what its tree-sitter
queries cost.

Kinds are normalized from the definition node's type where it is unambiguous (Rust
`struct_item` is "struct" although the shipped tags call it a class), else from the capture
name. A function whose innermost enclosing definition is class-like (class, struct,
interface, trait, enum, a Rust impl block; a Ruby module) is a "method"; `container` is the
dotted chain of enclosing definitions. Module-level variables named in UPPER_CASE are
"constant".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from operator import attrgetter
from typing import Iterable, Sequence

from tree_sitter import Node, QueryCursor

from indexer.extract.tokens import OCCURRENCE_CAP
from indexer.lang import ancestry, grammars, local_scopes, tags_hooks
from indexer.lang.class_kinds import METHOD_HOSTS
from indexer.lang.import_specs import handlers, import_order
from indexer.lang.tags_hooks import TagsHooks
from indexer.model import Base, ImportSpec, Occurrence, Symbol

SIGNATURE_MAX = 200
# A symbol stores its whole container chain, so n definitions nested in one another would
# cost n^2 / 2 names in time and space: one nested deeper than NESTING_CAP definitions or
# whose container is longer than CONTAINER_CHARS is not recorded, nor any past the first
# SYMBOL_CAP of a file; the facts say the list was cut (`symbols_capped`).
NESTING_CAP = 256
CONTAINER_CHARS = 4096
SYMBOL_CAP = 50_000
# The names a file's facts repeat (each symbol's container, each base's class and the scopes
# its statement stands in) are stored whole each time: a long chain of modules around many
# one-line classes or `include`s made each line thousands of characters of facts. Together
# they hold at most NAME_CHARS_PER_BYTE characters for each byte of the file, plus what
# definitions nested to the caps may take (NAME_CHARS_FIXED); what would pass that is not
# recorded (`symbols_capped`). Real code repeats far less than a byte's worth.
NAME_CHARS_PER_BYTE = 16
NAME_CHARS_FIXED = NESTING_CAP * CONTAINER_CHARS
# Matches in progress a query cursor keeps: each node costs up to this many of them, so n nested
# definitions cost n * MATCH_LIMIT, not n^2 / 2. Past it tree-sitter drops the oldest: the facts
# then say their symbols and sites may be incomplete (`match_limit_hit`). Only matches holding a
# capture count, so every pattern captures its root (`grammars.rooted`).
MATCH_LIMIT = 256
_start_byte = attrgetter("start_byte")

# Where the span of a definition node grows to: decorators, the whole declaration of a
# C declarator, the `const` of a JS declarator.
_SPAN_PARENTS: dict[str, frozenset[str]] = {
    "function_definition": frozenset({"decorated_definition"}),
    "class_definition": frozenset({"decorated_definition"}),
    "variable_declarator": frozenset({"lexical_declaration", "variable_declaration"}),
}
# A function returning a function pointer (`int (*get(void))(int) {...}`) is named in a
# function declarator inside the one its definition holds: the outer one wraps it too.
_C_DECLARATOR_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator", "parenthesized_declarator",
                                    "function_declarator"})
_C_DECLARATION_HOSTS = frozenset({"function_definition", "declaration", "field_declaration"})
# A conversion operator is its own declarator, under its qualified name when out of line.
_CONVERSION_WRAPPERS = _C_DECLARATOR_WRAPPERS | {"qualified_identifier"}

# Definitions written inside something that is not their container (tree-sitter node type ->
# how far out the container is). A PHP promoted constructor parameter is a property of the
# class ("member": up to the innermost class-like holder, past the constructor); a PHP
# `define()` makes a constant of the global namespace wherever the call runs, even inside a
# `namespace A { }` block ("global": no container). So does a C or C++ `#define`, in a
# namespace, class or enum body alike: the preprocessor knows no scope.
_HOISTED = {"property_promotion_parameter": "member", "function_call_expression": "global",
            # TypeScript's constructor parameter properties (`constructor(public x: T)`): fields
            "required_parameter": "member", "optional_parameter": "member",
            "preproc_def": "global", "preproc_function_def": "global", "preproc_call": "global"}
# Containers without a name of their own, named as the language names them: what a PHP
# anonymous class declares (`return new class { function run() {} };` in `make`) is a member
# of `make.class@anonymous`, as PHP's get_class() says
_ANONYMOUS_SCOPES = {"anonymous_class": "class@anonymous"}
_KIND_PRIORITY = {"variable": 0, "field": 1, "constant": 2}  # everything else: 3
_UPPER = re.compile(r"[A-Z][A-Z0-9_]+")
_MAIN_GUARD = re.compile(r"""^(?:__name__==(['"])__main__\1|(['"])__main__\2==__name__)$""")


@dataclass(slots=True)
class _Def:
    name: str
    kind: str
    start: int  # span start/end bytes (grown to decorators / declarations)
    end: int
    line: int  # of the name, past decorators and annotations (as ctags and code navigation report it)
    end_line: int
    sig_start: int  # start of the line holding the name: the signature, past decorators/annotations
    name_start: int
    hint: str = ""  # explicit container (Go receiver type, C++ `Foo::`)
    rooted: bool = False  # the hint names its container from the top (TagsHooks.named_holders, relative_holders)
    scope_only: bool = False
    scope_end: int = -1  # where its scope ends when not at `end` (C# `namespace X;`: end of file)
    hoist: str = ""  # written inside what does not hold it: "member" or "global", see _HOISTED


@dataclass
class TreeFacts:
    symbols: list[Symbol] = field(default_factory=list)
    occurrences: list[Occurrence] = field(default_factory=list)
    imports: list[ImportSpec] = field(default_factory=list)
    main_block: bool = False
    dunder_all: list[str] | None = None
    bases: list[Base] = field(default_factory=list)  # what classes declare as their bases
    exported_as: list[tuple[str, str]] = field(default_factory=list)  # JS/TS (javascript.imports.js_exports)
    es_module: bool = False  # JS/TS (javascript.imports.es_module)
    package_name: str = ""
    build_ignored: bool = False  # Go: excluded from every build (go.build_constraints)
    # definition sites no identifier leaf stands for (Ruby `attr_reader :owner`'s `owner`)
    symbol_sites: list[Occurrence] = field(default_factory=list)
    symbols_capped: bool = False  # definitions past NESTING_CAP or SYMBOL_CAP were not recorded
    match_limit_hit: bool = False  # the query cursor dropped matches in progress (MATCH_LIMIT)
    # where the definitions of the hooks' `class_types` start, sorted (TagsHooks.class_types);
    # None when not known (no such types, or the query dropped matches)
    class_starts: list[int] | None = None


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", "replace")


_SPACED_SCOPE = re.compile(r"\s*::\s*")


def _without_template_args(text: str) -> str:
    """`text` without its template arguments, nested ones too. A `<` or `>` in parentheses
    within them is a comparison (`A<(N > 1)>`), as C++ reads it; an argument list left open
    runs to the end."""
    if "<" not in text:
        return text
    kept: list[str] = []
    angles = parens = 0
    for char in text:
        if not angles:
            if char == "<":
                angles = 1
            else:
                kept.append(char)
        elif char in "([":
            parens += 1
        elif char in ")]":
            parens = max(parens - 1, 0)
        elif not parens and char == "<":
            angles += 1
        elif not parens and char == ">":
            angles -= 1
    return "".join(kept)


def _scope_text(text: str) -> str:
    """An explicit container as written -> dotted: `Outer<T>::Inner<U>::` -> "Outer.Inner".
    Template arguments are dropped. Of words left apart by spaces only the last is
    the scope: a leading macro can make tree-sitter take a return type into it
    (`API level::kind logger::level()` -> "logger", not "level.kindlogger")."""
    words = _SPACED_SCOPE.sub("::", _without_template_args(text)).split()
    # `::ns::` names ns from the global namespace: no leading dot
    return (words[-1] if words else "").lstrip("&*").replace("::", ".").strip(".")


def _grow_span(node: Node, kind: str) -> Node:
    """How far the span of definition node `node` (of type `kind`) grows."""
    if kind in ("function_declarator", "operator_cast"):
        wrappers = _C_DECLARATOR_WRAPPERS if kind == "function_declarator" else _CONVERSION_WRAPPERS
        current = node
        for _ in range(6):
            parent = ancestry.parent(current)
            if parent is None:
                break
            if parent.type in _C_DECLARATION_HOSTS:
                return parent
            if parent.type not in wrappers:
                break
            current = parent
        return node
    if kind in ("type_spec", "type_alias"):  # Go: `type X ...` alone spans its `type`
        parent = ancestry.parent(node)
        return parent if parent is not None and parent.named_child_count == 1 else node
    parents = _SPAN_PARENTS.get(kind)
    if parents:
        parent = ancestry.parent(node)
        if parent is not None and parent.type in parents:
            if kind != "variable_declarator" or parent.named_child_count == 1:
                return parent
    return node


_End = tuple[int, tuple[int, int]]  # end byte, end point


def _code_end(node: Node, known: dict[int, _End]) -> _End:
    """Where `node` ends without the comments its grammar took into its end (Python's
    tree-sitter keeps a comment indented as a body within it: `ast` ends the definition at the
    last statement's last token). Along the last child that is no comment, down to a token.
    Every node passed on the way ends where `node` does: `known` keeps them by node id, so
    definitions sharing a path (the targets of a long chain or tuple, whose value nests deep
    on its last side: `a, b, ... = - - ... 0`) walk it once, not once each."""
    passed: list[int] = []
    while (end := known.get(node.id)) is None and (count := node.child_count):
        passed.append(node.id)
        i = count - 1
        child = node.child(i)
        while child is not None and child.type == "comment" and i:
            i -= 1
            child = node.child(i)
        if child is None or child.type == "comment":
            break
        node = child
    if end is None:
        end = node.end_byte, node.end_point
    for seen in passed:
        known[seen] = end
    return end


def _kind(hooks: TagsHooks, def_node: Node, node_type: str, captured: str, name: Node) -> str | None:
    """The kind of a definition the query captured as `definition.<captured>`, whose node
    (of type `node_type`, read once by the caller) is `def_node` and name's `name`: what the node says where the
    language has a rule for its type, else the language's table, else the capture."""
    rule = hooks.kind_rules.get(node_type)
    if rule is not None:
        kind = rule(def_node, captured, name)
        if kind != "":
            return kind
    return hooks.kinds.get(node_type, captured) if captured != "field" else captured  # ours say "field" for class-level assignments


# What a query pattern yields, decided once per pattern from its capture names.
_DEF, _REF, _SCOPE, _IMPORT, _MAIN, _PACKAGE, _ID, _LOCAL, _NONE = range(9)
# The pattern index of the definitions a hook reads (TagsHooks.variables): no query's.
_HOOKED = -1


def _classify(caps: dict[str, list[Node]]) -> tuple[int, str]:
    for key in caps:
        if key.startswith("definition."):
            return _DEF, key
    for key in caps:  # local scopes and bindings (indexer/lang/local_scopes.py)
        if key.startswith("local.scope."):
            return _LOCAL, key[12:]
        if key.startswith("local.bind."):
            return _LOCAL, key[11:]
    for key in caps:
        if key.startswith("reference."):
            return _REF, ("call" if key in ("reference.call", "reference.send")
                          else "module" if key == "reference.module" else "reference")
        if key.startswith("import."):
            return _IMPORT, key
    for code, key in ((_SCOPE, "scope"), (_MAIN, "main"), (_PACKAGE, "package"), (_ID, "id")):
        if key in caps:
            return code, key
    return _NONE, ""


@cache
def _pattern_classes(language: str) -> dict[int, tuple[int, str, local_scopes.Handler | None]]:
    """pattern index -> (what it yields, its key, the handler of a local scope or binding: the
    language's, so cached with it), filled on first sight: every match of a pattern carries
    the same role captures (only optional ones like @doc vary)."""
    return {}


def _run_tags(language: str, tree_root: Node, data: bytes, facts: TreeFacts,
              scopes: local_scopes.Collector | None = None) -> tuple[list[_Def], dict[int, str], list[Node]]:
    level = grammars.form(language)
    # No progress callback here: py-tree-sitter 0.26.1 crashes when one is passed to a
    # QueryCursor. A query costs what the tree costs, and the parse budget bounds the tree.
    cursor = QueryCursor(grammars.tags_query(language, level), match_limit=MATCH_LIMIT)
    matches = cursor.matches(tree_root)
    if cursor.did_exceed_match_limit and level != grammars.MATCHING_FORM:
        # The form that compiles cheapest keeps more matches in progress: where it ran out,
        # the other form decides, so that a blob's facts never depend on the run it is in.
        level = grammars.MATCHING_FORM
        cursor = QueryCursor(grammars.tags_query(language, level), match_limit=MATCH_LIMIT)
        matches = cursor.matches(tree_root)
    facts.match_limit_hit = bool(cursor.did_exceed_match_limit)
    hooks = tags_hooks.of(language)
    read: Iterable[tuple[int, dict[str, list[Node]]]] = matches
    if hooks.variables is not None:
        # read after the query's matches, as matches of a pattern of their own
        read = chain(matches, ((_HOOKED, {"definition.variable": [node], "name": [name]})
                               for node, name in hooks.variables(tree_root, data)))
    defs: dict[int, tuple[int, int, _Def]] = {}  # name start byte -> (priority, -span, def)
    code_ends: dict[int, _End] = {}  # node id -> where its code ends (`_code_end`)
    roles: dict[int, str] = {}
    ids: list[Node] = []
    package_at = -1
    seen_imports: set[tuple[int, str]] = set()
    imports: list[ImportSpec] = []
    classes = _pattern_classes(language)
    import_handlers = handlers(language)
    qualified, maker, spelled = hooks.qualified_name, hooks.maker, hooks.spelled
    name_rules, scope_rules = hooks.name_rules, hooks.scope_rules
    named_holders, relative_holders = hooks.named_holders, hooks.relative_holders
    class_types = hooks.class_types
    class_starts: list[int] = []
    first_id = grammars.first_identifier_pattern(language)
    type_checks = grammars.type_checks(language, level)
    add_id = ids.append
    scoping = scopes.rules.seen if scopes is not None else ()
    for pattern, caps in read:
        if pattern >= first_id:  # most matches: one identifier leaf each
            add_id(caps["id"][0])
            continue
        checks = type_checks.get(pattern)
        if checks and not all(caps[capture][0].type in types for capture, types in checks):
            continue
        found = classes.get(pattern)
        if found is None:
            code, key = _classify(caps)
            local_handler = scopes.rules.handler(key) if code == _LOCAL and scopes is not None else None
            found = classes[pattern] = (code, key, local_handler)
        code, key, local_handler = found
        if code == _ID:
            ids.append(caps["id"][0])
        elif code == _LOCAL:
            if scopes is not None and local_handler is not None:
                local_handler(scopes, caps)
        elif code == _DEF:
            names = caps.get("name")
            if not names:
                continue
            # Each Node property read is a C call that builds its value anew: each is read once.
            name_node = names[0]
            name_type = name_node.type
            while name_type == qualified:  # C++ `ns::Cls::m`: the last segment
                segment = name_node.child_by_field_name("name")
                if segment is None:  # a broken parse: the whole name
                    break
                name_node, name_type = segment, segment.type
            def_node = caps[key][0]
            def_type = def_node.type
            if def_type in class_types:
                class_starts.append(def_node.start_byte)
            if def_type in hooks.scope_openers:
                # `class << Benchmark` (the shipped tags say a class) opens the singleton of a
                # class or module defined elsewhere: a scope for its defs, and a use of the name
                value = def_node.child_by_field_name("value") or name_node
                _add_scope(defs, _text(data, value.start_byte, value.end_byte), def_node)
                roles.setdefault(name_node.start_byte, "reference")
                continue
            kind = _kind(hooks, def_node, def_type, key[11:], name_node)
            if maker is not None and "recv" in caps:  # `X = Struct.new`: which maker, if any
                kind = maker(caps["recv"][0], caps["fn"][0], data)
            if kind is None:
                continue
            name_start = name_node.start_byte
            name_row, name_col = name_node.start_point
            name = data[name_start:name_node.end_byte].decode("utf-8", "replace")
            if spelled and def_type in spelled:
                name = spelled[def_type](def_node, name_node, data)
            name_rule = name_rules.get(name_type) if name_rules else None
            if name_rule is not None:
                named = name_rule(name_node, name_start, name, data, facts.symbol_sites)
                if named is None:
                    continue
                name_start, name = named
            if not name:  # a name a broken parse left out (`void A::() {}`): no symbol, as with no name
                continue
            if kind in ("variable", "field") and _UPPER.fullmatch(name) and not (
                    kind == "field" and hooks.storage_fields) and not (kind == "variable" and hooks.keyword_kinds):
                kind = "constant"
            span = _grow_span(def_node, def_type)
            span_start, span_end = span.start_byte, span.end_byte
            end_row, end_col = span.end_point
            if hooks.ends_at_code:
                span_end, (end_row, end_col) = _code_end(span, code_ends)
            hint_nodes = caps.get("container") or caps.get("local.scope")
            hint = written = ""
            if hint_nodes:
                start, end = hint_nodes[0].start_byte, hint_nodes[0].end_byte
                if start <= name_start < end:  # a whole qualified name: its scope is what precedes the name
                    end = name_start
                written = _text(data, start, end)
                hint = _scope_text(written)
            if not hint and scope_rules and name_type in scope_rules:
                written = scope_rules[name_type](name_node, data)
                hint = _scope_text(written)
            rooted = bool(hint) if named_holders else relative_holders and written.lstrip().startswith("::")
            # The start of the name's line: its column back from it (the tree's lines are the
            # source's), not a search back through a line that may be the whole file.
            line_start = name_start - name_col if name_start == name_node.start_byte else \
                data.rfind(b"\n", 0, name_start) + 1
            entry = _Def(name, kind, span_start, span_end, name_row + 1,
                         # the end line: a span ending at a line start ends on the line before
                         end_row if end_col == 0 and end_row > span.start_point[0] else end_row + 1,
                         line_start, name_start, hint, rooted)
            if def_type in hooks.to_the_end or (
                    hooks.bodiless_namespaces and kind == "namespace" and def_node.child_by_field_name("body") is None):
                entry.scope_end = len(data)  # C#'s `namespace A;`, PHP's: up to the next (finish_definitions)
            elif def_type in hooks.namespace_level:
                entry.hoist = "namespace"
            elif hooks.hoisting:
                entry.hoist = _HOISTED.get(def_type, "")
            rank = (_KIND_PRIORITY.get(kind, 3), -(span_end - span_start))
            previous = defs.get(name_start)
            if previous is None or rank > previous[:2]:
                if previous is not None and not entry.hint and not entry.rooted:
                    entry.hint, entry.rooted = previous[2].hint, previous[2].rooted
                defs[name_start] = (rank[0], rank[1], entry)
            elif (entry.hint or entry.rooted) and not (previous[2].hint or previous[2].rooted):
                previous[2].hint, previous[2].rooted = entry.hint, entry.rooted
            if "rennet.embedded" in caps:  # a Go embedded field: its name is its type's
                roles.setdefault(name_start, "reference")
            else:
                roles[name_start] = "definition"
            if def_type in scoping:  # a scope, or a name bound around it (local_scopes)
                scopes.definition(def_type, def_node, span, span_start, span_end, name)  # type: ignore[union-attr]
        elif code == _REF:
            if key == "module":
                _mark_module_path(caps["reference.module"][0], roles)
            for name_node in caps.get("name", ()):
                roles.setdefault(name_node.start_byte, key)
        elif code == _SCOPE:
            names = caps.get("name")
            scope = caps["scope"][0]
            if names:
                spell = hooks.scope_spelled.get(names[0].type)
                written = spell(names[0]) if spell is not None else _text(data, names[0].start_byte, names[0].end_byte)
                if written:  # a spelling may find no name in what is written
                    _add_scope(defs, written, scope)
            elif scope.type in _ANONYMOUS_SCOPES:
                _add_scope(defs, _ANONYMOUS_SCOPES[scope.type], scope)
        elif code == _IMPORT:
            node = caps[key][0]
            handler = import_handlers.get(key)
            if handler is not None and (node.id, key) not in seen_imports:
                seen_imports.add((node.id, key))
                specs = handler(node, caps, data)
                imports.extend(specs)
                if scopes is not None and scopes.rules.on_import is not None:
                    scopes.rules.on_import(scopes, node, specs)
        elif code == _MAIN:
            cond = caps["cond"][0]
            if _MAIN_GUARD.match("".join(_text(data, cond.start_byte, cond.end_byte).split())):
                facts.main_block = True
        elif code == _PACKAGE:
            node = caps["package"][0]
            if package_at < 0 or node.start_byte < package_at:
                package_at = node.start_byte
                facts.package_name = "".join(_text(data, node.start_byte, node.end_byte).split())
    imports.sort(key=import_order)
    facts.imports = imports
    if class_types and not facts.match_limit_hit:
        class_starts.sort()
        facts.class_starts = class_starts
    definitions = [d for _, _, d in defs.values()]
    if hooks.finish_definitions is not None:
        hooks.finish_definitions(definitions, len(data))
    return definitions, roles, ids


def _add_scope(defs: dict[int, tuple[int, int, _Def]], written: str, node: Node) -> None:
    """A container that is not a symbol over `node` (as a Rust impl block): Ruby's
    `URI::Parser.class_eval do`, `class << Benchmark`. A scope written with its path is
    dotted like a container."""
    defs.setdefault(-1 - node.start_byte, (0, 0, _Def(
        _scope_text(written).lstrip("."), "impl", node.start_byte, node.end_byte, 0, 0, 0, -1, scope_only=True)))


def _mark_module_path(node: Node, roles: dict[int, str]) -> None:
    """Every leaf of an import's module path is a "module" site: it names a package or module,
    not a symbol (a call or reference another pattern saw there is overruled, a definition not).
    A path is a handful of nodes; walked with a stack, not recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.child_count:
            stack.extend(current.children)
        else:
            start = current.start_byte
            if roles.get(start) != "definition":
                roles[start] = "module"


_DATA_KINDS = frozenset({"variable", "constant", "field"})
_TAGGED_KINDS = frozenset({"struct", "enum", "class"})


def _container_chain(language: str, hooks: TagsHooks, stack: list[_Def], d: _Def, hinted_holders: bool = False) -> list[str]:
    """Names of the definitions enclosing `d`, outermost first. A variable holds no other
    variable (`a = b = 0`, `x, y = pair`: siblings, not members), but does hold what a
    definition inside it holds (Rust's `const _: () = { struct S { a: u8 } };`: `_.S.a`). A C typedef holds the
    struct it names without being its scope (`typedef struct z_stream_s {...} z_stream;`),
    but is the scope of the members of an untagged one (`typedef struct { int y; } T;`); nor
    does a variable hold the tagged struct its declaration defines (`struct S {...} s;`).
    A scope naming the definition it is written in adds nothing (`C.class_eval do` in class C).
    With `hinted_holders` (TagsHooks.named_holders, relative_holders), a holder's own explicit
    container stands before its name, and one that names its holder from the top starts the
    chain anew, and `d`'s own explicit container ends the chain (`_hinted_chain`). With
    `declarators_hold` (TagsHooks.declarators_hold), a variable holds what is defined in its
    initializer: of the names one declaration binds (one span), the last named before `d`
    holds it, and none holds another of them; with `variables_hold_fields`, a variable holds
    any definition inside it. A kind the language's `holderless` names holds nothing. With
    `selector_holders`, holders are as code selects members (`_selector_chain`). `hooks` are
    the language's, which the caller holds for the whole file."""
    if hooks.selector_holders:
        return _selector_chain(stack, d)
    if hooks.declarators_hold:  # no holder: a name after `d`'s, or one whose next one in is of its declaration
        before = [s for s in stack if not (s.kind in _DATA_KINDS and s.name_start > d.name_start)]
        holders = [s for s, inner in zip(before, [*before[1:], d]) if not _declared_together(s, inner)]
    elif hooks.variables_hold_fields:
        holders = list(stack)
    elif language in ("c", "cpp"):  # a C declarator holds nothing: `struct S { int x; } s;` is `S.x`
        holders = [s for s in stack if not (s.kind in _DATA_KINDS and d.kind in _DATA_KINDS)]
    else:
        holders = list(stack)
        if d.kind in _DATA_KINDS:  # only those it is written in directly: a struct in between holds it
            while holders and holders[-1].kind in _DATA_KINDS:
                holders.pop()
    if hooks.holderless:
        holders = [s for s in holders if s.kind not in hooks.holderless]
    if d.hoist == "member":
        while holders and holders[-1].kind not in METHOD_HOSTS:
            holders.pop()
    elif d.hoist == "global":
        holders = []
    if hooks.namespace_level:
        # A holder held by its namespace (TagsHooks.namespace_level) holds what is inside it there:
        # the members of a PHP class declared in a function body are the class's in its namespace.
        for i in range(len(holders) - 1, -1, -1):
            if holders[i].hoist == "namespace":
                holders = [s for s in holders[:i] if s.kind == "namespace"] + holders[i:]
                break
        if d.hoist == "namespace":
            holders = [s for s in holders if s.kind == "namespace"]
    if hinted_holders:
        return _hinted_chain(holders, d)
    last = len(holders) - 1
    chain: list[str] = []
    for i, s in enumerate(holders):
        if s.kind == "type" and language in ("c", "cpp") and (i < last or d.kind in _TAGGED_KINDS):
            continue
        if s.kind in _DATA_KINDS and d.kind in _TAGGED_KINDS and language in ("c", "cpp"):
            continue  # `struct S {...} s;` declares S where s is, not in s
        if s.scope_only:
            parts = s.name.split(".")
            if chain[-len(parts):] != parts:
                chain.extend(parts)
            continue
        chain.append(s.name)
    return chain


def _declared_together(a: _Def, b: _Def) -> bool:
    """Two names of one declaration (`int x, y;`): the span of each is the declaration's."""
    return a.kind in _DATA_KINDS and b.kind in _DATA_KINDS and (a.start, a.end) == (b.start, b.end)


def _selector_chain(stack: list[_Def], d: _Def) -> list[str]:
    """`_container_chain` where members are held as code selects them (Go): a struct or
    interface literal's members are held by the field or variable it is the type or value of
    (`S.Sub.Deep` of `type S struct { Sub struct { Deep int } }`, `Debug.Checkptr` of `var
    Debug struct {...}`); names declared together span one declaration and hold none of each
    other (`A, B int`), the first of them holding what their type declares (`a, b struct{ X
    int }`: `a.X`). A method's receiver type holds what its body declares (`T.Run.local`)."""
    chain: list[str] = []
    last = (-1, -1)
    for s in stack:
        span = (s.start, s.end)
        if span == (d.start, d.end) or span == last:
            continue
        last = span
        if s.hint:
            chain.extend(s.hint.split("."))
        chain.append(s.name)
    return chain


def _hinted_chain(holders: list[_Def], d: _Def) -> list[str]:
    """The container chain of `d` where explicit containers are part of it (`_container_chain`):
    each of `holders`' names after its own container, then `d`'s container. One written from
    the top (`::Foo`) starts the chain anew. One written relative (`Foo::`) has its first name
    looked up as Ruby looks a constant up: in the definitions lexically enclosing it, innermost
    first, then at the top, in the first the chain shows holding that name (`A::B` in `A` is
    `A.B`, not `A.A.B`); a name none holds is a member of the innermost. A container that is
    only written is no lexical scope (from inside `class Foo::Bar` in `module A` Ruby looks in
    `A::Foo::Bar` and `A`, never in `A::Foo`), so the names it holds are not found from there;
    `self::Foo` is the innermost's Foo, looked up nowhere else. Where each name that can be
    found stands is kept, so the chain is built in steps linear in the nesting, not its square
    (which made a file of nested `class A::B`s cubic)."""
    chain: list[str] = []
    findable: dict[str, list[int]] = {}  # name -> where it stands held by a lexical holder or the top
    for s in (*holders, d):
        if s.scope_only:  # `C.class_eval do`, `class << C`: adds nothing in C itself
            parts = s.name.split(".")
            if chain[-len(parts):] != parts:
                _place(chain, findable, parts)
            continue
        if s.rooted:
            chain, findable = [], {}
        scope = s.hint.split(".") if s.hint else []
        if scope and not s.rooted:
            if scope[0] == "self":
                del scope[0]
            elif at := findable.get(scope[0]):
                _cut(chain, findable, at[-1])
        _place(chain, findable, scope)
        if s is not d:
            if not scope:  # held by the lexical scope the chain ends in, not by a written one
                findable.setdefault(s.name, []).append(len(chain))
            chain.append(s.name)
    return chain


def _place(chain: list[str], findable: dict[str, list[int]], names: Sequence[str]) -> None:
    """`names` written as a container where `chain` ends: the first is held there, so found
    from inside; the others are held only by what is written before them."""
    if names:
        findable.setdefault(names[0], []).append(len(chain))
        chain.extend(names)


def _cut(chain: list[str], findable: dict[str, list[int]], at: int) -> None:
    """`chain` cut back to its first `at` names, and what stood past them no longer found."""
    for name in chain[at:]:
        places = findable.get(name)
        if places and places[-1] >= at:
            places.pop()
    del chain[at:]


def _holder_kind(stack: list[_Def], holderless: frozenset[str]) -> str:
    """The kind of the innermost definition of `stack` that holds what is written in it
    (TagsHooks.holderless), "" for none."""
    for s in reversed(stack):
        if s.kind not in holderless:
            return s.kind
    return ""


def _symbols(language: str, defs: list[_Def], data: bytes, budget: int) -> tuple[list[Symbol], bool, int]:
    """The file's symbols, outermost first, whether the caps cut the list, and the characters
    of their containers, which may come to `budget` at most (NAME_CHARS_PER_BYTE)."""
    hooks = tags_hooks.of(language)
    hosts = METHOD_HOSTS | hooks.method_hosts
    body_locals = hooks.body_fields_are_locals
    hinted_holders = hooks.named_holders or hooks.relative_holders
    holderless = hooks.holderless
    for d in defs:
        if d.scope_end < 0:
            d.scope_end = d.end
    # Outer before inner: by start, then widest scope first; scopes before a symbol of equal span.
    defs.sort(key=lambda d: (d.start, -d.scope_end, not d.scope_only, d.name_start))
    stack: list[_Def] = []
    out: list[Symbol] = []
    capped = False
    spent = 0
    for d in defs:
        while stack and not (stack[-1].start <= d.start and d.end <= stack[-1].scope_end):
            stack.pop()
        if len(stack) > NESTING_CAP or len(out) >= SYMBOL_CAP:
            capped = capped or not d.scope_only
        elif body_locals and d.kind in ("field", "method") and _in_body(stack):
            pass  # a field of an anonymous struct in a body (a test's table), a method of an anonymous
            # interface there (`x.(interface{ Name() string })`): a local, as ctags has it
        elif not d.scope_only:
            if hinted_holders:
                chain = _container_chain(language, hooks, stack, d, True)
            else:
                chain = _container_chain(language, hooks, stack, d) if stack else []
                if d.hint:
                    chain.append(d.hint)
            kind = d.kind
            if d.hint and kind == "function":
                kind = "method"
            elif kind == "function" and stack and _holder_kind(stack, holderless) in hosts:
                kind = "method"
            # up to the end of its line, looked for only as far as a signature is read
            signature = data[d.sig_start:d.sig_start + 4 * SIGNATURE_MAX].partition(b"\n")[0].decode(
                "utf-8", "replace").strip()
            chars = sum(map(len, chain)) + len(chain)  # measured before it is made
            if chars > CONTAINER_CHARS + 1 or spent + chars > budget:
                capped = True
            else:
                spent += chars
                out.append(Symbol(d.name, kind, ".".join(chain), d.line, d.end_line, d.start, d.end,
                                  signature[:SIGNATURE_MAX]))
        stack.append(d)
    out.sort(key=lambda s: (s.start_byte, -s.end_byte, s.name, s.kind))
    return out, capped, spent


def _in_body(stack: list[_Def]) -> bool:
    """Whether what `stack` holds is written in a function's body or signature, past the fields
    around it (`b` of `a, b int`, whose `a` holds its span too; a struct nested in a field's type)."""
    for holder in reversed(stack):
        if holder.kind != "field":
            return holder.kind in ("function", "method")
    return False


def _occurrences(nodes: list[Node], data: bytes, roles: dict[int, str],
                 local: local_scopes.LocalSites | None = None) -> list[Occurrence]:
    # Sites in document order. The identifier leaves come from the query in that order
    # already (each is a one-node match, finished when the cursor reaches it), so sorting
    # is only the fallback when they do not. Names are decoded once per distinct spelling,
    # and never through `node.text`, which re-reads the source through the parse callback.
    # Two patterns rarely capture the same node, so the cap's worth of sites lies within
    # the first 2 x cap nodes; the exact cap is applied at the end.
    if len(nodes) <= 2 * OCCURRENCE_CAP:
        out = _sites_in_order(nodes, data, roles, local)
        if out is not None:
            return out
    nodes.sort(key=_start_byte)
    del nodes[2 * OCCURRENCE_CAP:]
    out = _sites_in_order(nodes, data, roles, local)
    assert out is not None
    return out


# Roles a local binding never takes over: a definition (a symbol) and a module path.
_SETTLED = frozenset({"definition", "module"})
_NO_NAMES: frozenset[str] = frozenset()


def _sites_in_order(nodes: list[Node], data: bytes, roles: dict[int, str],
                    local: local_scopes.LocalSites | None = None) -> list[Occurrence] | None:
    """The occurrences of `nodes`, or None when they are not in start order. A site whose
    name some scope binds locally is asked whether it names that binding (`local`)."""
    out: list[Occurrence] = []
    append = out.append
    get_role = roles.get
    names: dict[bytes, str] = {}
    candidates: set[str] | frozenset[str]
    if local is not None:
        candidates, bindings, check = local.candidates, local.sites, local.check
        seg_starts, seg_scopes, direct, threshold = local.seg_starts, local.seg_scopes, local.direct, local.threshold
    else:
        candidates = _NO_NAMES
    run = 0  # the run of local.seg_starts holding the last site asked (sites come in order)
    gap = 0  # where the site before ends
    last = -1
    for node in nodes:
        start = node.start_byte
        end = node.end_byte
        if start == end:  # a name a broken parse left out (tree-sitter's MISSING): no site
            continue
        if start <= last:
            if start == last:
                continue
            return None
        last = start
        raw = data[start:end]
        name = names.get(raw)
        if name is None:
            name = names[raw] = raw.decode("utf-8", "replace")
        row, col = node.start_point
        role = get_role(start, "identifier")
        if name in candidates and role not in _SETTLED:
            if start in bindings:
                role = "local"
            else:
                while seg_starts[run + 1] <= start:
                    run += 1
                scope = seg_scopes[run]
                if scope >= 0:
                    # bound in the scope holding the site and visible there (the common case),
                    # else looked up outwards
                    at = direct[scope].get(name, -2)
                    if at == -2 or at > start:
                        at = threshold(scope, name)
                    if 0 <= at <= start and check(node, start, end, data, gap):
                        role = "local"
        append(Occurrence(name, row + 1, col, role))
        gap = end
    del out[OCCURRENCE_CAP:]
    return out


def extract_tree(language: str, root: Node, data: bytes) -> TreeFacts:
    # The hooks find parents through the file's Ancestry: a walk up from each definition would
    # otherwise cost the square of its depth (indexer/lang/ancestry.py).
    with ancestry.reading(root):
        return _extract_tree(language, root, data)


def _extract_tree(language: str, root: Node, data: bytes) -> TreeFacts:
    facts = TreeFacts()
    rules = local_scopes.of(language)
    scopes = local_scopes.Collector(rules, data) if rules is not None else None
    defs, roles, ids = _run_tags(language, root, data, facts, scopes)
    budget = NAME_CHARS_PER_BYTE * len(data) + NAME_CHARS_FIXED
    facts.symbols, capped, spent = _symbols(language, defs, data, budget)
    facts.symbols_capped = capped or facts.match_limit_hit
    local = scopes.finish(roles) if scopes is not None else None
    facts.occurrences = _occurrences(ids, data, roles, local)
    if facts.symbol_sites:
        merged = sorted([*facts.occurrences, *facts.symbol_sites], key=lambda o: (o.line, o.col))
        facts.occurrences = merged[:OCCURRENCE_CAP]
    finish = tags_hooks.of(language).finish
    if finish is not None:
        finish(root, data, facts)
    _hold_bases(facts, budget - spent)
    return facts


def _hold_bases(facts: TreeFacts, room: int) -> None:
    """The file's bases, in order, as far as the characters of their classes and scopes fit in
    `room` (NAME_CHARS_PER_BYTE); the rest are not recorded."""
    for i, b in enumerate(facts.bases):
        room -= len(b.cls) + sum(map(len, b.nesting))
        if room < 0:
            del facts.bases[i:]
            facts.symbols_capped = True
            return
