; Rennet Context: Ruby facts beyond the shipped tags.scm (conventions in python.scm).

((call
   !receiver
   method: (identifier) @fn
   arguments: (argument_list . (string (string_content) @spec))) @import.ruby
 (#any-of? @fn "require" "require_relative"))

(assignment left: (constant) @name) @definition.constant
