; Fourfold's own C++ queries: classes, structs, enums, namespaces, aliases, macros, calls,
; base classes and includes.

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
; `namespace absl { using std::string_view; }`: the namespace re-exports a name, which is how a C++
; library gives a standard type or function its own name (absl::string_view, absl::optional).
(namespace_definition body: (declaration_list
  (using_declaration (qualified_identifier name: [(identifier) (type_identifier)] @name)) @definition.type))
(namespace_definition body: (declaration_list
  (using_declaration (qualified_identifier name: (qualified_identifier
    name: [(identifier) (type_identifier)] @name))) @definition.type))
(namespace_definition body: (declaration_list
  (using_declaration (qualified_identifier name: (qualified_identifier name: (qualified_identifier
    name: [(identifier) (type_identifier)] @name)))) @definition.type))
; The same after a macro line (`ABSL_NAMESPACE_BEGIN`), which the grammar reads as the start of a
; declaration whose declarator is `using std::string_view`: its scope is the word `using`.
(namespace_definition body: (declaration_list
  (declaration type: (type_identifier)
    declarator: (qualified_identifier scope: (namespace_identifier) @_using name: (identifier) @name)
    (#eq? @_using "using")) @definition.type))
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
; `extern int level;`, a namespace's `constexpr int kMax = 3;`); a body's locals are not at this level.
(translation_unit
  (declaration (type_qualifier) @_const declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant
  (#match? @_const "^const"))
(declaration_list
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
(declaration_list
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
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call

(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (qualified_identifier name: (type_identifier) @name)) @reference.inherit

(preproc_include path: (_) @import)
