; Fourfold's Perl queries (the wheel ships no tags.scm): packages are modules whose subs are their
; functions, calls and method calls, and `use` / `require` of a package as module edges.

(package_statement name: (package) @name) @definition.module
(subroutine_declaration_statement name: (bareword) @name) @definition.function
(method_declaration_statement name: (bareword) @name) @definition.method
(class_statement name: (package) @name) @definition.class

(function_call_expression function: (function) @name) @reference.call
(ambiguous_function_call_expression function: (function) @name) @reference.call
(method_call_expression method: (method) @name) @reference.call

(use_statement module: (package) @import)
(require_expression (bareword) @import)
