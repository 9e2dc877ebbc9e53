"""C and C++ macros tree-sitter cannot place: the byte spans the parser is not shown.

tree-sitter has no preprocessor, so a macro the grammar cannot read as a type, a call or a
name breaks the tree around it (a class becomes a function, a function ends at its first
statement). `blanked_spans` finds the macros whose expansion the tree can do without, by
shapes that only a macro can have; `indexer.lang.grammars.parser_view` turns those bytes into
spaces, so every offset, line and name read from the source still holds. Each rule names
the real code it comes from.
"""

from __future__ import annotations

import re

from indexer.lang.c.comments import blanked as uncommented
from indexer.lang.c.comments import comment_spans
from indexer.lang.c.conditions import continued
from indexer.lang.retry_views import blanked

Span = tuple[int, int]
Edit = tuple[int, bytes]  # an offset and the bytes put there, as many as they replace

# A macro name as projects spell them: all capitals with an underscore (SPDLOG_INLINE, FMT_API,
# BOOST_RV_REF), so an all-caps type or constant without one (`MY`, `HANDLE`) is never taken.
_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"

# `class SPDLOG_API logger {`, `class Q_CORE_EXPORT QObject : public X`: an all-caps export
# macro between `class` and the name, which tree-sitter reads as the class name, making the
# class a function and its body statements.
# With an argument too: `class VISIBILITY("default") format_error : public std::runtime_error`.
_EXPORT_MACRO = re.compile(
    rb"\b(?:class|struct)[ \t]+([A-Z][A-Z0-9_]*[A-Z0-9](?:[ \t]*\([^()\n]{0,200}\))?)\s+"
    rb"(?=[A-Za-z_]\w*\s*(?:final\b\s*)?[:{])")
# A macro opening the line before what declares something by a keyword: fmt's
# `FMT_EXPORT template <typename T> class store`, `MY_API struct s {`, `TS_PUBLIC void *(*ts_current_malloc)(size_t) = f;`: no
# type stands before a keyword or a built-in type (a name with an underscore only: zlib's
# `ZEXTERN int` is left to the rules below).
_MACRO_BEFORE_KEYWORD = re.compile(  # run over "\n" + data, as _LEADING_MACRO
    rb"\n[ \t]*(" + _MACRO + rb")[ \t]+(?=(?:template|class|struct|union|enum|namespace|typedef|extern|static"
    rb"|inline|constexpr|const|volatile|void|int|unsigned|signed|char|short|long|float|double|bool)\b)")
# An export macro opening the line before a return type and a function named in parentheses
# (Lua's `LUA_API lua_Number (lua_tonumberx) (lua_State *L, ...);`): the grammar took the type for
# the function's name. Only that shape, `TYPE (name) (`, which no other declaration has.
_MACRO_BEFORE_PARENTHESISED_NAME = re.compile(  # run over "\n" + data, as _LEADING_MACRO
    rb"\n[ \t]*(" + _MACRO + rb")[ \t]+(?=[A-Za-z_]\w*[ \t*]*\([ \t]*[A-Za-z_]\w*[ \t]*\)[ \t]*\()")
# A specifier before an out-of-line conversion operator (`inline S::operator bool() const {`):
# tree-sitter-cpp reads `S::operator` as the return type and a function named `bool`; without it
# the head parses. Not a macro, but as little needed by the tree (the signature is the source's).
_SPECIFIER_BEFORE_CONVERSION = re.compile(
    rb"\b(inline|constexpr|explicit|virtual)[ \t]+(?=(?:[A-Za-z_][\w<>, ]*::)+operator[ \t]+[A-Za-z_])")
# A calling-convention or export macro between the return type and the name: `int CDECL_MACRO
# main(void)`, `void ZEXPORT deflate(...)`, `LRESULT WINAPI WndProc(...)`: tree-sitter reads
# the macro as the name, and the head falls apart. After a type word or a `*`, before a name
# and its `(`; not after a keyword that starts an expression (`return FOO_BAR (x)` has no name).
_CONVENTION_MACRO = re.compile(
    rb"(?<=[\w*&>])[ \t]+(" + _MACRO + rb"|WINAPI|APIENTRY|CALLBACK|ZEXPORT|ZEXPORTVA)[ \t]+"
    rb"(?=[*&]*[ \t]*[A-Za-z_]\w*[ \t]*\()")
_EXPRESSION_KEYWORDS = frozenset((b"return", b"case", b"else", b"goto", b"new", b"delete", b"throw", b"sizeof",
                                  b"co_return", b"co_yield", b"define", b"undef", b"ifdef", b"ifndef", b"if",
                                  b"elif", b"defined", b"typedef"))
