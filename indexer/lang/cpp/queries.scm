; Rennet Context: C++ facts beyond the shipped tags.scm and c/c_family.scm (conventions in
; python/queries.scm).

(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type

; out-of-line member definitions: `void Foo::bar() {}`, `Foo<T>::bar`
(function_declarator
  declarator: (qualified_identifier
    scope: (_) @container
    name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.method

; a name qualified from the global namespace alone (`void ::f() {}`): of no scope
(function_declarator
  declarator: (qualified_identifier
    !scope
    name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function

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
; ERROR node before it). No function has a bare name, a class type and a body, so this is
; the class (a struct: tags.py reads the head). A base list with template arguments still
; parses as something else. One pattern, not one per head and name shape: each compiles
; against C++'s parse table at ~6 ms in every worker.
(function_definition
  type: [(class_specifier !body) (struct_specifier !body)]
  .
  [(ERROR . (identifier) @name) declarator: (identifier) @name]
  body: (compound_statement)) @definition.class

; calls beyond c_family's: `ns::f(x)`, `f<T>(x)`, `obj.f<T>(x)`, `ns::f<T>(x)`; `new T(...)`
; uses the class
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (template_method name: (field_identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.class
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier name: (template_function name: (identifier) @name)))) @reference.call


; a reference member (c/c_family.scm has the others)
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field

; Local bindings beyond C's (indexer/lang/local_scopes.py): range-for, lambda and catch parameters. A class (a definition) is a barrier: a local class's members are
; not the function's locals
(for_range_loop declarator: (_) @local.bind.decl) @local.block
(lambda_expression
  declarator: (abstract_function_declarator
    parameters: (parameter_list (parameter_declaration declarator: (_) @local.bind.param)))) @local.block
(catch_clause parameters: (parameter_list (parameter_declaration declarator: (_) @local.bind.param))) @local.block

; C++ shapes of a variable beyond c_family's: a reference (`const T& kRef = x;`), and a
; specialised or partial variable template's declarator (kept or dropped as c_family's are)
(declaration declarator: (init_declarator declarator: (reference_declarator (identifier) @name))) @definition.variable
(declaration declarator: (init_declarator declarator: (template_function name: (identifier) @name))) @definition.variable

; class and struct template specialisations, explicit and partial: `template <> struct
; formatter<my_type> : base {...}`, `template <typename T> struct formatter<T*> {...}`; the
; shipped tags take a plain name only. Their members are in them (a scope of the name).
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct

; function template specialisations: `template <> constexpr auto num_bits<int128>() -> int`
(function_declarator declarator: (template_function name: (identifier) @name)) @definition.function
; an out-of-line member specialisation: `template<> inline sort context::fpa_sort<16>() {...}`
(function_declarator
  declarator: (qualified_identifier
    scope: (_) @container
    name: (template_function name: (identifier) @name))) @definition.method
