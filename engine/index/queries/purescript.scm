; Fourfold's PureScript queries (the pack ships no tags.scm), after Haskell's: the module (its
; definitions are qualified by it), top-level functions with their signatures (one symbol per name),
; foreign imports, data types with their constructors, newtypes, type synonyms, classes with their
; methods, instances as containers of theirs; applications are calls, other uses of values and
; types references, imports module edges.

(purescript name: (qualified_module) @name) @definition.module
(purescript (signature name: (variable) @name) @definition.function)
(purescript (function name: (variable) @name) @definition.function)
(foreign_import name: (variable) @name) @definition.function
(data name: (type) @name) @definition.type
(data (constructor) @name @definition.enum_member)
(newtype name: (type) @name) @definition.type
(type_alias name: (type) @name) @definition.type
(class_declaration (class_head (class_name (type) @name))) @definition.interface
(class_body (signature name: (variable) @name) @definition.method)
(class_instance (instance_name) @name) @container.impl
(class_instance (function name: (variable) @name) @definition.method)

(exp_apply . (exp_name [(variable) @name (qualified_variable (variable) @name)])) @reference.call
(exp_name [(variable) @name (qualified_variable (variable) @name) (constructor) @name]) @reference.value
(type_name (type) @name) @reference.type

(import module: (qualified_module) @import)
