; Fourfold's Groovy queries (the wheel ships no tags.scm): the Java-shaped declarations, script
; functions, method invocations as calls, supertypes, imports.

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(function_definition name: (identifier) @name) @definition.function
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field

(method_invocation name: (identifier) @name) @reference.call
(superclass (type_identifier) @name) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit

(import_declaration (scoped_identifier) @import)
