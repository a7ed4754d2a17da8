; Fourfold's own JavaScript queries: constructors, class fields, constants, inheritance, imports.

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

; A class field holding a function (`handleClick = () => {…}`) is a method, not a field (first, so
; it wins over the plain field pattern below).
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(field_definition
  property: (property_identifier) @name) @definition.field

(program
  (lexical_declaration
    "const"
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (true) (false)
              (null) (binary_expression) (new_expression) (call_expression)
              (member_expression) (identifier) (regex)]) @definition.constant))

; `export const router = new Builder()` is a definition too.
(program
  (export_statement
  declaration: (lexical_declaration
    "const"
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (true) (false)
              (null) (binary_expression) (new_expression) (call_expression)
              (member_expression) (identifier) (regex)]) @definition.constant)))

(class_heritage (identifier) @name) @reference.inherit
(class_heritage (member_expression property: (property_identifier) @name)) @reference.inherit

(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import)
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string) @import))
