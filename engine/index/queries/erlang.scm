; Fourfold's Erlang queries (the pack ships no tags.scm): functions (the grammar makes each clause its
; own declaration; consecutive clauses of one name become one symbol), the module, records and their
; fields, types, macros and callbacks, all qualified by the module; local and remote calls (`m:f` as
; `m.f`), `fun f/1` values, macro and record uses as references; `-include`, `-include_lib`,
; `-behaviour`, `-import` and the module of every remote call (`kv_util:first(…)` depends on
; `kv_util.erl`) as module edges.

(fun_decl (function_clause name: (atom) @name)) @definition.function
(module_attribute name: (atom) @name) @definition.module
(record_decl name: (atom) @name) @definition.struct
(record_decl (record_field name: (atom) @name) @definition.field)
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type
(pp_define lhs: (macro_lhs name: (_) @name)) @definition.macro
(callback fun: (atom) @name) @definition.function

(call expr: (atom) @name) @reference.call
; `kv_util:first(…)` calls `kv_util.first`; with a variable or macro for the module, the name alone.
(call expr: (remote module: (remote_module module: (atom) @qualifier) fun: (atom) @name)) @reference.call
(call expr: (remote fun: (atom) @name)) @reference.call
(internal_fun fun: (atom) @name) @reference.value
(external_fun fun: (atom) @name) @reference.value
(macro_call_expr name: (_) @name) @reference.value
(record_expr name: (record_name name: (atom) @name)) @reference.value
(record_field_expr name: (record_name name: (atom) @name)) @reference.value

(pp_include file: (string) @import)
(pp_include_lib file: (string) @import)
(behaviour_attribute name: (atom) @import)
(import_attribute module: (atom) @import)
(remote module: (remote_module module: (atom) @import))
(external_fun module: (module name: (atom) @import))
