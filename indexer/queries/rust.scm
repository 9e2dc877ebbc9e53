; Rennet Context: Rust facts beyond the shipped tags.scm (conventions in python.scm).

(mod_item name: (identifier) @spec !body) @import.rust_mod
(use_declaration argument: (_) @spec) @import.rust_use
(extern_crate_declaration name: (identifier) @spec) @import.rust_extern

; module paths (see python.scm): what precedes the last segment of a use
(use_declaration argument: (scoped_identifier path: (_) @reference.module))
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @reference.module)))
(scoped_use_list path: (_) @reference.module)
(use_list (scoped_identifier path: (_) @reference.module))
(use_wildcard (_) @reference.module)

; an impl block holds methods of its type without being a symbol itself
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]
  body: (_)) @scope

(trait_item
  body: (declaration_list
    (function_signature_item name: (identifier) @name) @definition.method))

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

; path calls, which the shipped tags leave out: `Type::new(x)`, `a::b::f(x)`, `f::<T>(x)`
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
; struct and struct-variant fields, enum variants, a trait's associated types
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.enumerator
(associated_type name: (type_identifier) @name) @definition.type
