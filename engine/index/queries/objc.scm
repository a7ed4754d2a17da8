; Fourfold's Objective-C queries (the wheel ships no tags.scm): interfaces are classes, their
; @implementation a container of the methods it defines, protocols, C functions, structs, enums,
; macros and typedefs, message sends and calls, #import / #include.

(class_interface . (identifier) @name) @definition.class
(class_implementation . (identifier) @name) @container.impl
(protocol_declaration . (identifier) @name) @definition.interface
(method_declaration (identifier) @name) @definition.method
(method_definition (identifier) @name) @definition.method
(property_declaration (struct_declaration (struct_declarator (identifier) @name))) @definition.property
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(message_expression method: (identifier) @name) @reference.call
(call_expression function: (identifier) @name) @reference.call
(class_interface superclass: (identifier) @name) @reference.inherit

(preproc_include path: (_) @import)
