; The `<script>` of a Vue or Svelte component, read with the JavaScript/TypeScript grammar on top of their
; own queries: a top-level `let` or `var` is the component's state (the template reads and sets it), and a
; Svelte `export let` is a property the component takes. Plain JavaScript files do not get these: there a
; top-level `let` is rarely what a question asks for.

(program
  (export_statement
    declaration: (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.property)))
(program (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
