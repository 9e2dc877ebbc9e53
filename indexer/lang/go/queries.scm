; Rennet Context: Go facts beyond the shipped tags.scm (conventions in python/queries.scm).

(import_spec path: (_) @spec) @import.go

(package_clause (package_identifier) @package)

; methods: the receiver's type is the container
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @container
        (pointer_type (type_identifier) @container)
        (generic_type type: (type_identifier) @container)
        (pointer_type (generic_type type: (type_identifier) @container))
      ]))
  name: (field_identifier) @name) @definition.method

; each name of `a, b = 1, 2`: a `name:` field in the query matches a const spec's first name
; only, and a spec's names are the only identifiers among its children
(source_file (const_declaration (const_spec (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; type aliases (`type A = B`, Go 1.9), which the shipped tags leave out: a type as `type A B` is
(type_alias name: (type_identifier) @name) @definition.type

; interface methods
(method_elem name: (field_identifier) @name) @definition.method
; struct fields, each name of `A, B int`
(field_declaration name: (field_identifier) @name) @definition.field
; an embedded type is the field its type names (`suite.Suite` the field `Suite`, `*Base` and
; `List[T]` the fields `Base` and `List`), as Go promotes through it and ctags lists it; the
; name stays a use of the type (tags.py, on `@rennet.embedded`)
(field_declaration
  !name
  type: [(type_identifier) @name
         (qualified_type name: (type_identifier) @name)
         (generic_type type: [(type_identifier) @name (qualified_type name: (type_identifier) @name)])]
        @rennet.embedded) @definition.field

; Local bindings (indexer/lang/local_scopes.py), each with the scope it is in (@local.block) and,
; for those visible only once declared, the declaration they end (@local.decl): a function
; literal's parameters and named results (a declared function's are read from the definition),
; `:=`, `var` and `const` in a body, range and select bindings
(func_literal
  parameters: (parameter_list [(parameter_declaration name: (identifier) @local.bind.param)
                               (variadic_parameter_declaration name: (identifier) @local.bind.param)])) @local.block
(func_literal result: (parameter_list (parameter_declaration name: (identifier) @local.bind.param))) @local.block
(statement_list
  (short_var_declaration left: (expression_list (identifier) @local.bind.short)) @local.decl) @local.block
(if_statement
  initializer: (short_var_declaration left: (expression_list (identifier) @local.bind.short)) @local.decl) @local.block
(for_statement
  (for_clause initializer: (short_var_declaration left: (expression_list (identifier) @local.bind.short)) @local.decl)) @local.block
(expression_switch_statement
  initializer: (short_var_declaration left: (expression_list (identifier) @local.bind.short)) @local.decl) @local.block
(type_switch_statement
  initializer: (short_var_declaration left: (expression_list (identifier) @local.bind.short)) @local.decl) @local.block
(type_switch_statement alias: (expression_list (identifier) @local.bind.short) @local.decl) @local.block
(statement_list (var_declaration (var_spec name: (identifier) @local.bind.var) @local.decl)) @local.block
(statement_list (var_declaration (var_spec_list (var_spec name: (identifier) @local.bind.var) @local.decl))) @local.block
(statement_list (const_declaration (const_spec (identifier) @local.bind.var) @local.decl)) @local.block
(for_statement
  (range_clause left: (expression_list (identifier) @local.bind.range) right: (_) @local.value) @local.decl) @local.block
(communication_case
  communication: (receive_statement left: (expression_list (identifier) @local.bind.range) right: (_) @local.value)
  @local.decl) @local.block
