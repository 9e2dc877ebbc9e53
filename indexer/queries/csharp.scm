; Rennet Context: C# facts beyond the shipped tags.scm (conventions in python.scm).

(using_directive) @import.csharp_using

; module paths (see python.scm): the namespace a using names (an alias's target too)
(using_directive (qualified_name) @reference.module)
(using_directive !name (identifier) @reference.module)

(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)

(namespace_declaration name: (qualified_name) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.field
(delegate_declaration name: (identifier) @name) @definition.type

; plain calls, which the shipped tags leave out (they mark member calls): `G(x)`, `G<T>(x)`
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
; enum members, fields and events
(enum_member_declaration name: (identifier) @name) @definition.enumerator
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
