; Rennet Context: C facts beyond the shipped tags.scm (conventions in python.scm).

(preproc_include path: (string_literal) @spec) @import.c_include
(preproc_include path: (system_lib_string) @spec) @import.c_system_include

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; calls (the grammar's shipped tags.scm has none): `f(x)`, `s.f(x)`, `p->f(x)`
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
