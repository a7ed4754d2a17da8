; Fourfold's Pascal and Delphi queries (the pack ships no tags.scm): units and programs as modules,
; classes (records are structs), interfaces, enumerations with their values, other types, fields,
; routines (a `TShape.Describe` body is a method of TShape; a declaration in a class or an interface
; section is one too), constants and unit-level variables; calls are references; `uses` names units.

[(unit (moduleName) @name) (program (moduleName) @name) (library (moduleName) @name)] @definition.module
(declType name: (_) @name type: (declClass (kRecord))) @definition.struct
(declType name: (_) @name type: (declClass)) @definition.class
(declType name: (_) @name type: (declIntf)) @definition.interface
(declType name: (_) @name type: (type (declEnum))) @definition.enum
(declType name: (_) @name) @definition.type
(declEnumValue name: (identifier) @name) @definition.enum_member
(declField name: (identifier) @name) @definition.field
(defProc header: (declProc name: (genericDot lhs: (identifier) @receiver rhs: (identifier) @name))) @definition.method
(defProc header: (declProc name: (identifier) @name)) @definition.function
(declProc name: (identifier) @name) @definition.function
(declConst name: (identifier) @name) @definition.constant
[(unit (_ (declVars (declVar name: (identifier) @name) @definition.variable)))
 (program (declVars (declVar name: (identifier) @name) @definition.variable))]

(exprCall entity: [(identifier) @name (exprDot rhs: (identifier) @name)]) @reference.call

(declUses (moduleName) @import)
