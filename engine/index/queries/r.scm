; Fourfold's R queries (the pack ships no tags.scm): `name <- function(…)` and `name = function(…)` are
; functions, R6 and reference classes are classes with their methods, S4 `setClass`/`setGeneric`/
; `setMethod` name a class, a generic and a method of a class, top-level literals are constants
; (SHOUTING ones; the rest variables), calls and functions passed by name are references, and
; `source("file.R")` is a file edge (`library(pkg)` names an installed package: nothing to resolve).

(binary_operator
  lhs: [(identifier) (string (string_content))] @name
  operator: ["<-" "<<-" "=" ":="]
  rhs: (function_definition)) @definition.function

(binary_operator
  lhs: (function_definition)
  operator: "->"
  rhs: (identifier) @name) @definition.function

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "="]
  rhs: (call function: [(identifier) (namespace_operator rhs: (identifier))] @_maker)
  (#match? @_maker "(^|:)(R6Class|setRefClass)$")) @definition.class

(call
  function: [(identifier) (namespace_operator rhs: (identifier))] @_maker
  arguments: (arguments
    (argument
      value: (call
        arguments: (arguments
          (argument name: (identifier) @name value: (function_definition)) @definition.method))))
  (#match? @_maker "(^|:)(R6Class|setRefClass)$"))

(call
  function: (identifier) @_maker
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#any-of? @_maker "setClass" "setRefClass" "setClassUnion")) @definition.class

(call
  function: (identifier) @_maker
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#eq? @_maker "setGeneric")) @definition.function

(call
  function: (identifier) @_maker
  arguments: (arguments
    . (argument value: (string (string_content) @name))
    . (comma)
    . (argument value: (string (string_content) @receiver)))
  (#eq? @_maker "setMethod")) @definition.method

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "="]
    rhs: [(float) (integer) (string) (true) (false)]) @definition.constant)

(call function: (identifier) @name) @reference.call
(call function: (namespace_operator rhs: (identifier) @name)) @reference.call
(argument value: (identifier) @name) @reference.value

(call
  function: (identifier) @_source
  arguments: (arguments . (argument value: (string (string_content) @import)))
  (#any-of? @_source "source" "sys.source"))
