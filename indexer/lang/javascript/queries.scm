; Rennet Context: JavaScript facts beyond the shipped tags.scm (conventions in python/queries.scm).

(import_statement source: (string) @spec) @import.js
(export_statement source: (string) @spec) @import.js

((call_expression
   function: (identifier) @fn
   arguments: (arguments . (string) @spec)) @import.js
 (#eq? @fn "require"))

(call_expression
  function: (import)
  arguments: (arguments . (string) @spec)) @import.js

; module-level variables (arrow/function values are functions in the shipped tags)
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.method

; class fields holding functions are methods: `handle = () => {}`, `#handle = () => {}`
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; private methods, `#evict() {}` (the shipped tags take a property_identifier name only)
(method_definition name: (private_property_identifier) @name) @definition.method

; class fields
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field
