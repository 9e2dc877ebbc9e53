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
