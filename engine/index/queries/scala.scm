; Fourfold's Scala queries, ahead of the wheel's tags.scm: enum cases are members, objects are
; classes, `extension` blocks and givens are containers, imports are dotted paths.

(simple_enum_case name: (identifier) @name) @definition.enum_member
(full_enum_case name: (identifier) @name) @definition.enum_member
(object_definition name: (identifier) @name) @definition.class
(extension_definition) @container.impl
(function_declaration name: (identifier) @name) @definition.method
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.constant)

(call_expression function: (field_expression field: (identifier) @name)) @reference.call
(extends_clause type: (type_identifier) @name) @reference.inherit
(extends_clause type: (generic_type type: (type_identifier) @name)) @reference.inherit

(import_declaration) @import
