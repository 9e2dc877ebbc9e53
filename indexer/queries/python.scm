; Rennet Context: Python facts beyond the shipped tags.scm.
; Capture conventions (read by indexer/tags.py): @definition.<kind> + @name a symbol,
; @container an explicit container name, @scope + @name a container that is not a symbol,
; @import.<handler> an import statement, @main a main-block candidate, @package a package name.

(import_statement) @import.python
(import_from_statement) @import.python_from

; module paths: each segment names a package or module, not a symbol (role "module")
(import_statement name: (dotted_name (identifier) @name) @reference.module)
(import_statement name: (aliased_import name: (dotted_name (identifier) @name) @reference.module))
(import_from_statement module_name: (dotted_name (identifier) @name) @reference.module)
(import_from_statement module_name: (relative_import (dotted_name (identifier) @name) @reference.module))

(module
  (if_statement
    condition: (comparison_operator) @cond) @main)

; module-level annotated assignments without value: `X: int`
(module
  (expression_statement
    (assignment
      left: (identifier) @name
      type: (_)) @definition.variable))

; class attributes (dataclass fields, class constants)
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))