# The same around function heads, definitions and declarations (SPDLOG_INLINE, FMT_API,
# Q_INVOKABLE, SPDLOG_NOEXCEPT): one opening the line, when a return type and a name, or a
# qualified name (`Cls::Cls`), come before the `(` (so `MY_TYPE f(int) {` keeps MY_TYPE as its
# type, and `ZPOS64_T f OF((...))`, a type before a pre-ANSI wrapper, too; a return type's
# template arguments may hold spaces: `YAML_CPP_API std::vector<unsigned char> DecodeBase64(...)`;
# in C as in C++: Lua's `LUAI_FUNC lua_Integer luaV_idiv (lua_State *L, ...)` read as a function
# `lua_Integer`); and one after the parameter list, before the body or a constructor's
# initializer list.
_LEADING_MACRO = re.compile(  # run over "\n" + data: a line start the engine can skip to
    rb"\n[ \t]*(" + _MACRO + rb")[ \t]+"
    rb"(?=(?:[A-Za-z_][\w:]*(?:<[^;{}()\n<>]*(?:<[^;{}()\n<>]*>[^;{}()\n<>]*)*>)?[\w:<>,]*[ \t*&]+[*&]*(?!(?:OF|__P|_PROTO|PROTO)\b)[~A-Za-z_][^\s(]*|[A-Za-z_]\w*::[~A-Za-z_][^\s(]*)"
    rb"[ \t]*\()")
# OpenSSL's `STACK_OF(X509) *f(const SSL *s);`, `static LHASH_OF(CONF_VALUE) *g(void) {`,
# `LHASH_OF(V) h(void);`: a macro making the return type, opening the line, its argument a type
# name, then the function's name, a pointer to the type or not. The C grammar reads a macro
# type; the C++ one has none and the head falls apart, so for C++ its name and parentheses go
# and the argument is the type. (A macro's call then a call on one line, `M(x) f(y);`, reads
# the same way: it is no statement unless the macro ends one.)
_MACRO_TYPE_HEAD = re.compile(  # run over "\n" + data, as _LEADING_MACRO
    rb"\n[ \t]*(?:(?:static|extern|inline|const)[ \t]+)*(" + _MACRO + rb"[ \t]*\()[ \t]*[A-Za-z_]\w*[ \t]*(\))"
    rb"(?=[ \t]*(?:const[ \t]*)?\**[ \t]*[A-Za-z_]\w*[ \t]*\()")
_TRAILING_MACRO = re.compile(
    rb"\)[ \t]*(?:(?:const|override|final|noexcept|volatile|&&|&)[ \t]*)*"
    rb"\b(" + _MACRO + rb")\b(?=\s*(?:\{|:(?!:)))")

# zlib's `int ZEXPORT deflate OF((z_streamp strm, int flush));` and BSD's `__P((...))`: a
# pre-ANSI prototype wrapper after a declarator, its argument the parenthesized parameter list.
# Its name and outer parentheses go; the parameter list stays.
# (The name leads each pattern, not a look-behind: the regex engine then skips ahead by its
# first characters instead of trying every offset; the byte before is checked in code.)
_PROTOTYPE_WRAPPER = re.compile(rb"\b(OF|__P|_PROTO|PROTO)[ \t]*(\()(?=\()")

# boost's `vector(BOOST_RV_REF(vector) x)`, `BOOST_FWD_REF(Args)... args`: a macro around a
# parameter's type, right after `(` or `,`. Only a macro can stand there and be followed by
# a name, so its name and parentheses go and the type it wraps is the parameter's type; so too
# before a pointer's name (OpenSSL's `int f(STACK_OF(X509) *sk)`; in an expression, `f(A_B(x) *
# y)`, the product reads the same either way).
_PARAMETER_WRAPPER = re.compile(rb"[(,]\s*\b(" + _MACRO + rb")[ \t]*(?=\()")
_AFTER_PARAMETER_WRAPPER = re.compile(rb"(?:\s*\.\.\.)?(?:\s+|\s*\*+\s*)[A-Za-z_]\w*\s*[,)=\[]")
# boost's `(BOOST_RV_REF_BEG vector<T, A> BOOST_RV_REF_END x)`: a pair of macros around it.
_PARAMETER_PAIR = re.compile(rb"(?<=[(,])\s*\b((" + _MACRO + rb")_BEG)\b[^;{}()]*?\b(\2_END)\b")

# Exceptions by macro, so a library builds with and without them: spdlog's `SPDLOG_TRY {
# ... } SPDLOG_CATCH_STD`, `SPDLOG_LOGGER_CATCH(loc)`, fmt's `FMT_CATCH(...) {}`, boost's
# `BOOST_TRY{ ... } BOOST_CATCH(...){ ... BOOST_RETHROW } BOOST_CATCH_END`. Where a statement
# begins, a name ending in _TRY or _RETHROW, or holding _CATCH after a prefix (with its
# arguments), is blanked: the blocks they join become plain blocks. Not when a `;` follows,
# which makes it a statement of its own, nor Catch2's `CATCH_TEST_CASE("x") {`, whose name
# starts with the word.
_EXCEPTION_MACRO = re.compile(
    rb"\b([A-Z][A-Z0-9_]*_(?:TRY|RETHROW|CATCH(?:_[A-Z0-9_]*)?))\b[ \t]*(\()?")
_STATEMENT_BOUNDARY = frozenset(b"{};")

