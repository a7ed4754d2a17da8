; Fourfold's Zig queries (the wheel ships no tags.scm): a `const` bound to a struct, enum, union or
; error set is that type; functions inside one are its methods; other top-level bindings are
; constants or variables; `@import("x.zig")` is a module edge.

(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (opaque_declaration)) @definition.struct
(variable_declaration (identifier) @name (union_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (error_set_declaration)) @definition.enum
(function_declaration name: (identifier) @name) @definition.function
(enum_declaration (container_field name: (identifier) @name) @definition.enum_member)
(error_set_declaration (identifier) @name @definition.enum_member)
(container_field name: (identifier) @name) @definition.field
(test_declaration (string (string_content) @name)) @definition.function

(source_file
  (variable_declaration "const" . (identifier) @name (_) @_value .
  (#not-match? @_value "^@import")) @definition.constant)
(source_file
  (variable_declaration "var" . (identifier) @name) @definition.variable)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression member: (identifier) @name)) @reference.call

(builtin_function
  (builtin_identifier) @_import
  (arguments (string (string_content) @import))
  (#eq? @_import "@import"))
