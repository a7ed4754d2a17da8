; Fourfold's Dart queries, ahead of the wheel's tags.scm: mixins and extensions are classes, enum
; constants members, top-level finals constants, and `import 'x.dart'` a module edge.

(mixin_declaration (mixin) (identifier) @name) @definition.class
(extension_declaration name: (identifier) @name) @definition.class
(enum_constant name: (identifier) @name) @definition.enum_member
(program (static_final_declaration_list (static_final_declaration (identifier) @name)) @definition.constant)

(import_specification (configurable_uri (uri (string_literal) @import)))