# Function specifiers by macro, named for what they expand to: boost's `static
# BOOST_CONTAINER_FORCEINLINE void f()`, `inline BOOST_INTRUSIVE_FORCEINLINE`, `BOOST_TT_DECL`
# (a calling convention), brotli's `static BROTLI_INLINE`, `static BOOST_CXX14_CONSTEXPR`,
# fmt's `FMT_CONSTEXPR20`, and exception specifications
# (`void swap(T&) BOOST_NOEXCEPT;`, `~K() BOOST_NOEXCEPT_OR_NOTHROW = default;`,
# `BOOST_NOEXCEPT_IF(cond)` with its argument). Where the rules above need a line start or a
# body to tell a macro from a type, these names tell it themselves, anywhere: after `static`,
# another macro or a template head, before a `;` or `= default`. Not on a directive line
# (`#ifndef BOOST_NO_CXX11_NOEXCEPT`), not as a macro argument (`BOOST_PP_REPEAT(N, X_DECL, _)`),
# not when called (`BOOST_NOEXCEPT(expr)`, the noexcept operator; `BOOST_IF_CONSTEXPR(c)`).
_SPECIFIER_MACRO = re.compile(
    rb"\b([A-Z][A-Z0-9_]*_(?:FORCEINLINE|INLINE|DECL|CONSTEXPR(?:[0-9]+|_OR_CONST)?|CONSTEVAL|NOTHROW"
    rb"|NOEXCEPT(?:_OR_NOTHROW|_WITH_ASSERT|_IF)?|NODISCARD|NORETURN|DEPRECATED))\b")
# Those that stand for a specifier with an argument: `BOOST_NOEXCEPT_IF(cond)`, and attributes
# with a message (zstd's `ZSTD_DEPRECATED("use X instead")`, `[[nodiscard("why")]]`).
_WITH_ARGUMENT = (b"_NOEXCEPT_IF", b"_DEPRECATED", b"_NODISCARD")
# A macro alone on its line between declarations: nlohmann's `NLOHMANN_JSON_NAMESPACE_BEGIN`,
# fmt's `FMT_BEGIN_NAMESPACE`, Qt's `QT_BEGIN_NAMESPACE` and `Q_OBJECT` in a class body,
# glib's `G_BEGIN_DECLS`, glibc's `__BEGIN_DECLS`. It opens or closes a namespace or an
# `extern "C"` block, or declares members; tree-sitter reads it as the type of the
# declaration after it, and the class or function there comes apart. Only a name with an
# underscore, after a `;`, `{`, `}`, a directive, a comment or the file's start; not before
# a `}` (but for a struct body's last member), `,`, `=`, `(`, `;`, `.`, `*` or `&` (the last
# enumerator of a list, an expression going on, a return type on its own line: OpenSSL's `ASN1_UTF8STRING` then
# `*OSSL_CRMF_MSG_get0_regCtrl_regToken(...)`), nor before a bare `name(` line (a return
# type before its function's name, GNU style).
_STANDALONE_MACRO = re.compile(  # run over "\n" + data, as _LEADING_MACRO
    rb"\n[ \t]*(_*[A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]*(?://[^\n]*)?\r?(?=\n|\Z)")
_DECLARATION_BOUNDARY = frozenset(b";{}")
_GOES_ON = frozenset(b"},=(;.*&")
_FUNCTION_NAME_LINE = re.compile(rb"\s*[A-Za-z_]\w*\s*\(")

# C has inline functions but neither constexpr functions nor exception specifications.
_C_SPECIFIER = re.compile(rb"[A-Z0-9_]*_(?:FORCEINLINE|INLINE|DECL|NORETURN|DEPRECATED)")
_ARGUMENT_BOUNDARY = frozenset(b"(,")
_NOT_BLANK = re.compile(rb"\S")
_LOOKAROUND = 4096  # how far a rule looks for a matching parenthesis or the previous token


def blanked_spans(language: str, data: bytes) -> list[Span]:
    """The spans of `data` (a `language` source: "c" or "cpp") the parser is not shown."""
    if language not in ("c", "cpp"):
        return []
    lined = b"\n" + data  # for the patterns that start at a line: offsets one past data's
    spans = (_prototype_wrappers(data) + _exception_macros(data) + _specifier_macros(language, data)
             + _standalone_macros(data, lined) + _alternative_branches(data) + _convention_macros(data)
             + _guarded_bodies(data) + _attribute_macros(data) + _define_body_comments(data))
    spans += [(m.start(1) - 1, m.end(1) - 1) for pattern in (_MACRO_BEFORE_KEYWORD, _MACRO_BEFORE_PARENTHESISED_NAME)
              for m in pattern.finditer(lined)]
    spans += [(m.start(1) - 1, m.end(1) - 1) for m in _LEADING_MACRO.finditer(lined)]
    if language == "cpp":
        spans += [m.span(1) for pattern in (_EXPORT_MACRO, _TRAILING_MACRO, _SPECIFIER_BEFORE_CONVERSION)
                  for m in pattern.finditer(data)]
        spans += [(m.start(k) - 1, m.end(k) - 1) for m in _MACRO_TYPE_HEAD.finditer(lined) for k in (1, 2)]
        spans += _parameter_wrappers(data)
    return spans


# curl's `CURLOPT(CURLOPT_URL, CURLOPTTYPE_STRINGPOINT, 2),` in an enum body, a macro that
# expands to `CURLOPT_URL = CURLOPTTYPE_STRINGPOINT + 2`: an entry opening its line with an
# all-caps call, a name as its first argument.
_ENUM_HEAD = re.compile(rb"enum\b(?:[ \t\r\n]+(?:class|struct)\b)?[ \t\r\n]*(?:[A-Za-z_]\w*[ \t\r\n]*)?"
                        rb"(?::[^;{}()]{0,256})?(\{)")  # a base type is short: bounded, never a scan to the end
