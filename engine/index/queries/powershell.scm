; Fourfold's PowerShell queries (the wheel ships no tags.scm): functions, classes with methods and
; properties, enums, commands as calls, and dot-sourcing / Import-Module as module edges.

(function_statement (function_name) @name) @definition.function
(class_statement . (simple_name) @name) @definition.class
(class_method_definition (simple_name) @name) @definition.method
(class_property_definition (variable) @name) @definition.property
(enum_statement . (simple_name) @name) @definition.enum
(enum_member (simple_name) @name) @definition.enum_member

(command command_name: (command_name) @name) @reference.call

(command (command_invokation_operator) command_name: (command_name_expr (command_name) @import))
(command
  command_name: (command_name) @_import
  command_elements: (command_elements (generic_token) @import)
  (#any-of? @_import "Import-Module" "import-module"))
