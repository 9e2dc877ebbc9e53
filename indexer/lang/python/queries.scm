; Rennet Context: Python facts beyond the shipped tags.scm.
; Capture conventions (read by indexer/extract/tags.py): @definition.<kind> + @name a symbol,
; @container an explicit container name, @scope + @name a container that is not a symbol,
; @import.<handler> an import statement, @main a main-block candidate, @package a package name.

(import_statement) @import.python
(import_from_statement) @import.python_from

; @reference.module: an import's module path, whose every segment names a package or
; module, not a symbol (each identifier in it is a "module" site)
(import_statement name: (dotted_name) @reference.module)
(import_statement name: (aliased_import name: (_) @reference.module))
(import_from_statement module_name: (_) @reference.module)

(module
  (if_statement
    condition: (comparison_operator) @cond) @main)

; Module variables are read by a walk of the module's statements, blocks nested to any depth
; included (indexer/lang/python/module_variables.py): no pattern reaches every depth.

; class attributes (dataclass fields, class constants)
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))
; and every target of a chain or a tuple there (`__add__, __radd__ = _fallbacks(...)`, `a = b = 0`,
; up to five targets)
(class_definition body: (block (expression_statement
  (assignment right: (assignment left: (identifier) @name) @definition.field))))
(class_definition body: (block (expression_statement
  (assignment right: (assignment right: (assignment left: (identifier) @name) @definition.field)))))
(class_definition body: (block (expression_statement
  (assignment right: (assignment right: (assignment right: (assignment left: (identifier) @name)
    @definition.field))))))
(class_definition body: (block (expression_statement
  (assignment right: (assignment right: (assignment right: (assignment right: (assignment
    left: (identifier) @name) @definition.field)))))))
(class_definition body: (block (expression_statement
  (assignment left: (pattern_list (identifier) @name)) @definition.field)))
(class_definition body: (block (expression_statement
  (assignment left: [(tuple_pattern (identifier) @name) (list_pattern (identifier) @name)]) @definition.field)))

; Local scopes and the names they bind (indexer/lang/local_scopes.py; functions and classes are
; scopes as definitions, their parameters read from the definition). A lambda's region is its
; body (defaults are evaluated outside it); a comprehension's first iterable is evaluated
; outside it.
(lambda body: (_) @local.body) @local.scope.lambda
(list_comprehension body: (_) . (for_in_clause right: (_) @local.hole)) @local.scope.comprehension
(set_comprehension body: (_) . (for_in_clause right: (_) @local.hole)) @local.scope.comprehension
(dictionary_comprehension body: (_) . (for_in_clause right: (_) @local.hole)) @local.scope.comprehension
(generator_expression body: (_) . (for_in_clause right: (_) @local.hole)) @local.scope.comprehension
; what binds a name in the scope around it: assignment and loop targets, `with`/`except ... as`,
; `del`; a walrus binds in the function around its comprehensions; `global` and `nonlocal` names
; are not the function's (a `match` case's bindings are not read)
(assignment left: (identifier) @local.bind.name)
; (two alternatives: three would be compiled as a wildcard checked afterwards, a match per assignment)
(assignment left: [(pattern_list) (tuple_pattern)] @local.bind.pattern)
(assignment left: (list_pattern) @local.bind.pattern)
(augmented_assignment left: (identifier) @local.bind.name)
(for_statement left: (_) @local.bind.pattern)
(for_in_clause left: (_) @local.bind.pattern)
(as_pattern alias: (as_pattern_target (_) @local.bind.pattern))
(named_expression name: (identifier) @local.bind.walrus)
(delete_statement (identifier) @local.bind.name)
(delete_statement (expression_list (identifier) @local.bind.name))
(global_statement (identifier) @local.bind.global)
(nonlocal_statement (identifier) @local.bind.global)