_ENUM_BODY_TOKEN = re.compile(rb"[{};\"']|/\*|//")
_ENUMERATOR_MACRO = re.compile(rb"^[ \t]*([A-Z][A-Z0-9_]*)[ \t]*(\()[ \t\r\n]*[A-Za-z_]\w*[ \t\r\n]*[,)]", re.M)
_ENTRY_END = frozenset(b",}")


def enumerator_macro_edits(data: bytes) -> list[Edit]:
    """Edits that make each enumerator macro in an enum body an enumerator: its name and
    parentheses blanked, the comma after its first argument made `=` and the others `+`.
    The entry then parses as the enumerator it defines with its other arguments as a value;
    tree-sitter read them as enumerators of their own (CURLOPTTYPE_LONG 113 times in
    curl.h), and the message of a deprecated one as more."""
    edits: list[Edit] = []
    if b"enum" not in data:
        return edits
    for head in _ENUM_HEAD.finditer(data):  # led by the word, not `\b`: the engine then skips to it
        if head.start() and (data[head.start() - 1:head.start()].isalnum() or data[head.start() - 1] == 95):
            continue  # the end of a longer name (`my_enum {`)
        end = _enum_body_end(data, head.start(1))
        if end == _UNCLOSED:
            break  # so would every later body be, each read to the end of the file
        if end < 0:
            continue  # no enum body (`enum {` in a comment, then a `;`): a later one may be
        for m in _ENUMERATOR_MACRO.finditer(data, head.end(1), end):
            opened = m.start(2)
            close = _closing(data, opened)
            if close < 0 or close > end or _next_token(data, close + 1) not in _ENTRY_END:
                continue
            commas = _top_level_commas(data, opened + 1, close)
            if commas is None:
                continue
            edits.append((m.start(1), b" " * (opened + 1 - m.start(1))))
            edits += [(at, b"=" if i == 0 else b"+") for i, at in enumerate(commas)]
            edits.append((close, b" "))
    return edits


# glibc's langinfo.h: `ABDAY_1 = _NL_ITEM (__LC_TIME, 0),` then `#define ABDAY_1 ABDAY_1` on
# the next line, entry by entry, some inside `#ifdef __USE_GNU`. The grammar takes conditional
# groups of entries in an enum body but no `#define` there: the body comes apart from the first
# one on. In a body holding a `#define` or `#undef`, every directive line is blanked for the
# parser, so its entries parse as one list (each branch's); `enum_body_defines` gives the
# macros those lines define, for tags.py's `finish` hook to add.
_DIRECTIVE_IN_BODY = re.compile(rb"^[ \t]*#[ \t]*([a-z]+)", re.M)
_DEFINED_NAME = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")


def enum_body_directives(data: bytes) -> list[Span]:
    """The directive lines of each enum body that holds a `#define` or `#undef`."""
    spans: list[Span] = []
    if b"enum" not in data or (b"define" not in data and b"undef" not in data):
        return spans
    for head in _ENUM_HEAD.finditer(data):
        if head.start() and (data[head.start() - 1:head.start()].isalnum() or data[head.start() - 1] == 95):
            continue  # the end of a longer name (`my_enum {`)
        end = _enum_body_end(data, head.start(1))
        if end == _UNCLOSED:
            break  # so would every later body be
        if end < 0:
            continue  # no enum body: a later one may be
        lines = [(m.start(), _directive_end(data, m.end()), m.group(1))
                 for m in _DIRECTIVE_IN_BODY.finditer(data, head.end(1), end) if not continued(data, m.start())]
        if any(word in (b"define", b"undef") for _, _, word in lines):
            spans += [(start, min(stop, end)) for start, stop, _ in lines]
    return spans


def enum_body_defines(data: bytes) -> list[tuple[int, int, int]]:
    """(directive start, name start, directive end) of each `#define` that
    `enum_body_directives` hides from the parser."""
    out: list[tuple[int, int, int]] = []
    for start, end in enum_body_directives(data):
        m = _DEFINED_NAME.match(data, data.index(b"#", start), end)
        if m is not None:
            out.append((start, m.start(1), end))
    return out


_UNCLOSED, _NO_BODY = -1, -2


def _enum_body_end(data: bytes, opened: int) -> int:
    """The offset of the `}` closing the enum body opened at `opened`, past literals and
    comments; _NO_BODY at a `;` or `{` first (not an enum body), _UNCLOSED at the end of the
    file (or of an unclosed comment or literal)."""
    pos = opened + 1
    while True:
        m = _ENUM_BODY_TOKEN.search(data, pos)
        if m is None:
            return _UNCLOSED
        token = m.group()
        if token == b"}":
            return m.start()
        if token in (b";", b"{"):
            return _NO_BODY
        if token == b"//":
            pos = data.find(b"\n", m.end())
        elif token == b"/*":
            pos = data.find(b"*/", m.end())
            pos = pos + 2 if pos >= 0 else -1
        else:  # a string or character literal, which may hold any of these
            pos = _literal_end(data, m.start(), len(data))
        if pos < 0:
            return _UNCLOSED


