; Fourfold's Clojure queries (the pack ships no tags.scm). Clojure's grammar reads every form as a list,
; so definitions are lists whose head names a defining form: `defn`/`defn-`/`defmulti` functions,
; `defmethod` methods, `defmacro` macros, `def`/`defonce` values, `defprotocol`/`definterface`
; interfaces with their method signatures, `defrecord`/`deftype` classes with their method bodies,
; and `ns` the module. The head of every other list is a call; `ns`'s `:require`/`:use` name modules.

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#any-of? @_form "defn" "defn-" "defmulti" "deftest" "s/defn" "s/fdef")) @definition.function

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#eq? @_form "defmethod")) @definition.method

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#eq? @_form "defmacro")) @definition.macro

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#any-of? @_form "def" "defonce")) @definition.variable

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#any-of? @_form "defprotocol" "definterface")) @definition.interface

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#any-of? @_form "defrecord" "deftype")) @definition.class

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit)
  (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit)) @definition.method
  (#any-of? @_form "defprotocol" "definterface" "defrecord" "deftype"))

(list_lit
  . (sym_lit name: (sym_name) @_form)
  . (sym_lit name: (sym_name) @name)
  (#eq? @_form "ns")) @definition.module

(list_lit . (sym_lit name: (sym_name) @name)) @reference.call

(list_lit
  . (sym_lit name: (sym_name) @_ns)
  (list_lit
    . (kwd_lit name: (kwd_name) @_require)
    [(sym_lit) @import (vec_lit . (sym_lit) @import)])
  (#eq? @_ns "ns")
  (#any-of? @_require "require" "use"))
