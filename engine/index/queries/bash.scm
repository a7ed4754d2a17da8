; Fourfold's Bash queries (the wheel ships no tags.scm): functions, top-level and exported
; variables, commands as calls, and `source` / `.` as module edges.

(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)

(command name: (command_name (word) @name)) @reference.call

(command
  name: (command_name (word) @_source)
  argument: (_) @import
  (#any-of? @_source "source" "." "\\."))
