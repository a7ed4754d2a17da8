; Fourfold's own Rust queries: precise kinds (the shipped tags call structs, enums and aliases
; "class"), impl blocks as containers, trait signatures, constants, inheritance and imports.

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(function_signature_item name: (identifier) @name) @definition.method
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

(field_declaration_list
  (field_declaration name: (field_identifier) @name) @definition.field)

(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (scoped_type_identifier name: (type_identifier) @name)]) @container.impl

(impl_item
  trait: [(type_identifier) @name
          (generic_type type: (type_identifier) @name)
          (scoped_type_identifier name: (type_identifier) @name)]) @reference.inherit

(call_expression
  function: (scoped_identifier name: (identifier) @name)) @reference.call

(use_declaration argument: (_) @import)
(mod_item name: (identifier) @import !body)

(enum_variant name: (identifier) @name) @definition.enum_member
(macro_definition name: (identifier) @name) @definition.macro
