; Rennet Context: C++ facts beyond the shipped tags.scm (conventions in python.scm).

(preproc_include path: (string_literal) @spec) @import.c_include
(preproc_include path: (system_lib_string) @spec) @import.c_system_include

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type

; out-of-line member definitions: `void Foo::bar() {}`, `Foo<T>::bar`
(function_declarator
  declarator: (qualified_identifier
    scope: (_) @container
    name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.method

; nested scopes, `ns::Cls::m`, `a::b::Cls::m`: the whole qualified name is the container capture;
; the name capture is the inner qualified name, whose last segment tags.py takes as the name
(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier) @name) @container) @definition.method

; destructors and operators declared or defined where they are named unqualified: in a class
; body (`virtual ~K();`, `K& operator=(const K&);`, a method there) or at namespace scope
; (`bool operator==(const K&, const K&)`, a function); named as written, like `K::~K()`
(function_declarator declarator: [(destructor_name) (operator_name)] @name) @definition.function

; conversion operators (`operator bool() const;`, `K::operator bool() const {}`): no declarator
; names them, the node itself is the name; tags.py trims it to `operator bool` and reads the
; scope of a qualified one
(operator_cast) @name @definition.function

; `class API_EXPORT Foo { ... }`: an export macro before the name makes tree-sitter read a
; function returning `class API_EXPORT`, named Foo (or, with a base clause, the name in an
; ERROR node before it). No function has a bare name, a class type and a body, so these are
; the class. A base list with template arguments still parses as something else.
(function_definition
  type: (class_specifier !body)
  .
  (ERROR . (identifier) @name)
  body: (compound_statement)) @definition.class
(function_definition
  type: (class_specifier !body)
  .
  declarator: (identifier) @name
  body: (compound_statement)) @definition.class
(function_definition
  type: (struct_specifier !body)
  .
  (ERROR . (identifier) @name)
  body: (compound_statement)) @definition.struct
(function_definition
  type: (struct_specifier !body)
  .
  declarator: (identifier) @name
  body: (compound_statement)) @definition.struct

; calls (the grammar's shipped tags.scm has none): `f(x)`, `obj.f(x)`, `p->f(x)`, `ns::f(x)`,
; `f<T>(x)`, `obj.f<T>(x)`, `ns::f<T>(x)`; `new T(...)` uses the class
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (template_method name: (field_identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.class
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier name: (template_function name: (identifier) @name)))) @reference.call


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
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field
(enumerator name: (identifier) @name) @definition.enumerator
