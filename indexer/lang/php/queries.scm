; Rennet Context: PHP facts beyond the shipped tags.scm (conventions in python/queries.scm).

(namespace_use_declaration) @import.php_use
(require_expression) @import.php_require
(require_once_expression) @import.php_require
(include_expression) @import.php_require
(include_once_expression) @import.php_require

(namespace_definition name: (namespace_name) @package)

; module paths (see python/queries.scm): the namespace before a used name, a group's prefix
(namespace_use_clause (qualified_name prefix: (_) @reference.module))
(namespace_use_declaration (namespace_name) @reference.module)

(enum_declaration name: (name) @name) @definition.enum
; `new class { ... }`: a class without a name, the container of its members (tags.py names it)
(anonymous_class) @scope
; the constant is the element's first name: a value that is another constant's bare name
; (`const JPEG = IMAGETYPE_JPEG;`) is a use of it, not a second definition
(const_declaration (const_element . (name) @name)) @definition.constant
; `case Active = 'active';`: an enum's members, as other languages' enum constants
(enum_case name: (name) @name) @definition.enumerator
; `__construct(private readonly int $id)` declares the property `id` of the class (tags.py
; takes the class, not the constructor, as its container)
(property_promotion_parameter name: [(variable_name (name) @name) (by_ref (variable_name (name) @name))]) @definition.field
; `define('APP_ROOT', ...)` declares a global constant wherever it runs (inside an `if` or a
; function as often as at the top); only a plain name, not one built at run time or namespaced.
; The call is PHP's `define` in any case, as PHP matches function names, and written fully
; qualified too (`\define('X', 1)`); `Other\define(...)` is another function
((function_call_expression
   function: [(name) @fn (qualified_name) @fn]
   arguments: (arguments . (argument . [(string . (string_content) @name .) (encapsed_string . (string_content) @name .)])))
 @definition.constant
 (#match? @fn "^\\\\?[Dd][Ee][Ff][Ii][Nn][Ee]$")
 (#match? @name "^[A-Za-z_][A-Za-z0-9_]*$"))

; function calls and instantiations, which the shipped tags leave out: `f(x)`, `\A\f(x)`,
; `new Widget()`, `new \N\Widget()`
(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name (name) @name)) @reference.call
(object_creation_expression (name) @name) @reference.class
(object_creation_expression (qualified_name (name) @name)) @reference.class

; what a class extends and the traits it uses are uses of those types, as Java's superclass is
; (`class A extends \N\Base { use T; }`, `interface I extends J`); of a qualified interface
; name the last segment (the shipped pattern marks the whole name, whose start is the `\`
; or namespace, not the interface's own identifier)
(base_clause [(name) @name (qualified_name (name) @name)]) @reference.class
(class_interface_clause (qualified_name (name) @name)) @reference.implementation
(use_declaration [(name) @name (qualified_name (name) @name)]) @reference.class