def _literal_end(data: bytes, start: int, end: int) -> int:
    """The offset past the literal whose quote is at `start`, or -1 if it does not close by `end`."""
    quote = data[start]
    i = start + 1
    while i < end and data[i] != quote:
        i += 2 if data[i] == 92 else 1  # a backslash escapes the next byte
    return i + 1 if i < end else -1


def _top_level_commas(data: bytes, start: int, end: int) -> list[int] | None:
    """The offsets of the commas in `data[start:end]` outside brackets and literals; None
    where a literal does not close."""
    commas: list[int] = []
    depth = 0
    i = start
    while i < end:
        c = data[i]
        if c in b"\"'":
            i = _literal_end(data, i, end)
            if i < 0:
                return None
            continue
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == 44 and depth == 0:  # ,
            commas.append(i)
        i += 1
    return commas


# boost's smart_ptr headers: two heads of one constructor, by compiler, before one body
#
#   #if !defined( BOOST_SP_NO_SP_CONVERTIBLE )
#   weak_ptr( weak_ptr<Y> const & r, typename enable_if_convertible<Y,T>::type = sp_empty() )
#   #else
#   weak_ptr( weak_ptr<Y> const & r )
#   #endif
#   BOOST_SP_NOEXCEPT : px(r.lock().get()), pn(r.pn) {}
#
# tree-sitter reads each branch as a whole unit, and a head alone is none: the class body
# comes apart. Where no branch of an `#if` group holds whole units (its brackets balance
# and it ends a statement, a block, an entry or a label), only the first branch is shown,
# as plain code, as Universal Ctags reads it; its directives and the other branches are
# blanked. Where one branch does, the parser can still place the group and it is left, as
# are groups holding other groups.
# led by `#`, not a line start: the engine then skips to each `#` rather than trying every line
_CONDITIONAL = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")
_CONTINUED = re.compile(rb"\\\r?\n")
_DIRECTIVE_LINE = re.compile(rb"^[ \t]*#[^\n]*", re.M)
_UNIT_END = frozenset(b";},:")


def _alternative_branches(data: bytes) -> list[Span]:
    """The directives and later branches of each innermost `#if` group without whole units."""
    spans: list[Span] = []
    if b"#else" not in data and b"#elif" not in data and b"# el" not in data:
        return spans
    stack: list[list[Span]] = []  # per open group: its directive lines so far
    nested: list[bool] = []
    for m in _CONDITIONAL.finditer(data):
        line_start = m.start()
        while line_start and data[line_start - 1] in b" \t":  # back over blanks only: bounded by them
            line_start -= 1
        if line_start and data[line_start - 1] != 10:
            continue  # not a directive: a `#` within a line
        if continued(data, line_start):
            continue  # a line a backslash joins to the one before: no directive
        line = (line_start, _directive_end(data, m.end()))
        word = m.group(1)
        if word.startswith(b"if"):
            stack.append([line])
            nested.append(False)
        elif not stack:
            continue  # an `#endif` of a group opened before a blanked span or in a broken file
        elif word != b"endif":
            stack[-1].append(line)
        else:
            directives = stack.pop() + [line]
            holds_groups = nested.pop()
            if nested:
                nested[-1] = True  # the group around holds this one (was: only a group's innermost)
            if holds_groups:
                continue
            if len(directives) > 2:
                units = {_units(data[directives[i][1]:directives[i + 1][0]]) for i in range(len(directives) - 1)}
                if units == {False} or units == {False, None}:
                    spans += [directives[0], (directives[1][0], directives[-1][1])]
    return spans


# ncurses' menu.h, form.h, panel.h: a body shown only when the type is not opaque
#
#   typedef struct tagITEM
#   #if !NCURSES_OPAQUE_MENU
#     { ... }
#   #endif
#   ITEM;
#
# An `#if` group with no other branch, right after `struct|union|enum NAME`, holding only the
# body: its two directive lines are blanked, and the type parses with its body (as ctags reads it).
_GUARDED_BODY = re.compile(rb"\b(?:struct|union|enum)[ \t]+[A-Za-z_]\w*[ \t]*(?://[^\n]*)?\r?\n([ \t]*#[ \t]*if[^\n]*)\n\s*\{")
_ENDIF_LINE = re.compile(rb"[ \t]*(?://[^\n]*)?\s*(#[ \t]*endif\b[^\n]*)")


def _guarded_bodies(data: bytes) -> list[Span]:
    spans: list[Span] = []
    if b"#if" not in data and b"# if" not in data:
        return spans
    for m in _GUARDED_BODY.finditer(data):
        if data[m.end(1) - 1:m.end(1)] == b"\\":
            continue  # a condition running on: not this shape
        close = _body_end(data, m.end() - 1)
        endif = _ENDIF_LINE.match(data, close + 1) if close >= 0 else None
        if endif is not None:
            spans += [m.span(1), endif.span(1)]
    return spans


