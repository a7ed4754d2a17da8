; Fourfold's own TypeScript queries (TSX reads them too). The grammar's tags.scm only adds TS-specific nodes to the
; JavaScript tags (which Fourfold also loads); here: classes, aliases, enums, fields, inheritance, imports.

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

(class_declaration
  name: (type_identifier) @name) @definition.class

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

; A class field holding a function (`produce = (base, recipe) => {…}`) is how many TS classes write
; their methods: a method, not a field (first, so it wins over the plain field pattern below).
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(public_field_definition
  name: (property_identifier) @name) @definition.field

(property_signature
  name: (property_identifier) @name) @definition.property

(program
  (lexical_declaration
    "const"
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (true) (false)
              (null) (binary_expression) (new_expression) (call_expression)
              (member_expression) (identifier) (regex) (as_expression)]) @definition.constant))

; `export const router = new Builder()` is a definition too.
(program
  (export_statement
  declaration: (lexical_declaration
    "const"
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (true) (false)
              (null) (binary_expression) (new_expression) (call_expression)
              (member_expression) (identifier) (regex) (as_expression)]) @definition.constant)))

(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause value: (member_expression property: (property_identifier) @name)) @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit

(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import)
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string) @import))

(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_assignment name: (property_identifier) @name) @definition.enum_member
(abstract_class_declaration name: (type_identifier) @name) @definition.class
