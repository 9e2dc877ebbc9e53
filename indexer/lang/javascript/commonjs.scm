; Rennet Context: CommonJS exports of a value at a module's top, JavaScript's and TypeScript's (a
; function is the shipped tags'): `exports.VERSION = "1.0"`, `module.exports.defaults = { retries: 3 }`,
; `exports.program = new Command()` define the module's own names, as `export const` does. Not a
; definition: a name or an attribute (`exports.X = X`, `exports.X = m.default`: an export of a
; binding, maybe a module's) nor a `require` (`exports.x = require("./a").y`: a re-export, an import).
; Each value form is written for `exports.` and for `module.exports.`: a predicate on a capture one
; branch of an alternation lacks would not hold it to its name.
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
