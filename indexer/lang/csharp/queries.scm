; Rennet Context: C# facts beyond the shipped tags.scm (conventions in python/queries.scm).

(using_directive) @import.csharp_using

; module paths (see python/queries.scm): the namespace a using names; of an alias's target only the
; namespace before its last name, which may be a type (`using U = App.Models.User;`), and so
; of a `using static A.B;`, which names the type B (whose static members the file then uses
; unqualified): A is a module path, B a use of the type
((using_directive !name (qualified_name) @reference.module) @rennet.using
 (#not-match? @rennet.using "^(global\\s+)?using\\s+static\\s"))
(using_directive name: (_) (qualified_name qualifier: (_) @reference.module))
((using_directive !name (identifier) @reference.module) @rennet.using
 (#not-match? @rennet.using "^(global\\s+)?using\\s+static\\s"))
((using_directive !name (qualified_name qualifier: (_) @reference.module)) @rennet.using
 (#match? @rennet.using "^(global\\s+)?using\\s+static\\s"))
((using_directive !name [(qualified_name name: (_) @name) (identifier) @name]) @reference.class
 (#match? @reference.class "^(global\\s+)?using\\s+static\\s"))

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
; a `const` field is a constant (its kind outranks "field" at the same name); case says nothing
; in C# (`ID { get; }`, a mutable `static Encoding UTF8`: see tags.py _STORAGE_FIELDS)
(field_declaration (modifier "const")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
; members the shipped tags leave out. An operator is named from its `operator` keyword to its
; parameters and a destructor with its `~` (see tags.py `_csharp_name`), as C++'s are; an
; indexer by its `this`.
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration "operator" @name) @definition.method
(conversion_operator_declaration "operator" @name) @definition.method
(indexer_declaration "this" @name) @definition.field
(event_declaration name: (identifier) @name) @definition.field
(local_function_statement name: (identifier) @name) @definition.function
; a record's positional parameters are its properties (`record Point(int X, int Y)`)
(record_declaration (parameter_list (parameter name: (identifier) @name) @definition.field))
