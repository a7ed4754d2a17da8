; Fourfold's Scheme and Racket queries (the pack ships no tags.scm; Racket's grammar has Scheme's node
; types): `(define (f …) …)` and `(define f (lambda …))` are functions, other `define`s values, `struct`,
; `define-struct` and `define-record-type` structs, `define-syntax(-rule)` macros, `module` modules;
; the head of every other list is a call, and `(require "file.rkt")` is a file edge.

(list
  . (symbol) @_form
  . (list . (symbol) @name)
  (#any-of? @_form "define" "define*" "define/public" "define/private" "define/override" "define/contract"
    "define-values")) @definition.function
(list
  . (symbol) @_form
  . (symbol) @name
  . (list . (symbol) @_lambda)
  (#any-of? @_form "define" "define/contract")
  (#any-of? @_lambda "lambda" "λ" "case-lambda")) @definition.function
(list
  . (symbol) @_form
  . (symbol) @name
  (#any-of? @_form "define" "define/contract")) @definition.variable
(list
  . (symbol) @_form
  . [(symbol) @name (list . (symbol) @name)]
  (#any-of? @_form "struct" "define-struct" "define-record-type")) @definition.struct
(list
  . (symbol) @_form
  . [(symbol) @name (list . (symbol) @name)]
  (#any-of? @_form "define-syntax" "define-syntax-rule" "define-macro" "define-simple-macro")) @definition.macro
(list
  . (symbol) @_form
  . (symbol) @name
  (#any-of? @_form "module" "module*" "module+" "define-library")) @definition.module

(list . (symbol) @name) @reference.call

(list
  . (symbol) @_require
  (string) @import
  (#eq? @_require "require"))
