; Rennet Context: C and C++ facts beyond the shipped tags.scm (conventions in python/queries.scm),
; for both grammars (tree-sitter-cpp extends tree-sitter-c: these nodes are the same).

(preproc_include path: (string_literal) @spec) @import.c_include
(preproc_include path: (system_lib_string) @spec) @import.c_system_include

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
; a `#define` where the grammar takes no definition (between the entries of an enum body: curl's
; compatibility names among its CURLOPT entries) is read as a directive of no known kind;
; tags.py names the macro from the argument's first word
((preproc_call directive: (preproc_directive) @rennet.directive argument: (preproc_arg) @name) @definition.macro
 (#eq? @rennet.directive "#define"))
; a function named in parentheses, so that a function-like macro of its name is not expanded
; (Lua's `LUA_API int (lua_gettop) (lua_State *L);`, `const char *(lua_typename) (...)`)
(function_declarator declarator: (parenthesized_declarator (identifier) @name)) @definition.function
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; calls (the grammars' shipped tags.scm have none): `f(x)`, `s.f(x)`, `p->f(x)`
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call

; members of a struct, union or class: `int a, *b;`, `char name[8];`, `char **argv;`,
; `int (*cb)(int);`. A member function's declarator matches too, and is a method all the
; same (a method outranks a field at one name). Wildcards over the declarator wrappers:
; an alternation of them costs several times more to compile.
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (_ declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (_ declarator: (_ declarator: (field_identifier) @name))) @definition.field
(field_declaration
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))) @definition.field
; a function pointer returning a pointer: `void * (*aggregate_context)(sqlite3_context*, int);`
(field_declaration
  declarator: (pointer_declarator declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name))))) @definition.field
(enumerator name: (identifier) @name) @definition.enumerator
; an entry after a `#define` between entries (glibc's langinfo.h: `ABDAY_2,` after `#define
; ABDAY_1 ABDAY_1`), which the grammar leaves in an error node of the enum's list: a lone name
(enumerator_list (ERROR . (identifier) @name .) @definition.enumerator)

; typedefs of a pointer, an array or a function pointer (the shipped tags take a plain name
; only): `typedef struct s *s_ptr;`, `typedef int row[4];`, `typedef void (*handler_t)(int);`
(type_definition declarator: (_ declarator: (type_identifier) @name)) @definition.type
; a name the grammar knows as a built-in type, defined where a library supplies it: glibc's
; `typedef __ssize_t ssize_t;`, `typedef long int intptr_t;`
(type_definition declarator: (primitive_type) @name) @definition.type
(type_definition
  declarator: (pointer_declarator declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))) @definition.type
(type_definition declarator: (_ declarator: (_ declarator: (type_identifier) @name))) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; Local bindings (indexer/lang/local_scopes.py), each with the scope it is in (@local.block): a
; declaration in a block or a `for` (not `extern`, nor a prototype); a function's parameters are
; read from the definition
(compound_statement (declaration declarator: (_) @local.bind.decl) @local.decl) @local.block
(for_statement initializer: (declaration declarator: (_) @local.bind.decl) @local.decl) @local.block

; variables and constants at file and namespace scope: `int counter = 0;`, `static const char
; k[] = "x";`, `int *p, a[4];`, `namespace ns { constexpr int kLimit = 3; }`. Every declaration
; matches; tags.py's kind rule (c/tags.py `_declaration`) keeps those outside any function
; body, not `extern`, and drops the shipped union pattern's. Function declarators are not
; variables: only the plain, initialised, pointer, array and reference shapes are named.
(declaration declarator: (identifier) @name) @definition.variable
(declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (pointer_declarator declarator: (_ declarator: (identifier) @name))) @definition.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable
(declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable
(declaration
  declarator: (init_declarator declarator: (pointer_declarator declarator: (_ declarator: (identifier) @name)))) @definition.variable
; arrays of arrays: `static char bufs[4][16];`, `static const char *merges[15][3] = {...};`
(declaration declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable
(declaration declarator: (init_declarator declarator: (array_declarator declarator: (array_declarator
  declarator: (identifier) @name)))) @definition.variable
(declaration declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator
  declarator: (identifier) @name)))) @definition.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (array_declarator
  declarator: (array_declarator declarator: (identifier) @name))))) @definition.variable
; function pointers at file scope: `void (*on_free)(void *) = free;`, `void *(*alloc)(size_t) = f;`
(declaration declarator: (init_declarator declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))) @definition.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))))) @definition.variable
(declaration declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))) @definition.variable
(declaration declarator: (pointer_declarator declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))) @definition.variable
