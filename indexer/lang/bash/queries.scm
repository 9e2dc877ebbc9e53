; Rennet Context: Bash facts (the grammar ships no tags.scm; conventions in python/queries.scm).

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @name)) @reference.call

((command
   name: (command_name (word) @fn)
   argument: (_) @spec) @import.bash_source
 (#any-of? @fn "source" "."))

; Top-level variables are read by a walk of the script's statements, compound commands nested
; to any depth included (indexer/lang/bash/top_variables.py): no pattern reaches every depth.

; `alias ll='ls -l'`, `alias gs="git status" gd='git diff'`, `alias -g L='| less'` (zsh): each
; `name=value` argument of `alias` defines the alias; tags.py names it by the text before `=`
; (an argument without one, `alias ll`, prints an alias and defines none)
((command
   name: (command_name (word) @rennet.alias)
   argument: (concatenation . (word) @name) @definition.alias)
 (#eq? @rennet.alias "alias"))
((command
   name: (command_name (word) @rennet.alias)
   argument: (word) @name @definition.alias)
 (#eq? @rennet.alias "alias"))
; quoted whole (`alias 'la=ls -a' "ll=ls -l"`): the text inside the quotes, up to its `=`
((command
   name: (command_name (word) @rennet.alias)
   argument: (raw_string) @name @definition.alias)
 (#eq? @rennet.alias "alias"))
((command
   name: (command_name (word) @rennet.alias)
   argument: (string . (string_content) @name) @definition.alias)
 (#eq? @rennet.alias "alias"))
