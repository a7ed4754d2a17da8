; Fourfold's own Java queries: enums, records, constructors, fields, annotations, inheritance, imports.

(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.constructor

(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit

(import_declaration) @import

(enum_constant name: (identifier) @name) @definition.enum_member
