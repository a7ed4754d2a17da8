; Fourfold's Gleam queries (the pack ships no tags.scm): functions (external ones too), custom types
; with their constructors, type aliases and constants; calls (`f(x)`, `module.f(x)`, a pipe's
; `|> f`), record construction, functions passed by name and type names as references; `import a/b`
; names the module `a/b.gleam`.

(function name: (identifier) @name) @definition.function
(type_definition (type_name name: (type_identifier) @name)) @definition.type
(data_constructor name: (constructor_name) @name) @definition.constructor
(type_alias (type_name name: (type_identifier) @name)) @definition.type
(constant name: (identifier) @name) @definition.constant

(function_call function: (identifier) @name) @reference.call
(function_call function: (field_access field: (label) @name)) @reference.call
(record name: (constructor_name) @name) @reference.call
(binary_expression operator: "|>" right: [(identifier) @name (field_access field: (label) @name)]) @reference.call
(argument value: [(identifier) @name (field_access field: (label) @name)]) @reference.value
(type name: (type_identifier) @name) @reference.type

(import module: (module) @import)
