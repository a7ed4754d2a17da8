; Fourfold's C# queries. The C# grammar wheel ships no tags.scm, so this file is the whole story.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.namespace
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.namespace
(delegate_declaration name: (identifier) @name) @definition.type
(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name))) @definition.field

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression
  function: (member_access_expression name: (identifier) @name)) @reference.call
(object_creation_expression type: (identifier) @name) @reference.class

(base_list (identifier) @name) @reference.inherit
(base_list (generic_name (identifier) @name)) @reference.inherit
(base_list (qualified_name name: (identifier) @name)) @reference.inherit

(using_directive) @import

(enum_member_declaration name: (identifier) @name) @definition.enum_member
