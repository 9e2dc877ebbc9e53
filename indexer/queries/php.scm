; Rennet Context: PHP facts beyond the shipped tags.scm (conventions in python.scm).

(namespace_use_declaration) @import.php_use
(require_expression) @import.php_require
(require_once_expression) @import.php_require
(include_expression) @import.php_require
(include_once_expression) @import.php_require

(namespace_definition name: (namespace_name) @package)

; module paths (see python.scm): the namespace before a used name, a group's prefix
(namespace_use_clause (qualified_name prefix: (_) @reference.module))
(namespace_use_declaration (namespace_name) @reference.module)

(enum_declaration name: (name) @name) @definition.enum
(const_declaration (const_element (name) @name)) @definition.constant

; function calls and instantiations, which the shipped tags leave out: `f(x)`, `\A\f(x)`,
; `new Widget()`, `new \N\Widget()`
(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name (name) @name)) @reference.call
(object_creation_expression (name) @name) @reference.class
(object_creation_expression (qualified_name (name) @name)) @reference.class
