; Fourfold's D queries (the pack ships no tags.scm): functions (methods inside aggregates),
; constructors, classes, structs, unions, interfaces, enums with their members, templates, aliases,
; fields, module-level variables (`immutable`/`const`/`enum` ones constants) and the module; calls,
; `new T(…)` and base classes are references; `import a.b;` names a module.

(module_declaration (module_fqn) @name) @definition.module
(function_declaration (identifier) @name) @definition.function
(constructor (this) @name) @definition.constructor
(class_declaration (identifier) @name) @definition.class
(struct_declaration (identifier) @name) @definition.struct
(union_declaration (identifier) @name) @definition.struct
(interface_declaration (identifier) @name) @definition.interface
(enum_declaration (identifier) @name) @definition.enum
(enum_member (identifier) @name) @definition.enum_member
(template_declaration (identifier) @name) @definition.type
(alias_declaration (alias_initializer (identifier) @name)) @definition.type
(aggregate_body (variable_declaration (declarator . (identifier) @name)) @definition.field)
[(source_file (variable_declaration (type (type_ctor [(immutable) (const)])) (declarator . (identifier) @name)) @definition.constant)
 (module_def (variable_declaration (type (type_ctor [(immutable) (const)])) (declarator . (identifier) @name)) @definition.constant)]
[(source_file (variable_declaration (declarator . (identifier) @name)) @definition.variable)
 (module_def (variable_declaration (declarator . (identifier) @name)) @definition.variable)]

(call_expression . (identifier) @name) @reference.call
(call_expression . (type (identifier) @name .)) @reference.call
(new_expression (type (identifier) @name .)) @reference.call
(base_class (identifier) @name) @reference.inherit

(import_declaration (imported (module_fqn) @import))
