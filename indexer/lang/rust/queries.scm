; Rennet Context: Rust facts beyond the shipped tags.scm (conventions in python/queries.scm).

(mod_item name: (identifier) @spec !body) @import.rust_mod
(use_declaration argument: (_) @spec) @import.rust_use
(extern_crate_declaration name: (identifier) @spec) @import.rust_extern
; a path in code that may start at a crate's name (imports.py reads the whole path around it)
(scoped_identifier path: [(identifier) (crate) (self) (super)]) @import.rust_path
(scoped_type_identifier path: [(identifier) (crate) (self) (super)]) @import.rust_path
; the same paths in a macro's arguments, which the grammar leaves a token tree (`format!("{}",
; crate::output::Usage::new(cmd))`): imports.py reads their tokens
(macro_invocation (token_tree) @import.rust_macro_path)

; module paths (see python/queries.scm): what precedes the last segment of a use
(use_declaration argument: (scoped_identifier path: (_) @reference.module))
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @reference.module)))
(scoped_use_list path: (_) @reference.module)
(use_list (scoped_identifier path: (_) @reference.module))
(use_wildcard (_) @reference.module)

; an impl block holds methods of its type without being a symbol itself: a named type's, also
; behind a path or generic arguments, a primitive's (`impl str`)
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
    (scoped_type_identifier name: (type_identifier) @name)
    (primitive_type) @name
  ]
  body: (_)) @scope
; other types are named in rust/tags.py: behind references as what they refer to
; (`impl Tr for &'a a::B<T>`: B's), a trait object as its trait (`impl dyn Any + Send`: Any's), a
; type without a name as rustdoc names its primitive (`impl<T> [T]` holds `slice.sort`)
(impl_item
  type: [(array_type) (tuple_type) (unit_type) (never_type) (pointer_type) (function_type) (dynamic_type)
         (bounded_type) (reference_type)] @name
  body: (_)) @scope

(trait_item
  body: (declaration_list
    (function_signature_item name: (identifier) @name) @definition.method))

; a function an `extern` block declares (`extern "C" { fn strlen(p: *const c_char) -> usize; }`)
(foreign_mod_item
  body: (declaration_list
    (function_signature_item name: (identifier) @name) @definition.function))

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

; path calls, which the shipped tags leave out: `Type::new(x)`, `a::b::f(x)`, `f::<T>(x)`
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
; struct and struct-variant fields, enum variants, a trait's associated types
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.enumerator
(associated_type name: (type_identifier) @name) @definition.type

; Local bindings (indexer/lang/local_scopes.py), each with the scope it is in (@local.block) and,
; for `let`, the declaration it ends (@local.decl): closure parameters (a function's are read
; from the definition), `let`,
; `for`, match arm, `if let` and `while let` patterns. A `fn` item (a definition) is a barrier:
; it does not see the locals of a function around it
(closure_expression parameters: (closure_parameters) @local.bind.pattern) @local.block
(block (let_declaration pattern: (_) @local.bind.pattern) @local.decl) @local.block
(for_expression pattern: (_) @local.bind.pattern body: (block) @local.block)
(match_arm pattern: (match_pattern) @local.bind.pattern) @local.block
(if_expression condition: (let_condition pattern: (_) @local.bind.pattern) consequence: (block) @local.block)
(if_expression
  condition: (let_chain (let_condition pattern: (_) @local.bind.pattern)) consequence: (block) @local.block)
(while_expression condition: (let_condition pattern: (_) @local.bind.pattern) body: (block) @local.block)
(while_expression
  condition: (let_chain (let_condition pattern: (_) @local.bind.pattern)) body: (block) @local.block)
