; Rennet Context: Java facts beyond the shipped tags.scm (conventions in python/queries.scm).

(import_declaration) @import.java

(package_declaration [(identifier) (scoped_identifier)] @package)

; module paths (see python/queries.scm): the package of an import (of a static one, what precedes
; its class), all of a `.*` import
(package_declaration [(identifier) (scoped_identifier)] @reference.module)
((import_declaration (scoped_identifier scope: (_) @reference.module)) @statement
  (#not-match? @statement "^import\\s+static\\b"))
((import_declaration (scoped_identifier) @reference.module (asterisk)) @statement
  (#not-match? @statement "^import\\s+static\\b"))
(import_declaration "static" (scoped_identifier scope: (scoped_identifier scope: (_) @reference.module)))
(import_declaration "static" (scoped_identifier scope: (_) @reference.module) (asterisk))

(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method
; a record's compact constructor (`R { ... }`, no parameter list): its canonical constructor
(compact_constructor_declaration name: (identifier) @name) @definition.method
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
; enum constants, interface constants
(enum_constant name: (identifier) @name) @definition.enumerator
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

; Local bindings (indexer/lang/local_scopes.py), each with the scope it is in (@local.block): local
; variables, loop, catch and resource variables, lambda parameters (a method's or constructor's
; are read from the definition). A class
; is a barrier (its declaration a definition; an anonymous one's body here): its members are
; not the method's locals
(lambda_expression parameters: [(identifier) @local.bind.param
                                (inferred_parameters (identifier) @local.bind.param)
                                (formal_parameters (formal_parameter name: (identifier) @local.bind.param))]) @local.block
(block (local_variable_declaration declarator: (variable_declarator name: (identifier) @local.bind.decl))) @local.block
(switch_block
  (switch_block_statement_group
    (local_variable_declaration declarator: (variable_declarator name: (identifier) @local.bind.decl)))) @local.block
(for_statement init: (local_variable_declaration declarator: (variable_declarator name: (identifier) @local.bind.decl))) @local.block
(enhanced_for_statement name: (identifier) @local.bind.decl) @local.block
(catch_clause (catch_formal_parameter name: (identifier) @local.bind.decl)) @local.block
(try_with_resources_statement
  resources: (resource_specification (resource name: (identifier) @local.bind.decl))) @local.block
(object_creation_expression (class_body) @local.scope.barrier)

; the elements of an annotation type (`double value();`, `String[] alternate() default {};`
; in an `@interface`): methods of it, as reflection sees them
(annotation_type_element_declaration name: (identifier) @name) @definition.method
