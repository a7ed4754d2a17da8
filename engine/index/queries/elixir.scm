; Fourfold's Elixir queries, ahead of the wheel's tags.scm: macros, protocols, protocol
; implementations as containers, and alias/import/require/use as module edges.

(call
  target: (identifier) @_keyword
  (arguments
    [(identifier) @name
     (call target: (identifier) @name)
     (binary_operator left: (call target: (identifier) @name) operator: "when")])
  (#any-of? @_keyword "defmacro" "defmacrop" "defguard" "defguardp")) @definition.macro

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#eq? @_keyword "defimpl")) @container.impl

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#eq? @_keyword "defprotocol")) @definition.interface

(call
  target: (identifier) @_keyword
  (arguments . [(alias) (dot)] @import)
  (#any-of? @_keyword "alias" "import" "require" "use"))

; Typespecs and behaviour callbacks: `@type t :: …`, `@typep state(a) :: …`, `@opaque token :: …` define types;
; `@callback connect(params, socket) :: result` declares a function every implementation of the behaviour defines.
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_attribute
    (arguments (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::")))
  (#any-of? @_attribute "type" "typep" "opaque")) @definition.type
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_attribute
    (arguments [
      (binary_operator left: (call target: (identifier) @name) operator: "::")
      (binary_operator left: (binary_operator left: (call target: (identifier) @name) operator: "::") operator: "when")
    ]))
  (#any-of? @_attribute "callback" "macrocallback")) @definition.function
