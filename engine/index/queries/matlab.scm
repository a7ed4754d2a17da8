; Fourfold's MATLAB and Octave queries (the pack ships no tags.scm): functions (methods inside a
; `classdef`'s `methods` block, local functions too), classes and their properties; calls, commands
; and superclasses are references. A function's help text (the comment under its signature) is its doc.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(property name: (identifier) @name) @definition.property

(function_call name: (identifier) @name) @reference.call
(command (command_name) @name) @reference.call
(superclasses (property_name (identifier) @name)) @reference.inherit
