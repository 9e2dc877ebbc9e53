; Rennet Context: TypeScript/TSX facts beyond the shipped tags.scm of JavaScript and
; TypeScript (conventions in python/queries.scm). Also used for TSX.

(import_statement source: (string) @spec) @import.js
(export_statement source: (string) @spec) @import.js
(import_require_clause source: (string) @spec) @import.js

((call_expression
   function: (identifier) @fn
   arguments: (arguments . (string) @spec)) @import.js
 (#eq? @fn "require"))

(call_expression
  function: (import)
  arguments: (arguments . (string) @spec)) @import.js

(class_declaration name: (type_identifier) @name) @definition.class
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace

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
; ambient declarations of a declaration file: `declare const x: T;`, `export declare const x`
(program
  (ambient_declaration
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (ambient_declaration
      (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))))

; CommonJS exports of a value (javascript/commonjs.scm), of TypeScript's own forms: `exports.port =
; env.PORT as number`, `exports.conf = {} satisfies Conf`, `exports.x = y!`
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_exports (#eq? @_exports "exports")
                               property: (property_identifier) @name)
      right: [(as_expression) (satisfies_expression) (non_null_expression)]) @definition.variable))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (member_expression object: (identifier) @_module (#eq? @_module "module")
                                                          property: (property_identifier) @_exports (#eq? @_exports "exports"))
                               property: (property_identifier) @name)
      right: [(as_expression) (satisfies_expression) (non_null_expression)]) @definition.variable))

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.method

; class fields holding functions are methods: `private handle = (e: E) => {}`, `#handle = ...`
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; private methods, `#evict() {}` (the shipped tags take a property_identifier name only)
(method_definition name: (private_property_identifier) @name) @definition.method

; fields of classes, interfaces and object type aliases; enum members
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(type_alias_declaration
  value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(enum_body (property_identifier) @name @definition.enumerator)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enumerator)

; `declare var X: T;` alone or exported: a declaration file's globals (lib.d.ts's `declare var
; Object: ObjectConstructor;`); `declare const` and `declare let` are lexical declarations above
(program
  (ambient_declaration
    (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (ambient_declaration
      (variable_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))))

; `export var DATA = 1;` (the patterns above take `export let/const` and a plain `var`)
(program
  (export_statement
    declaration: (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))

; destructured top-level bindings: `export const { a, b: c, ...rest } = make();`,
; `const [first, , second] = pair();`: each name bound is a variable
(program [(lexical_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @definition.variable)))
          (variable_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @definition.variable)))
          (export_statement declaration: (lexical_declaration
            (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @definition.variable))))])
(program [(lexical_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name @definition.variable))))
          (export_statement declaration: (lexical_declaration
            (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name @definition.variable)))))])
(program [(lexical_declaration (variable_declarator name: (_ (rest_pattern (identifier) @name @definition.variable))))
          (export_statement declaration: (lexical_declaration
            (variable_declarator name: (_ (rest_pattern (identifier) @name @definition.variable)))))])
(program [(lexical_declaration (variable_declarator name: (array_pattern (identifier) @name @definition.variable)))
          (variable_declaration (variable_declarator name: (array_pattern (identifier) @name @definition.variable)))
          (export_statement declaration: (lexical_declaration
            (variable_declarator name: (array_pattern (identifier) @name @definition.variable))))])

; a name bound with a default, `const { a = 1, b: c = 2 } = o;`, `const [x = 0] = pair();`
(program [(lexical_declaration (variable_declarator name: (_ [(object_assignment_pattern left: (shorthand_property_identifier_pattern) @name @definition.variable)
                                                             (pair_pattern value: (assignment_pattern left: (identifier) @name @definition.variable))
                                                             (assignment_pattern left: (identifier) @name @definition.variable)])))
          (variable_declaration (variable_declarator name: (_ [(object_assignment_pattern left: (shorthand_property_identifier_pattern) @name @definition.variable)
                                                              (pair_pattern value: (assignment_pattern left: (identifier) @name @definition.variable))
                                                              (assignment_pattern left: (identifier) @name @definition.variable)])))
          (export_statement declaration: (lexical_declaration
            (variable_declarator name: (_ [(object_assignment_pattern left: (shorthand_property_identifier_pattern) @name @definition.variable)
                                           (pair_pattern value: (assignment_pattern left: (identifier) @name @definition.variable))
                                           (assignment_pattern left: (identifier) @name @definition.variable)]))))])

; constructor parameter properties: `constructor(public value: string, private readonly n: number)`
; declare fields of the class (tags.py hoists them out of the constructor)
(method_definition
  name: (property_identifier) @rennet.ctor
  parameters: (formal_parameters
    [(required_parameter (accessibility_modifier) pattern: (identifier) @name)
     (optional_parameter (accessibility_modifier) pattern: (identifier) @name)] @definition.field)
  (#eq? @rennet.ctor "constructor"))
(method_definition
  name: (property_identifier) @rennet.ctor
  parameters: (formal_parameters
    [(required_parameter "readonly" pattern: (identifier) @name)
     (optional_parameter "readonly" pattern: (identifier) @name)] @definition.field)
  (#eq? @rennet.ctor "constructor"))

; what a namespace holds beyond its functions and classes: `namespace NS { export const LIMIT = 3;
; const inner = 4; }` (variables of the namespace, exported or not)
; a module's too, and those `declare global { ... }` and `declare module "fs" { ... }` hold, as
; the functions and classes there are read (`module` names both `module M {}` and a quoted one)
(internal_module body: (statement_block
  (_ (variable_declarator name: (identifier) @name) @definition.variable)))
(internal_module body: (statement_block
  (export_statement declaration: (_ (variable_declarator name: (identifier) @name) @definition.variable))))
(module body: (statement_block
  (_ (variable_declarator name: (identifier) @name) @definition.variable)))
(module body: (statement_block
  (export_statement declaration: (_ (variable_declarator name: (identifier) @name) @definition.variable))))
(ambient_declaration (statement_block
  (_ (variable_declarator name: (identifier) @name) @definition.variable)))
(ambient_declaration (statement_block
  (export_statement declaration: (_ (variable_declarator name: (identifier) @name) @definition.variable))))
