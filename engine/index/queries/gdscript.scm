; Fourfold's GDScript (Godot) queries (the pack ships no tags.scm): the script's `class_name`, inner
; classes, functions (methods inside an inner class), constants, signals, enums with their members,
; script-level variables and inner classes' fields; calls (`f()`, `a.f()`) are references and
; `extends` an inheritance; `extends "res://…"`, `preload`/`load("res://…")` are file edges.

(class_name_statement name: (name) @name) @definition.class
(class_definition name: (name) @name) @definition.class
(function_definition name: (name) @name) @definition.function
(const_statement name: (name) @name) @definition.constant
(signal_statement name: (name) @name) @definition.property
(enum_definition name: (name) @name) @definition.enum
(enumerator left: (identifier) @name) @definition.enum_member
(source (variable_statement name: (name) @name) @definition.variable)
(class_body (variable_statement name: (name) @name) @definition.field)

(call . (identifier) @name) @reference.call
(attribute_call . (identifier) @name) @reference.call
(extends_statement (type (identifier) @name)) @reference.inherit

(extends_statement (string) @import)
(call
  . (identifier) @_load
  (arguments . (string) @import)
  (#any-of? @_load "preload" "load"))