def _body_end(data: bytes, opened: int) -> int:
    """The `}` closing the brace at `opened`, past comments, literals and directive lines
    (a group inside the body stays for the parser), or -1 (within _LOOKAROUND * 4)."""
    depth = 0
    i = opened
    end = min(len(data), opened + 4 * _LOOKAROUND)
    while i < end:
        c = data[i]
        if c == 123:  # {
            depth += 1
        elif c == 125:  # }
            depth -= 1
            if depth == 0:
                return i
        elif c == 35 and data[data.rfind(b"\n", 0, i) + 1:i].strip() == b"":  # a directive line: past it
            i = _directive_end(data, i)
            continue
        elif c in b"\"'":
            i = _literal_end(data, i, end)
            if i < 0:
                return -1
            continue
        elif c == 47 and data[i + 1:i + 2] == b"*":
            i = data.find(b"*/", i + 2, end)
            if i < 0:
                return -1
            i += 2
            continue
        elif c == 47 and data[i + 1:i + 2] == b"/":
            i = data.find(b"\n", i, end)
            if i < 0:
                return -1
        i += 1
    return -1


def _directive_end(data: bytes, pos: int) -> int:
    """The end of the directive line running on from `pos`, past `\\` continuations."""
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return len(data)
        if data[end - 1:end] != b"\\" and data[end - 2:end] != b"\\\r":
            return end
        pos = end + 1


_DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define\b", re.M)


def _define_body_comments(data: bytes) -> list[Span]:
    """Block comments a `#define`'s body goes on after, on a line a backslash continues (libuv's
    `#define UV_REQ_FIELDS \\ void* data; \\ /* read-only */ \\ ...`). The grammar's macro body
    is one token that stops at a `/*`: the rest of the body became code, and the struct bodies
    and declarations after it fell apart. One not closed on its line is left."""
    spans: list[Span] = []
    if b"/*" not in data:
        return spans
    done = 0  # a `#define` inside a body already read is text of that body
    for m in _DEFINE_LINE.finditer(data):
        if m.start() < done:
            continue
        first_end = data.find(b"\n", m.end())
        done = end = _directive_end(data, m.end())
        if end == first_end or end < 0 or data.find(b"/*", m.end(), end) < 0:
            continue
        body = data[m.end():end]
        for start, stop in comment_spans(body, literals=True):
            comment = body[start:stop]
            if comment.startswith(b"/*") and b"\n" not in comment and _CONTINUED.search(body, stop):
                spans.append((m.end() + start, m.end() + stop))
    return spans


def _units(branch: bytes) -> bool | None:
    """Whether a branch holds whole units; None when it holds no code (directives alone)."""
    code = _DIRECTIVE_LINE.sub(b"", _CONTINUED.sub(b" ", uncommented(branch, literals=True))).strip()
    if not code:
        return None
    return (code.count(b"{") == code.count(b"}") and code.count(b"(") == code.count(b")")
            and code[-1] in _UNIT_END)


# glibc's attribute macros after a prototype: `extern int dlinfo (...) __THROW __nonnull ((1, 3));`,
# `__attr_access ((__write_only__, 1, 2))`, `__attribute_alloc_size__ ((1))`. Read as a call, the
# double parentheses hold a comma expression the grammar rejects, and the error swallows what
# follows (an enum's entries). A name of lower case led by `__` taking `((...))` after a `)` or
# another such name is blanked with its argument; `__attribute__` itself parses.
_ATTRIBUTE_MACRO = re.compile(rb"\b(__[a-z][a-z0-9_]*)[ \t]*(\()\(")
_PARSED_ATTRIBUTES = frozenset((b"__attribute__", b"__attribute", b"__declspec", b"__typeof", b"__typeof__",
                                b"__extension__", b"__asm__", b"__asm"))


# and alone before the `;`: `extern int toascii (int __c) __THROW;`, `... __THROW __wur;`
_TRAILING_ATTRIBUTES = re.compile(rb"\)[ \t]*((?:__[A-Za-z]\w*[ \t]*)+)(?=;)")


def _attribute_macros(data: bytes) -> list[Span]:
    spans: list[Span] = []
    if b"__" not in data:
        return spans
    spans += [m.span(1) for m in _TRAILING_ATTRIBUTES.finditer(data)]
    if b"((" not in data:
        return spans
    lines = _LinePrefixes(data)
    for m in _ATTRIBUTE_MACRO.finditer(data):
        name = m.group(1)
        if name in _PARSED_ATTRIBUTES or name.startswith(b"__builtin"):
            continue
        before = m.start(1)
        while before > 0 and data[before - 1] in b" \t\r\n":
            before -= 1
        prev = data[before - 1:before]
        if prev != b")" and not (prev.isalnum() or prev == b"_"):
            continue  # not after a declarator: a call in an expression
        start = m.start(1)
        while prev != b")":  # after a word: only macros of the kind (`__THROW`, `__wur`), blanked too
            word_start = before
            while word_start > 0 and (data[word_start - 1:word_start].isalnum() or data[word_start - 1] == 95):
                word_start -= 1
            if not data[word_start:before].startswith(b"__"):
                break
            start = before = word_start
            while before > 0 and data[before - 1] in b" \t\r\n":
                before -= 1
            prev = data[before - 1:before]
        if prev != b")":
            continue
        if lines.directive(m.start()):
            continue
        close = _closing(data, m.start(2))
        if close >= 0 and _next_token(data, close + 1) in (ord(";"), ord("{"), ord("_"), ord(",")):
            spans.append((start, close + 1))
    return spans


