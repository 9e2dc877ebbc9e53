; Rennet Context: Java facts beyond the shipped tags.scm (conventions in python.scm).

(import_declaration) @import.java

(package_declaration [(identifier) (scoped_identifier)] @package)

; module paths (see python.scm): the package of an import (of a static one, what precedes
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
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
; enum constants, interface constants
(enum_constant name: (identifier) @name) @definition.enumerator
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
