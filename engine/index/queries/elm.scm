; Fourfold's Elm queries (the pack ships no tags.scm): top-level values and functions with their type
; annotations (an annotation and its equation are one symbol, as in Haskell), ports, custom types with
; their variants, type aliases with their record fields, and the module; applications are calls,
; other uses of values, constructors and types references, and imports module edges.

(module_declaration name: (upper_case_qid) @name) @definition.module
(file (type_annotation name: (lower_case_identifier) @name) @definition.function)
(file
  (value_declaration
    functionDeclarationLeft: (function_declaration_left . (lower_case_identifier) @name)) @definition.function)
(port_annotation name: (lower_case_identifier) @name) @definition.function
(type_declaration name: (upper_case_identifier) @name) @definition.type
(type_declaration (union_variant name: (upper_case_identifier) @name) @definition.enum_member)
(type_alias_declaration name: (upper_case_identifier) @name) @definition.type
(type_alias_declaration
  typeExpression: (type_expression (record_type (field_type name: (lower_case_identifier) @name) @definition.field)))

(function_call_expr target: (value_expr name: (value_qid (lower_case_identifier) @name .))) @reference.call
(value_expr name: (value_qid (lower_case_identifier) @name .)) @reference.value
(value_expr name: (upper_case_qid (upper_case_identifier) @name .)) @reference.value
(type_ref (upper_case_qid (upper_case_identifier) @name .)) @reference.type

(import_clause moduleName: (upper_case_qid) @import)
