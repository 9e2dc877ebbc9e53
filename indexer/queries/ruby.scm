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
