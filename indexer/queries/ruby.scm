; Rennet Context: Ruby facts beyond the shipped tags.scm (conventions in python.scm).

((call
   !receiver
   method: (identifier) @fn
   arguments: (argument_list . (_) @spec)) @import.ruby
 (#any-of? @fn "require" "require_relative"))

((call
   !receiver
   method: (identifier) @fn
   arguments: (argument_list . (simple_symbol) . (_) @spec)) @import.ruby
 (#eq? @fn "autoload"))

(assignment left: (constant) @name) @definition.constant

; accessors and methods made by a call, as ctags lists them: `attr_accessor :owner, :total`,
; `alias_method :push, :add`, `define_method(:clear) { }` (the name's leading colon is dropped)
((call
   !receiver
   method: (identifier) @fn
   arguments: (argument_list (simple_symbol) @name @definition.field))
 (#any-of? @fn "attr_reader" "attr_writer" "attr_accessor"))

((call
   !receiver
   method: (identifier) @fn
   arguments: (argument_list . (simple_symbol) @name @definition.method))
 (#any-of? @fn "alias_method" "define_method"))