def _prototype_wrappers(data: bytes) -> list[Span]:
    spans: list[Span] = []
    if b"((" not in data:
        return spans
    for m in _PROTOTYPE_WRAPPER.finditer(data):
        before = m.start(1) - 1
        while before >= 0 and data[before] in b" \t":
            before -= 1
        if before < 0 or not (data[before:before + 1].isalnum() or data[before] in b"_)"):
            continue  # after a declarator only
        close = _closing(data, m.start(2))
        if close >= 0:
            spans += [(m.start(1), m.end(2)), (close, close + 1)]
    return spans


def _convention_macros(data: bytes) -> list[Span]:
    spans: list[Span] = []
    lines = _LinePrefixes(data)
    for m in _CONVENTION_MACRO.finditer(data):
        start = m.start(1)
        if lines.blank(start) or lines.directive(start):
            continue  # a directive's line (`#define X FOO_BAR f(`)
        # the word before the blanks the match opens with (no keyword is as long as the window)
        words = data[max(lines.start, m.start() - 16):m.start()].split()
        if words and words[-1] in _EXPRESSION_KEYWORDS:
            continue  # an expression
        if lines.opening:
            continue  # within an expression or an argument list
        spans.append(m.span(1))
    return spans


def _parameter_wrappers(data: bytes) -> list[Span]:
    spans: list[Span] = []
    for m in _PARAMETER_WRAPPER.finditer(data):
        opened = data.index(b"(", m.end(1))
        close = _closing(data, opened)
        if close >= 0 and _AFTER_PARAMETER_WRAPPER.match(data, close + 1):
            spans += [(m.start(1), opened + 1), (close, close + 1)]
    if b"_BEG" in data:
        for m in _PARAMETER_PAIR.finditer(data):
            spans += [m.span(1), m.span(3)]
    return spans


def _exception_macros(data: bytes) -> list[Span]:
    spans: list[Span] = []
    if b"TRY" not in data and b"CATCH" not in data:
        return spans
    lines = _LinePrefixes(data)
    for m in _EXCEPTION_MACRO.finditer(data):
        start = m.start(1)
        if lines.directive(start):
            continue  # its own `#define`
        if _previous_token(data, start) not in _STATEMENT_BOUNDARY:
            continue
        if m.group(1).endswith(b"_TRY") and m.group(2):
            continue  # a call (`MY_TRY(x)`), not a `try`
        end = m.end(1)
        if m.group(2):
            close = _closing(data, m.start(2))
            if close < 0:
                continue
            end = close + 1
        if _next_token(data, end) == ord(";"):
            continue
        spans.append((m.start(1), end))
    return spans


_SPECIFIER_WORDS = (b"INLINE", b"_DECL", b"CONSTE", b"NOEXCEPT", b"NOTHROW", b"NODISCARD", b"NORETURN",
                    b"DEPRECATED")  # most files have none


def _specifier_macros(language: str, data: bytes) -> list[Span]:
    spans: list[Span] = []
    if not any(word in data for word in _SPECIFIER_WORDS):
        return spans
    lines = _LinePrefixes(data)
    for m in _SPECIFIER_MACRO.finditer(data):
        start, end = m.span(1)
        if language == "c" and not _C_SPECIFIER.fullmatch(m.group(1)):
            continue
        if lines.directive(start):
            continue  # a directive's condition or a `#define` of its own
        if _previous_token(data, start) in _ARGUMENT_BOUNDARY:
            continue
        if _next_token(data, end) == ord("("):
            if not m.group(1).endswith(_WITH_ARGUMENT):
                continue
            close = _closing(data, data.index(b"(", end))
            if close < 0:
                continue
            end = close + 1
        spans.append((start, end))
    return spans


def _standalone_macros(data: bytes, lined: bytes) -> list[Span]:
    spans: list[Span] = []
    for m in _STANDALONE_MACRO.finditer(lined):
        start, end = m.start(1) - 1, m.end(1) - 1
        if data[max(0, m.start() - 3):max(0, m.start() - 1)].rstrip(b"\r").endswith(b"\\"):
            continue  # a directive's continued line (`#if HAVE_A && \` then `HAVE_B`)
        before = _previous_code_byte(data, start)
        # a line after one blanked so (FMT_BEGIN_NAMESPACE, then FMT_MODULE_EXPORT_BEGIN)
        after_macro = bool(spans) and spans[-1][1] == _end_of_previous(data, start)
        if before != -1 and before not in _DECLARATION_BOUNDARY and not after_macro:
            continue
        following = _next_token(data, end)
        # before a `}`, the last of a struct's members, after a `;`, another such macro or the
        # body's `{` (libuv's `struct uv_idle_s { UV_HANDLE_FIELDS UV_IDLE_PRIVATE_FIELDS };`):
        # no enumerator nor value in braces stands there
        closes_members = following == 125 and (before == 59 or after_macro or before == 123 and _opens_struct_body(
            data, _end_of_previous(data, start)))
        if following in _GOES_ON and not closes_members or _FUNCTION_NAME_LINE.match(data, end):
            continue
        spans.append((start, end))
    return spans


_STRUCT_HEAD = re.compile(rb"\b(?:struct|union)[ \t\r\n]+[A-Za-z_]\w*[ \t\r\n]*\{\Z")


