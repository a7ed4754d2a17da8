; Fourfold's OCaml queries, ahead of the wheel's tags.scm: `open M` and module aliases as edges.

(open_module module: (module_path (module_name) @import))
(module_binding body: (module_path) @import)
