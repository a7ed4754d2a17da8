; Fourfold's own PHP queries: methods, traits, enums, namespaces, constants, inheritance, imports.

(method_declaration name: (name) @name) @definition.method
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name) @definition.namespace
(const_declaration (const_element (name) @name)) @definition.constant

(base_clause [(name) @name (qualified_name (name) @name)]) @reference.inherit
(class_interface_clause [(name) @name (qualified_name (name) @name)]) @reference.inherit

(namespace_use_declaration) @import
(require_expression (_) @import)
(require_once_expression (_) @import)
(include_expression (_) @import)
(include_once_expression (_) @import)

; tree-sitter-php 0.25 puts a plain `name` under calls and `new`, which the shipped tags miss.
(function_call_expression function: (name) @name) @reference.call
(object_creation_expression (name) @name) @reference.class

(enum_case name: (name) @name) @definition.enum_member
