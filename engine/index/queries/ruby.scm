; Fourfold's own Ruby queries: constants, inheritance and require/require_relative.

(assignment left: (constant) @name) @definition.constant

(class
  superclass: (superclass
    [(constant) @name
     (scope_resolution name: (constant) @name)])) @reference.inherit

(call
  method: (identifier) @_require
  arguments: (argument_list . (string) @import)
  (#match? @_require "^require(_relative)?$"))
