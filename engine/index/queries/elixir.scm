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
