; Fourfold's HCL / Terraform queries (the wheel ships no tags.scm): a block's last label names what it
; declares (`resource "aws_instance" "web"` -> web), by block type; `var.x` / `local.x` / `module.x`
; are references, function calls are calls, and a module's `source` is a module edge.

(block (identifier) @_type (string_lit (template_literal) @name) . (block_start)
  (#any-of? @_type "variable" "output")) @definition.variable
(block (identifier) @_type (string_lit (template_literal) @name) . (block_start)
  (#eq? @_type "module")) @definition.module
(block (identifier) @_type (string_lit (template_literal) @name) . (block_start)
  (#any-of? @_type "resource" "data")) @definition.class
(block (identifier) @_type (string_lit (template_literal) @name) . (block_start)
  (#eq? @_type "provider")) @definition.namespace
(block (identifier) @_locals (body (attribute (identifier) @name) @definition.variable)
  (#eq? @_locals "locals"))

(expression (variable_expr (identifier) @_root) . (get_attr (identifier) @name)
  (#any-of? @_root "var" "local" "module" "data")) @reference.value
(function_call (identifier) @name) @reference.call

(block
  (identifier) @_module
  (body (attribute (identifier) @_source (expression (literal_value (string_lit (template_literal) @import)))))
  (#eq? @_module "module")
  (#eq? @_source "source"))
