; Fourfold's own Python queries, run alongside the grammar's tags.scm.
; The shipped file has no class attributes, no inheritance and no imports.

(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))

(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.inherit

(import_statement) @import
(import_from_statement) @import
