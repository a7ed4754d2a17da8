; Fourfold's Solidity queries, ahead of the wheel's tags.scm: events, modifiers, state variables,
; structs and enums with their kinds, and `import "x.sol"` as a module edge.

(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(event_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(state_variable_declaration name: (identifier) @name) @definition.field
(inheritance_specifier ancestor: (user_defined_type (identifier) @name)) @reference.inherit

(import_directive source: (string) @import)
