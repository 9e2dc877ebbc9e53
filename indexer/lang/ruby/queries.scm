; Rennet Context: Ruby facts beyond the shipped tags.scm (conventions in python/queries.scm).

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

; a constant written with its scope (`Net::HTTPClientException = HTTPServerException`: Net's),
; each constant a multiple assignment binds (`STATUS_A, STATUS_B = 0, 1`), and one assigned
; only if unset (`DefaultFileName ||= "/etc/hosts"`), as Ruby defines each
(assignment left: (scope_resolution name: (constant) @name)) @definition.constant
(assignment left: (left_assignment_list [(constant) @name (rest_assignment (constant) @name)])) @definition.constant
(operator_assignment left: (constant) @name) @definition.constant

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

; classes made by a call, as ctags lists them: `Range = Struct.new(:start, :finish) do ... end`,
; `NotFound = Class.new(StandardError)`, `Point = Data.define(:x, :y)`, `Helpers = Module.new do`;
; the block's `def`s are that class's methods (the constant is their container)
((assignment
   left: [(constant) @name (scope_resolution name: (constant) @name)]
   right: (call receiver: (constant) @recv method: (identifier) @fn)) @definition.class
 (#any-of? @recv "Class" "Struct" "Data" "Module")
 (#any-of? @fn "new" "define"))
; (one pattern, tags.py telling the four makers from the rest: one per maker cost ~10 ms each
; to compile in every worker)

; `URI::Parser.class_eval do def unescape ... end end`: the block's `def`s are methods of the
; receiver, which this opens without defining it (a container that is not a symbol, as a Rust
; impl block). A receiver that is a variable (`base.class_eval`) names no class the tree shows.
((call
   receiver: [(constant) (scope_resolution)] @name
   method: (identifier) @fn
   block: (_)) @scope
 (#any-of? @fn "class_eval" "module_eval" "class_exec" "module_exec"))

; Local bindings (indexer/lang/ruby/scopes.py): a block or lambda is a scope of its own, seeing
; the locals around it; `class << x` is a gate, as a `def`, `class` and `module` are (those are
; definitions); a bare name assigned, rescued into or looped over is bound in the innermost
; scope around it
[(do_block) (block) (lambda)] @local.scope.block
(singleton_class) @local.scope.barrier
(assignment left: (identifier) @local.bind.assign)
(operator_assignment left: (identifier) @local.bind.assign)
(left_assignment_list (identifier) @local.bind.assign)
(left_assignment_list (rest_assignment (identifier) @local.bind.assign))
(destructured_left_assignment (identifier) @local.bind.assign)
(exception_variable (identifier) @local.bind.assign)
(for pattern: (identifier) @local.bind.assign)
