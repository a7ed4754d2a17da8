; Fourfold's Ada queries (the pack ships no tags.scm): packages (spec and body) as modules containing
; their subprograms (bodies, and declarations in a spec), records with their components, enumerations
; with their literals, other types, named numbers as constants and package-level objects as variables;
; function and procedure calls (`Stacks.Push (…)` too) are calls; `with` clauses name library units.

(package_declaration name: (_) @name) @definition.module
(package_body name: (_) @name) @definition.module
(subprogram_body [(procedure_specification name: (_) @name) (function_specification name: (_) @name)]) @definition.function
(subprogram_declaration [(procedure_specification name: (_) @name) (function_specification name: (_) @name)]) @definition.function
(full_type_declaration . (identifier) @name (record_type_definition)) @definition.struct
(full_type_declaration . (identifier) @name (enumeration_type_definition)) @definition.enum
(enumeration_type_definition (identifier) @name @definition.enum_member)
(full_type_declaration . (identifier) @name) @definition.type
(component_declaration . (identifier) @name) @definition.field
(number_declaration . (identifier) @name) @definition.constant
(package_declaration (object_declaration name: (identifier) @name) @definition.variable)

(function_call name: [(identifier) @name (selected_component selector_name: (identifier) @name)]) @reference.call
(procedure_call_statement name: [(identifier) @name (selected_component selector_name: (identifier) @name)]) @reference.call

(with_clause (_) @import)
