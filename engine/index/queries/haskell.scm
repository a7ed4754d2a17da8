; Fourfold's Haskell queries (the wheel ships no tags.scm): signatures and equations of top-level
; functions (one symbol per name: repeated clauses are merged), data types, newtypes, synonyms,
; classes, instances as containers, applications as calls, imports.

(header module: (module) @name) @definition.module
(declarations (signature name: (variable) @name) @definition.function)
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(class_declarations (signature name: (variable) @name) @definition.method)
(instance_declarations (function name: (variable) @name) @definition.method)
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(instance name: (name) @name) @container.impl
(data_constructor constructor: (prefix name: (constructor) @name)) @definition.enum_member
(data_constructor constructor: (record name: (constructor) @name)) @definition.enum_member
(field name: (field_name (variable) @name)) @definition.field

(apply function: (variable) @name) @reference.call
(apply function: (qualified (variable) @name)) @reference.call
(infix left_operand: (variable) @name) @reference.value

(import module: (module) @import)
