; Fourfold's Common Lisp queries (the pack ships no tags.scm): `defun`, `defgeneric` and `defmethod`
; functions, `defmacro` macros, `defclass` classes, `defstruct` structs, `defvar`/`defparameter`
; variables, `defconstant` constants and `defpackage` modules; list heads and `#'f` are references.

(list_lit
  (defun (defun_header keyword: (defun_keyword) @_keyword function_name: (_) @name))
  (#any-of? @_keyword "defun" "defgeneric" "defmethod")) @definition.function
(list_lit
  (defun (defun_header keyword: (defun_keyword) @_keyword function_name: (_) @name))
  (#eq? @_keyword "defmacro")) @definition.macro
(list_lit
  . (sym_lit) @_form
  . (sym_lit) @name
  (#eq? @_form "defclass")) @definition.class
(list_lit
  . (sym_lit) @_form
  . [(sym_lit) @name (list_lit . (sym_lit) @name)]
  (#eq? @_form "defstruct")) @definition.struct
(list_lit
  . (sym_lit) @_form
  . (sym_lit) @name
  (#any-of? @_form "defvar" "defparameter")) @definition.variable
(list_lit
  . (sym_lit) @_form
  . (sym_lit) @name
  (#eq? @_form "defconstant")) @definition.constant
(list_lit
  . (sym_lit) @_form
  . [(kwd_lit (kwd_symbol) @name) (sym_lit) @name]
  (#eq? @_form "defpackage")) @definition.module

(list_lit . (sym_lit) @name) @reference.call
(var_quoting_lit value: (sym_lit) @name) @reference.value
