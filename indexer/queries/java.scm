; Rennet Context: Java facts beyond the shipped tags.scm (conventions in python.scm).

(import_declaration) @import.java

(package_declaration [(identifier) (scoped_identifier)] @package)

; module paths (see python.scm): the package of an import, all of a `.*` import
(package_declaration [(identifier) (scoped_identifier)] @reference.module)
(import_declaration (scoped_identifier scope: (_) @reference.module))
(import_declaration (scoped_identifier) @reference.module (asterisk))

(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
