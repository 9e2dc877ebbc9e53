; Generator functions as values, in JavaScript and TypeScript alike, as the shipped tags take
; arrow functions and function expressions: `obj.gen = function* () {}` (`obj.gen`), `const gen = function* () {}`,
; `{ gen: function* () {} }` (assigned.py drops the expression's own name there)
(assignment_expression
  left: [(identifier) @name (member_expression property: (property_identifier) @name)]
  right: (generator_function)) @definition.function
(variable_declarator name: (identifier) @name value: (generator_function)) @definition.function
(pair key: (property_identifier) @name value: (generator_function)) @definition.function
