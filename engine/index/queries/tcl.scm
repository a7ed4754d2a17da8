; Fourfold's Tcl queries (the pack ships no tags.scm): `proc` procedures (a qualified `::ns::name` is
; `name` in `ns`), `namespace eval` namespaces as containers, TclOO `oo::class create` classes and their
; `method`s; every command word is a call (the language's own commands aside); `source file.tcl` is a
; file edge.

(procedure name: (simple_word) @name) @definition.function
(namespace
  (word_list . (simple_word) @_eval . (simple_word) @name)
  (#eq? @_eval "eval")) @definition.namespace
(command
  name: (simple_word) @_class
  arguments: (word_list . (simple_word) @_create . (simple_word) @name)
  (#eq? @_class "oo::class")
  (#eq? @_create "create")) @definition.class
(command
  name: (simple_word) @_method
  arguments: (word_list . (simple_word) @name)
  (#eq? @_method "method")) @definition.method

(command name: (simple_word) @name) @reference.call

(command
  name: (simple_word) @_source
  arguments: (word_list . (simple_word) @import)
  (#eq? @_source "source"))
