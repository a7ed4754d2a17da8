; Fourfold's Kotlin queries (the wheel ships no tags.scm): classes, interfaces, enums, objects,
; functions (members become methods by nesting), properties, type aliases, calls, supertypes, imports.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  (modifiers (class_modifier) @_enum)
  name: (identifier) @name
  (#eq? @_enum "enum")) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(enum_entry . (identifier) @name) @definition.enum_member
(secondary_constructor) @definition.constructor
(function_declaration name: (identifier) @name) @definition.function
(type_alias type: (identifier) @name) @definition.type

(source_file
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (identifier) @name)
    (#eq? @_const "const")) @definition.constant)
(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
(class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(class_parameter
  (modifiers)? . (identifier) @name) @definition.property

(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call
(delegation_specifier (user_type . (identifier) @name)) @reference.inherit
(delegation_specifier (constructor_invocation (user_type . (identifier) @name))) @reference.inherit
(user_type . (identifier) @name) @reference.type

(import (qualified_identifier) @import)
