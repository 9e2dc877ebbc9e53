; JavaScript, TypeScript and TSX alike (their grammars share these nodes).
; Local scopes and the names they bind (indexer/lang/local_scopes.py): functions (parameters read
; from their list, their region is the body), `with` bodies (nothing in them is settled), `let`
; and `const` in their block, `var` in its function, loop and `catch` bindings
[(function_declaration parameters: (_) @local.params body: (_) @local.body)
 (function_expression parameters: (_) @local.params body: (_) @local.body)
 (generator_function_declaration parameters: (_) @local.params body: (_) @local.body)
 (generator_function parameters: (_) @local.params body: (_) @local.body)
 (method_definition parameters: (_) @local.params body: (_) @local.body)
 (arrow_function parameters: (_) @local.params body: (_) @local.body)
 (arrow_function parameter: (_) @local.params body: (_) @local.body)] @local.scope.function
(with_statement body: (_) @local.body) @local.scope.with
(statement_block
  (lexical_declaration (variable_declarator name: (_) @local.bind.let))) @local.block
(for_statement
  initializer: (lexical_declaration (variable_declarator name: (_) @local.bind.let))) @local.block
(switch_body [
  (switch_case body: (lexical_declaration (variable_declarator name: (_) @local.bind.let)))
  (switch_default body: (lexical_declaration (variable_declarator name: (_) @local.bind.let)))]) @local.block
(variable_declaration (variable_declarator name: (_) @local.bind.var))
(for_in_statement kind: _ @local.kind left: (_) @local.bind.for) @local.block
(catch_clause parameter: (_) @local.bind.catch) @local.block
