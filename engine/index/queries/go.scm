; Fourfold's own Go queries: kinds for struct/interface types, methods with their receiver type as
; container, package-level constants and variables, imports.

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method

(method_elem
  name: (field_identifier) @name) @definition.method

(field_declaration_list
  (field_declaration
    name: (field_identifier) @name) @definition.field)

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

(import_spec path: (interpreted_string_literal) @import)
