; Rennet Context: Java facts beyond the shipped tags.scm (conventions in python.scm).

(import_declaration) @import.java

(package_declaration [(identifier) (scoped_identifier)] @package)

(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
