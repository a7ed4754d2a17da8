; Fourfold's Nim queries (the pack ships no tags.scm): procs, funcs, iterators and converters are
; functions, templates and macros macros, `method`s methods of their first parameter's type; `ref object`
; types are classes, `object` and `tuple` types structs, enums with their members, concepts interfaces,
; other types types; object fields; `const` and top-level `var`/`let`. Calls (plain and `a.f()`) and
; type names are references; `import`, `from … import` and `include` name modules.

(method_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)]
  parameters: (parameter_declaration_list
    . (parameter_declaration type: (type_expression [(identifier) @receiver (ref_type (type_expression (identifier) @receiver))])))) @definition.method
(method_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.method
(proc_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(func_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(iterator_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(converter_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(template_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro
(macro_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro

(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (ref_type (object_declaration))) @definition.class
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  [(object_declaration) (type_expression (tuple_type))]) @definition.struct
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (enum_declaration)) @definition.enum
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (concept_declaration)) @definition.interface
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.type
(enum_field_declaration
  (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.enum_member
(field_declaration
  (symbol_declaration_list
    (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.field))

(const_section
  (variable_declaration
    (symbol_declaration_list
      . (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.constant)
(source_file
  (var_section
    (variable_declaration
      (symbol_declaration_list
        . (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.variable))
(source_file
  (let_section
    (variable_declaration
      (symbol_declaration_list
        . (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.variable))

(call function: (identifier) @name) @reference.call
(call function: (dot_expression right: (identifier) @name)) @reference.call
(type_expression (identifier) @name) @reference.type

(import_statement (expression_list (_) @import))
(import_from_statement module: (_) @import)
(include_statement (expression_list (_) @import))
(object_declaration inherits: (type_expression (identifier) @name)) @reference.inherit
