; Fourfold's Verilog and SystemVerilog queries (the pack ships no tags.scm): modules, interfaces,
; packages, classes with their properties and methods, functions, tasks, typedefs and parameters;
; a module instantiation is a call to the module (the design's hierarchy), function and task calls
; are calls, `extends` an inheritance; `` `include "x.svh" `` and `import pkg::*;` are module edges.

(module_declaration (module_header (simple_identifier) @name)) @definition.module
(interface_declaration (_ (interface_identifier (simple_identifier) @name))) @definition.interface
(package_declaration (package_identifier (simple_identifier) @name)) @definition.namespace
(class_declaration . (class_identifier (simple_identifier) @name)) @definition.class
(class_property
  (data_declaration (list_of_variable_decl_assignments (variable_decl_assignment . (simple_identifier) @name)))) @definition.field
(function_declaration
  (function_body_declaration
    (function_identifier [(simple_identifier) @name (function_identifier (simple_identifier) @name)]))) @definition.function
(task_declaration
  (task_body_declaration
    (task_identifier [(simple_identifier) @name (task_identifier (simple_identifier) @name)]))) @definition.function
(type_declaration (simple_identifier) @name) @definition.type
(param_assignment (parameter_identifier (simple_identifier) @name)) @definition.constant

(module_instantiation . (simple_identifier) @name) @reference.call
(tf_call . (simple_identifier) @name) @reference.call
(class_declaration (class_type (class_identifier (simple_identifier) @name))) @reference.inherit

(include_compiler_directive (double_quoted_string) @import)
(package_import_item (package_identifier (simple_identifier) @import))
