; Rennet Context: Bash facts (the grammar ships no tags.scm; conventions in python/queries.scm).

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @name)) @reference.call

((command
   name: (command_name (word) @fn)
   argument: (_) @spec) @import.bash_source
 (#any-of? @fn "source" "."))

(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition.variable))
