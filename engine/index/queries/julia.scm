; Fourfold's Julia queries (the wheel ships no tags.scm): modules, long and short function forms,
; structs, abstract types, constants, macros, calls, and `include` / `using` / `import` edges.

(module_definition name: (identifier) @name) @definition.module
(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(function_definition (signature (call_expression . (field_expression (identifier) @name .)))) @definition.function
(assignment . (call_expression . (identifier) @name) (operator) @_eq (#eq? @_eq "=")) @definition.function
(struct_definition (type_head (identifier) @name)) @definition.struct
(struct_definition (type_head (binary_expression . (identifier) @name))) @definition.struct
(abstract_definition (type_head (identifier) @name)) @definition.type
(abstract_definition (type_head (binary_expression . (identifier) @name))) @definition.type
(const_statement (assignment . (identifier) @name)) @definition.constant
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro

(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.call
(macrocall_expression (macro_identifier (identifier) @name)) @reference.call

(call_expression
  . (identifier) @_include
  (argument_list . (string_literal (content) @import))
  (#eq? @_include "include"))
(using_statement (identifier) @import)
(import_statement (identifier) @import)
