; Fourfold's own C queries: precise kinds for structs, unions and enums, macros, includes.

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member

; Struct and class data members (ctags' "member"), through pointer, array and bit-field declarators; a
; member function's prototype has a function declarator, which the shipped tags match instead.
(field_declaration declarator: [
  (field_identifier) @name
  (pointer_declarator declarator: (field_identifier) @name)
  (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
  (array_declarator declarator: (field_identifier) @name)
  (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
]) @definition.field
; File-scope constants and variables (`static const char *names[] = {…}`, `int counter = 0;`, a header's
; `extern int level;`); a body's locals are not at this level.
(translation_unit
  (declaration (type_qualifier) @_const declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant
  (#match? @_const "^const"))
(translation_unit
  (declaration declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.variable)
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call

(preproc_include path: (_) @import)
