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
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call

(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (qualified_identifier name: (type_identifier) @name)) @reference.inherit

(preproc_include path: (_) @import)
