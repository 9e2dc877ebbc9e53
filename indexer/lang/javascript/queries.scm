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

; CommonJS exports of a value at the module's top (a function is the shipped tags'): `exports.VERSION
; = "1.0"`, `module.exports.defaults = { retries: 3 }`, `exports.program = new Command()` define the
; module's own names, as `export const` does. Not a definition: a name or an attribute (`exports.X =
; X`, `exports.X = m.default`: an export of a binding, maybe a module's) nor a `require`
; (`exports.x = require("./a").y`: a re-export, an import).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_exports (#eq? @_exports "exports")
                               property: (property_identifier) @name)
      right: [(string) (template_string) (number) (true) (false) (null) (undefined) (regex) (object) (array)
              (new_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression)]) @definition.variable))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (member_expression object: (identifier) @_module (#eq? @_module "module")
                                                          property: (property_identifier) @_exports (#eq? @_exports "exports"))
                               property: (property_identifier) @name)
      right: [(string) (template_string) (number) (true) (false) (null) (undefined) (regex) (object) (array)
              (new_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression)]) @definition.variable))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_exports (#eq? @_exports "exports")
                               property: (property_identifier) @name)
      right: [(call_expression function: [(member_expression) (call_expression) (parenthesized_expression)])
             (call_expression function: (identifier) @_callee (#not-eq? @_callee "require"))]) @definition.variable))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (member_expression object: (identifier) @_module (#eq? @_module "module")
                                                          property: (property_identifier) @_exports (#eq? @_exports "exports"))
                               property: (property_identifier) @name)
      right: [(call_expression function: [(member_expression) (call_expression) (parenthesized_expression)])
             (call_expression function: (identifier) @_callee (#not-eq? @_callee "require"))]) @definition.variable))

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
