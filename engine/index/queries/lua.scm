; Fourfold's Lua queries, ahead of the wheel's tags.scm: `M:method` functions are methods of M,
; module-level locals are variables, and `require("a.b")` is a module edge.

(function_declaration
  name: (method_index_expression table: (identifier) @receiver method: (identifier) @name)) @definition.method

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: [(table_constructor) (function_call) (string) (number)]))) @definition.variable)

(function_call
  name: (identifier) @_require
  arguments: (arguments . (string content: (string_content) @import))
  (#eq? @_require "require"))
