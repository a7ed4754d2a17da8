; Fourfold's Swift queries, ahead of the wheel's tags.scm (which tags a class as each of its
; methods): one kind per declaration keyword, extensions as containers, calls, conformances, imports.

(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name)) @container.impl
(class_declaration name: (type_identifier) @name) @definition.class
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.constructor
(typealias_declaration name: (type_identifier) @name) @definition.type
(enum_entry name: (simple_identifier) @name) @definition.enum_member
(source_file (property_declaration name: (pattern (simple_identifier) @name)) @definition.variable)
(class_body (property_declaration name: (pattern (simple_identifier) @name)) @definition.property)
(protocol_property_declaration name: (pattern (simple_identifier) @name)) @definition.property

(call_expression . (simple_identifier) @name) @reference.call
(call_expression . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call
(inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.inherit

(import_declaration (identifier) @import)