def _opens_struct_body(data: bytes, brace_end: int) -> bool:
    """Whether the `{` ending just before `brace_end` opens a named struct or union's body."""
    return _STRUCT_HEAD.search(data, max(0, brace_end - 200), brace_end) is not None


def _end_of_previous(data: bytes, pos: int) -> int:
    """The offset just past the last non-blank byte before `pos`."""
    while pos > 0 and data[pos - 1] in b" \t\r\n":
        pos -= 1
    return pos


_LINE_COMMENT = re.compile(rb"//[^\n]*")


def _previous_code_byte(data: bytes, pos: int) -> int:
    """`_previous_token`, past `/* ... */` comments too (a doc comment above the macro)."""
    while True:
        found = _previous_token(data, pos)
        if found != ord("/"):
            return found
        close = data.rfind(b"*/", max(0, pos - _LOOKAROUND), pos)  # bounded: never a walk to the file's start
        between = _LINE_COMMENT.sub(b"", _DIRECTIVE_LINE.sub(b"", data[close + 2:pos]))
        if close < 0 or between.strip():  # directives and line comments between: skipped
            return found
        opened = data.rfind(b"/*", max(0, close - _LOOKAROUND), close)
        if opened < 0:
            return found
        pos = opened


class _LinePrefixes:
    """What stands on an offset's line before it, for offsets asked in increasing order: each
    look reads on from where the last stopped, so a long line of many matches is read once
    (a search back to its start, and a copy of it, for each match was quadratic in its length)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.start = 0  # where the line last asked about starts
        self.at = 0  # how far it has been read
        self.first = -1  # its first byte not blank, -1 while none is read
        self.opening = False  # whether a `=` or `(` stands in it before `at`

    def _read_to(self, pos: int) -> None:
        if pos < self.at:  # asked out of order: read the line again
            self.start = self.at = self.data.rfind(b"\n", 0, pos) + 1
            self.first, self.opening = -1, False
        newline = self.data.rfind(b"\n", self.at, pos)
        if newline >= 0:
            self.start = self.at = newline + 1
            self.first, self.opening = -1, False
        if self.first < 0:
            found = _NOT_BLANK.search(self.data, self.at, pos)
            self.first = found.start() if found else -1
        if not self.opening:
            read = self.data[self.at:pos]
            self.opening = b"=" in read or b"(" in read
        self.at = pos

    def blank(self, pos: int) -> bool:
        """Whether only blanks stand before `pos` on its line."""
        self._read_to(pos)
        return self.first < 0

    def directive(self, pos: int) -> bool:
        """Whether `pos` is on a directive's line (its first byte not blank is a `#`)."""
        self._read_to(pos)
        return self.first >= 0 and self.data[self.first] == 35


def _closing(data: bytes, open_at: int) -> int:
    """The offset of the `)` matching the `(` at `open_at`, or -1 within _LOOKAROUND."""
    depth = 0
    for i in range(open_at, min(len(data), open_at + _LOOKAROUND)):
        c = data[i]
        if c == 40:  # (
            depth += 1
        elif c == 41:  # )
            depth -= 1
            if depth == 0:
                return i
        elif c in (59, 123, 125):  # ; { }: past the statement
            return -1
    return -1


def _previous_token(data: bytes, pos: int) -> int:
    """The last byte before `pos` that is not blank, in a `//` comment or on a preprocessor
    line (`#endif` between a block and its CATCH), or -1."""
    limit = max(0, pos - _LOOKAROUND)
    while pos > limit:
        newline = data.rfind(b"\n", limit, pos)
        # a line begun before the window is read from the window's start (was: from the
        # file's, for every match on a long line: quadratic); where it began is not known
        line_start = newline + 1 if newline >= 0 else limit
        line = data[line_start:pos]
        if (newline >= 0 or limit == 0) and line.lstrip().startswith(b"#"):
            pos = line_start - 1
            continue
        line = line.rstrip()
        comment = line.find(b"//")
        if comment >= 0 and not line.endswith(b"*/"):  # not a URL's `//` in a block comment's last line
            line = line[:comment].rstrip()
        if line:
            return line[-1]
        pos = line_start - 1
    return -1


def _next_token(data: bytes, pos: int) -> int:
    """The first byte at or after `pos` that is not blank, or -1."""
    m = _NOT_BLANK.search(data, pos, pos + _LOOKAROUND)
    return data[m.start()] if m else -1


def parser_view(name: str, data: bytes) -> bytes:
    """What the parser is given of a C or C++ source: `data`, with the macros that tree-sitter
    (no preprocessor) cannot place blanked to spaces, and enumerator macros written as the
    enumerators they define. Same length and lines, so every offset and name read from `data`
    still holds; the macro is simply not in the tree."""
    spans = blanked_spans(name, data) + enum_body_directives(data)
    edits = enumerator_macro_edits(data)
    if not spans and not edits:
        return data
    view = bytearray(data)
    for at, replacement in edits:
        view[at:at + len(replacement)] = replacement
    for start, end in spans:  # after the edits: none is left in a blanked branch
        # a span may run over lines (`BOOST_NOEXCEPT_IF(\n cond)`): its line breaks stay
        view[start:end] = blanked(data[start:end])
    return bytes(view)
