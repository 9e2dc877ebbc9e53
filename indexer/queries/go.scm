; Rennet Context: Go facts beyond the shipped tags.scm (conventions in python.scm).

(import_spec path: (_) @spec) @import.go

(package_clause (package_identifier) @package)

; methods: the receiver's type is the container
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @container
        (pointer_type (type_identifier) @container)
        (generic_type type: (type_identifier) @container)
        (pointer_type (generic_type type: (type_identifier) @container))
      ]))
  name: (field_identifier) @name) @definition.method

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; interface methods
(method_elem name: (field_identifier) @name) @definition.method
; struct fields, each name of `A, B int`
(field_declaration name: (field_identifier) @name) @definition.field
; an embedded type is the field its type names (`suite.Suite` the field `Suite`, `*Base` and
; `List[T]` the fields `Base` and `List`), as Go promotes through it and ctags lists it; the
; name stays a use of the type (tags.py, on `@rennet.embedded`)
(field_declaration
  !name
  type: [(type_identifier) @name
         (qualified_type name: (type_identifier) @name)
         (generic_type type: [(type_identifier) @name (qualified_type name: (type_identifier) @name)])]
        @rennet.embedded) @definition.field
