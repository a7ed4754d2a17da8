; Fourfold's SQL queries (the wheel ships no tags.scm): what CREATE statements create, with their
; columns as fields, and the tables and functions a statement uses as references and calls.

(create_table (object_reference name: (identifier) @name)) @definition.struct
(create_view (object_reference name: (identifier) @name)) @definition.struct
(create_materialized_view (object_reference name: (identifier) @name)) @definition.struct
(create_function (object_reference name: (identifier) @name)) @definition.function
(create_procedure (object_reference name: (identifier) @name)) @definition.function
(create_trigger (object_reference name: (identifier) @name)) @definition.function
(create_type (object_reference name: (identifier) @name)) @definition.type
(create_schema (identifier) @name) @definition.namespace
(column_definition name: (identifier) @name) @definition.field

(relation (object_reference name: (identifier) @name)) @reference.type
(invocation (object_reference name: (identifier) @name)) @reference.call
