"""Import resolution: which workspace files an import statement refers to.

The user sees this as import edges in the graph: "what depends on settings.py" lists the files that
import it, and a call to a name imported from another file resolves to that file's definition rather
than to a same-named function elsewhere. Resolution is by path arithmetic only (no interpreter, no
compiler, no package manager), so an import of an external package resolves to nothing, and a
workspace whose layout we do not understand still gets text and structure search.

Specifiers arrive normalised by the structural pass (see `records.ParsedFile.imports`):
Python `a.b`, `.m.x`, `..z`; JS/TS module strings; Go import paths; Rust `crate::a::b`, `super::x`,
`self::y`, `mod:foo`; Java/C# dotted names; C/C++ `foo.h` and `<foo.h>`; Ruby require arguments;
PHP `A\\B`; Kotlin/Scala/Haskell/Elixir dotted module names; Lua `require` paths; Zig and shell
relative file paths; Perl `A::B`; Dart `package:` URIs; OCaml unit names; Terraform module sources;
R `source()` paths; Erlang module names and `.hrl` includes; Clojure, Elm and D dotted namespaces;
Nim and Gleam slash paths; Vue and Svelte script imports as JS's.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# Extensions tried, in order, for an extensionless JS/TS module path (Node + TypeScript resolution).
JS_EXTENSIONS: tuple[str, ...] = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")
PYTHON_EXTENSIONS: tuple[str, ...] = (".py", ".pyi")
# File stems that stand for their folder (a package's entry file): they make the folder name a key.
FOLDER_STEMS = frozenset({"__init__", "index", "mod", "lib", "main", "init"})
# Languages whose imports name a folder: every file there matters to them.
FOLDER_IMPORT_EXTENSIONS = frozenset({".go", ".java", ".cs", ".kt", ".scala"})
RUST_CRATE_ROOTS: tuple[str, ...] = ("lib.rs", "main.rs")

_KEY_SPLIT = re.compile(r"[./\\:<>@\-]+")


@dataclass
class FileSet:
    """The workspace's paths with the lookups resolution needs: by basename, by folder, folder by name.

    Built once per graph and updated in place as files come and go, so resolving one import is a
    few dictionary lookups instead of a scan of the workspace.
    """

    paths: set[str] = field(default_factory=set)
    by_name: dict[str, set[str]] = field(default_factory=dict)
    by_dir: dict[str, set[str]] = field(default_factory=dict)
    dirs_by_name: dict[str, set[str]] = field(default_factory=dict)
    # Answers of `with_suffix`, forgotten whenever a path comes or goes: thousands of files import
    # the same few modules, and a workspace-wide build asks for each of them once per importer.
    _suffixes: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    # Answers of `python_roots`, forgotten likewise: Django's 17k imports name 2.9k modules.
    _python_roots: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, paths: Iterable[str]) -> FileSet:
        files = cls()
        for path in paths:
            files.add(path)
        return files

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def add(self, path: str) -> None:
        if path in self.paths:
            return
        self.paths.add(path)
        self._suffixes.clear()
        self._python_roots.clear()
        folder, name = posixpath.split(path)
        self.by_name.setdefault(name, set()).add(path)
        self.by_dir.setdefault(folder, set()).add(path)
        self.dirs_by_name.setdefault(posixpath.basename(folder), set()).add(folder)

    def remove(self, path: str) -> None:
        if path not in self.paths:
            return
        self.paths.discard(path)
        self._suffixes.clear()
        self._python_roots.clear()
        folder, name = posixpath.split(path)
        _discard(self.by_name, name, path)
        _discard(self.by_dir, folder, path)
        if folder not in self.by_dir:
            _discard(self.dirs_by_name, posixpath.basename(folder), folder)

    def with_suffix(self, suffix: str) -> list[str]:
        """Files whose path is `suffix` or ends with `/suffix`, sorted.

        Generic names (`__init__.py`, `mod.rs`, `index.ts`) are shared by hundreds of files, so
        when the suffix names a folder too and that folder name is rarer, look it up by folder.
        """
        found = self._suffixes.get(suffix)
        if found is None:
            found = self._suffixes[suffix] = tuple(self._with_suffix(suffix))
        return list(found)

    def _with_suffix(self, suffix: str) -> list[str]:
        folder, name = posixpath.split(suffix)
        by_name = self.by_name.get(name, ())
        folders = self.dirs_by_name.get(posixpath.basename(folder), ()) if folder else ()
        if folder and len(folders) < len(by_name):
            return sorted(
                path for d in self.dirs_with_suffix(folder) if (path := posixpath.join(d, name)) in self.paths
            )
        tail = "/" + suffix
        return sorted(p for p in by_name if p == suffix or p.endswith(tail))

    def python_roots(self, parts: tuple[str, ...]) -> tuple[str, ...]:
        """Files the dotted module `parts` names from the root or from a folder that is not itself a
        package (`_python_module_anywhere`'s candidates, before it picks the closest)."""
        found = self._python_roots.get(parts)
        if found is None:
            found = self._python_roots[parts] = tuple(
                path
                for candidate in _python_candidates("", list(parts))
                for path in self.with_suffix(candidate)
                if (prefix := path[: len(path) - len(candidate)].rstrip("/")) == ""
                or not _is_python_package(prefix, self)
            )
        return found

    def dirs_with_suffix(self, suffix: str) -> list[str]:
        """Folders holding files whose path is `suffix` or ends with `/suffix`, sorted."""
        name = posixpath.basename(suffix)
        tail = "/" + suffix
        return sorted(d for d in self.dirs_by_name.get(name, ()) if d == suffix or d.endswith(tail))

    def first(self, candidates: Iterable[str]) -> list[str]:
        """The first candidate path that exists, as a one-element list (or empty)."""
        for candidate in candidates:
            if candidate in self.paths:
                return [candidate]
        return []


def _discard(index: dict[str, set[str]], key: str, value: str) -> None:
    values = index.get(key)
    if values is None:
        return
    values.discard(value)
    if not values:
        del index[key]


def spec_keys(spec: str) -> set[str]:
    """Words of a specifier that a newly created file could match (its stem or its folder's name).

    The graph re-resolves an importer when a file with one of these names appears or disappears,
    instead of re-resolving every import in the workspace.
    """
    keys = {part for part in _KEY_SPLIT.split(spec) if part}
    return keys | {_strip_extension(key) for key in keys}


def path_keys(path: str) -> set[str]:
    """The keys under which an import could find `path`: its stem, and its folder's name when the
    folder is what gets imported (a package's entry file, a Go package, a Java or C# namespace)."""
    folder, name = posixpath.split(path)
    stem = _strip_extension(name)
    by_folder = stem in FOLDER_STEMS or posixpath.splitext(name)[1] in FOLDER_IMPORT_EXTENSIONS
    return {stem, posixpath.basename(folder) if by_folder else ""} - {""}


def _strip_extension(name: str) -> str:
    return name.split(".", 1)[0] if not name.startswith(".") else name


def resolve_import(spec: str, from_path: str, language: str, files: FileSet) -> list[str]:
    """Workspace-relative paths of the files `spec` (imported from `from_path`) refers to.

    Empty for an external package or anything we cannot place; several paths for a Go package,
    a Java wildcard import or an include that matches several files.
    """
    resolver = RESOLVERS.get(language)
    if resolver is None or not spec:
        return []
    found = resolver(spec, from_path, files)
    return sorted(set(found) - {from_path})


# --- Python -------------------------------------------------------------------------------------


def _resolve_python(spec: str, from_path: str, files: FileSet) -> list[str]:
    if spec.startswith("."):
        return _resolve_python_relative(spec, from_path, files)
    parts = spec.split(".")
    for count in range(len(parts), 0, -1):
        found = _python_module_anywhere(parts[:count], from_path, files)
        if found:
            return found
    return []


def _resolve_python_relative(spec: str, from_path: str, files: FileSet) -> list[str]:
    rest = spec.lstrip(".")
    base = posixpath.dirname(from_path)
    for _ in range(len(spec) - len(rest) - 1):
        base = posixpath.dirname(base)
    parts = rest.split(".") if rest else []
    for count in range(len(parts), -1, -1):
        found = files.first(_python_candidates(base, parts[:count]))
        if found:
            return found
    return []


def _python_candidates(base: str, parts: list[str]) -> list[str]:
    stem = posixpath.join(base, *parts) if parts else base
    modules = [stem + ext for ext in PYTHON_EXTENSIONS] if parts else []
    packages = [posixpath.join(stem, "__init__" + ext) for ext in PYTHON_EXTENSIONS]
    return modules + packages


def _python_module_anywhere(parts: list[str], from_path: str, files: FileSet) -> list[str]:
    """A module by dotted name: from the root, else from any folder that is not itself a package.

    That covers `src/` layouts, test folders run as roots (Django's `tests/`) and scripts that
    import their neighbours; among several roots the one closest to the importer wins.
    """
    found = files.python_roots(tuple(parts))
    if not found:
        return []
    best = max(_shared_depth(path, from_path) for path in found)
    closest = [path for path in found if _shared_depth(path, from_path) == best]
    return [path for path in closest if path.count("/") == min(p.count("/") for p in closest)]


def _is_python_package(folder: str, files: FileSet) -> bool:
    return any(posixpath.join(folder, "__init__" + ext) in files for ext in PYTHON_EXTENSIONS)


def _shared_depth(path: str, other: str) -> int:
    depth = 0
    for mine, theirs in zip(path.split("/")[:-1], other.split("/")[:-1], strict=False):
        if mine != theirs:
            break
        depth += 1
    return depth


# --- JavaScript / TypeScript --------------------------------------------------------------------


def _resolve_js(spec: str, from_path: str, files: FileSet) -> list[str]:
    if spec.startswith("."):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
        return files.first(_js_candidates(target))
    if spec.startswith("/"):
        return files.first(_js_candidates(spec.lstrip("/")))
    return files.first(_js_candidates(spec)) or _resolve_js_workspace_package(spec, files)


def _js_candidates(target: str) -> list[str]:
    stem = target
    for ext in (".js", ".jsx", ".mjs", ".cjs"):
        if target.endswith(ext):  # TypeScript ESM imports name the compiled file: "./util.js"
            stem = target[: -len(ext)]
    exact = [target]
    with_ext = [stem + ext for ext in JS_EXTENSIONS]
    index = [posixpath.join(target, "index" + ext) for ext in JS_EXTENSIONS]
    return exact + with_ext + index


def _resolve_js_workspace_package(spec: str, files: FileSet) -> list[str]:
    """A bare specifier naming a package that lives in this workspace (a monorepo member)."""
    parts = spec.split("/")
    width = 2 if spec.startswith("@") else 1
    name, inner = "/".join(parts[:width]), parts[width:]
    for folder in files.dirs_with_suffix(name):
        if posixpath.join(folder, "package.json") not in files or "node_modules" in folder.split("/"):
            continue
        for base in (folder, posixpath.join(folder, "src"), posixpath.join(folder, "lib")):
            found = files.first(_js_candidates(posixpath.join(base, *inner)))
            if found:
                return found
    return []


# --- Go -----------------------------------------------------------------------------------------


def _resolve_go(spec: str, from_path: str, files: FileSet) -> list[str]:
    """A Go package is a folder: the longest workspace folder the import path ends with."""
    path = spec.strip("/")
    named = files.dirs_by_name.get(posixpath.basename(path), ())
    folders = [d for d in named if (path == d or path.endswith("/" + d)) and _go_sources(d, files)]
    if not folders:
        return []
    longest = max(len(d) for d in folders)
    return [path for d in folders if len(d) == longest for path in _go_sources(d, files)]


def _go_sources(folder: str, files: FileSet) -> list[str]:
    # Test files are not part of the package an import brings in.
    return sorted(p for p in files.by_dir.get(folder, ()) if p.endswith(".go") and not p.endswith("_test.go"))


# --- Rust ---------------------------------------------------------------------------------------


def _resolve_rust(spec: str, from_path: str, files: FileSet) -> list[str]:
    if spec.startswith("mod:"):
        children = _rust_children_dir(from_path)
        name = spec[4:]
        return files.first([posixpath.join(children, name + ".rs"), posixpath.join(children, name, "mod.rs")])
    parts = [part for part in spec.split("::") if part]
    if not parts:
        return []
    head = parts[0]
    if head == "crate":
        root = _rust_crate_dir(from_path, files)
        return [] if root is None else _rust_path(root, parts[1:], files)
    if head in ("self", "super"):
        children = _rust_children_dir(from_path)
        while parts and parts[0] in ("self", "super"):
            if parts.pop(0) == "super":
                children = posixpath.dirname(children)
        return _rust_path(children, parts, files)
    return _resolve_rust_uniform(parts, from_path, files)


def _resolve_rust_uniform(parts: list[str], from_path: str, files: FileSet) -> list[str]:
    """`use a::b` without a prefix: a child module here, one at the crate root, or a workspace crate."""
    children = _rust_children_dir(from_path)
    if files.first(_rust_module_files(posixpath.join(children, parts[0]))):
        return _rust_path(children, parts, files)
    root = _rust_crate_dir(from_path, files)
    if root is not None and files.first(_rust_module_files(posixpath.join(root, parts[0]))):
        return _rust_path(root, parts, files)
    for folder in files.dirs_with_suffix("src"):
        crate = posixpath.basename(posixpath.dirname(folder)).replace("-", "_")
        if crate == parts[0] and files.first(posixpath.join(folder, r) for r in RUST_CRATE_ROOTS):
            return _rust_path(folder, parts[1:], files)
    return []


def _rust_path(children: str, parts: list[str], files: FileSet) -> list[str]:
    """The deepest module file along `parts` below a module's children folder (the rest are items)."""
    for count in range(len(parts), 0, -1):
        found = files.first(_rust_module_files(posixpath.join(children, *parts[:count])))
        if found:
            return found
    return files.first(_rust_module_files(children) + [posixpath.join(children, r) for r in RUST_CRATE_ROOTS])


def _rust_module_files(stem: str) -> list[str]:
    return [stem + ".rs", posixpath.join(stem, "mod.rs")]


def _rust_children_dir(path: str) -> str:
    """Where the submodules of the module defined by `path` live (`a/b.rs` -> `a/b`, `a/mod.rs` -> `a`)."""
    folder, name = posixpath.split(path)
    if name in ("mod.rs", *RUST_CRATE_ROOTS):
        return folder
    return posixpath.join(folder, name[: -len(".rs")] if name.endswith(".rs") else name)


def _rust_crate_dir(path: str, files: FileSet) -> str | None:
    folder = posixpath.dirname(path)
    while True:
        if any(posixpath.join(folder, root) in files for root in RUST_CRATE_ROOTS):
            return folder
        if not folder:
            return None
        folder = posixpath.dirname(folder)


# --- Java, C#, PHP: dotted names over folders ---------------------------------------------------


def _resolve_dotted(extension: str, separator: str) -> Callable[[str, str, FileSet], list[str]]:
    """Java packages are folders and classes files; C# and PHP (PSR-4) mostly follow suit, but their
    root namespace is often not a folder (`App\\Models\\User` in `src/Models/User.php`), so for them
    leading names may be dropped as long as two remain."""
    keep = 0 if extension == ".java" else 2

    def resolve(spec: str, from_path: str, files: FileSet) -> list[str]:
        parts = [part for part in spec.removeprefix("static ").split(separator) if part]
        if parts and parts[-1] == "*":
            found = _sources_in(files.dirs_with_suffix("/".join(parts[:-1])), extension, files)
            return found or _rooted_package(parts[:-1], extension, files)
        found = _dotted_module(parts, extension, files)
        for start in range(1, len(parts) - keep + 1 if keep else 1):
            found = found or files.with_suffix("/".join(parts[start:]) + extension)
        return found or (_rooted_module(parts, extension, files) if extension == ".java" else [])

    return resolve


def _rooted_module(parts: list[str], extension: str, files: FileSet) -> list[str]:
    """A Java import in a workspace opened inside its package tree (`src/main/java/org/apache/commons/
    lang3` opened as the root, as a benchmark or a monorepo sub-project does): the leading package
    names lie above the root, and the rest is a path from the root itself, never from any folder
    (`org.apache.commons.lang3.builder.EqualsBuilder` -> `builder/EqualsBuilder.java`, `...lang3.
    ClassUtils` -> `ClassUtils.java`; a static import's member names are dropped from the end).
    Anchoring at the root keeps `java.util.List` from matching some `util/List.java` deeper down, and
    `java.*` is never the workspace's: the JVM refuses to load a class of that package from it."""
    if parts[:1] == ["java"]:
        return []
    for start in range(1, len(parts)):
        for end in range(len(parts), start, -1):
            found = files.first(["/".join(parts[start:end]) + extension])
            if found:
                return found
    return []


def _rooted_package(parts: list[str], extension: str, files: FileSet) -> list[str]:
    """A wildcard Java import's package as a folder from the workspace root (see `_rooted_module`)."""
    if parts[:1] == ["java"]:
        return []
    for start in range(1, len(parts)):
        folder = "/".join(parts[start:])
        if folder in files.by_dir:
            return _sources_in([folder], extension, files)
    return []


def _dotted_module(parts: list[str], extension: str, files: FileSet) -> list[str]:
    for count in range(len(parts), 0, -1):
        stem = "/".join(parts[:count])
        found = files.with_suffix(stem + extension)
        if found:
            return found
        if extension == ".cs":  # C# namespaces are folders more often than files
            found = _sources_in(files.dirs_with_suffix(stem), extension, files)
            if found:
                return found
    return []


def _sources_in(folders: list[str], extension: str, files: FileSet) -> list[str]:
    return sorted(p for d in folders for p in files.by_dir.get(d, ()) if p.endswith(extension))


# --- C / C++ ------------------------------------------------------------------------------------


def _resolve_include(spec: str, from_path: str, files: FileSet) -> list[str]:
    angled = spec.startswith("<")
    target = spec.strip("<>\"' ")
    if not angled:
        local = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), target))
        if local in files:
            return [local]
    return files.with_suffix(posixpath.normpath(target).lstrip("./"))


# --- Ruby ---------------------------------------------------------------------------------------


def _resolve_ruby(spec: str, from_path: str, files: FileSet) -> list[str]:
    target = spec if spec.endswith(".rb") else spec + ".rb"
    if spec.startswith("."):
        return files.first([posixpath.normpath(posixpath.join(posixpath.dirname(from_path), target))])
    parts = target.split("/")
    # Opened inside the load path (`railties/lib/rails` as the root): `rails/command/base` is
    # `command/base.rb` from the root itself, as for Java (`_rooted_module`).
    rooted = ["/".join(parts[start:]) for start in range(1, len(parts))]
    return files.first([target, posixpath.join("lib", target)]) or files.with_suffix(target) or files.first(rooted)


# --- Kotlin, Scala, Haskell, Elixir, Lua: dotted module names over folders ----------------------


def _resolve_package(extension: str) -> Callable[[str, str, FileSet], list[str]]:
    """Kotlin and Scala: `a.b.C` is the file `a/b/C.kt` when one is named after the class; else `a.b`
    is a package, a folder, whose files are what the import brings in (a Kotlin file need not be
    named after what it declares, and `import a.b.*` names the package itself)."""

    def resolve(spec: str, from_path: str, files: FileSet) -> list[str]:
        parts = [part for part in spec.split(".") if part and part not in ("*", "_")]
        for count in range(len(parts), 0, -1):
            found = _trailing(parts[:count], extension, files)
            if found:
                return found
            stem = "/".join(parts[:count])
            folders = files.dirs_with_suffix(stem) if count >= 2 else []
            found = _sources_in(folders, extension, files)
            if found:
                return found
        return []

    return resolve


def _trailing(parts: list[str], extension: str, files: FileSet) -> list[str]:
    """Files for a module path whose leading names may be folders above the workspace (a workspace
    opened at `src/Data/Aeson` still imports `Data.Aeson.Types`); one trailing name alone must be unique."""
    for start in range(len(parts)):
        found = files.with_suffix("/".join(parts[start:]) + extension)
        if found and (len(parts) - start >= 2 or len(found) == 1):
            return found
    return []


def _resolve_haskell(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`Data.Aeson.Types` is `Data/Aeson/Types.hs` below some source folder."""
    return _trailing(spec.split("."), ".hs", files)


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _resolve_elixir(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`Phoenix.Router.Route` lives in `phoenix/router/route.ex` (Mix's convention: snake_case parts);
    a nested module without a file of its own is in its parent's."""
    parts = [_CAMEL_BOUNDARY.sub("_", part).lower() for part in spec.split(".") if part]
    # Down to two names: `Phoenix.Socket.Transport` may live in `phoenix/socket.ex`, but every module
    # of the project does not live in `phoenix.ex`.
    for count in range(len(parts), min(len(parts), 2) - 1, -1):
        found = _trailing(parts[:count], ".ex", files)
        if found:
            return found
    return []


def _resolve_lua(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`require("lazy.core.config")` is `lazy/core/config.lua` or `lazy/core/config/init.lua` on the path."""
    parts = spec.split(".")
    return _trailing(parts, ".lua", files) or _trailing([*parts, "init"], ".lua", files)


def _resolve_relative_file(spec: str, from_path: str, files: FileSet) -> list[str]:
    """Zig `@import("x.zig")` and shell `source ./x.sh`: a path from the importing file's folder, else
    a file the path ends with (`. "$NVM_DIR/nvm.sh"` was installed beside its caller)."""
    if not spec or spec.startswith("$"):
        return []
    local = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
    if local in files:
        return [local]
    return files.with_suffix(posixpath.normpath(spec).lstrip("./")) if "/" in spec or "." in spec else []


def _resolve_perl(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`use Foo::Bar` is `Foo/Bar.pm` below some library folder (`lib/`)."""
    return _trailing(spec.split("::"), ".pm", files)


def _resolve_ocaml(spec: str, from_path: str, files: FileSet) -> list[str]:
    """The compilation unit `Foo_bar` is the file `foo_bar.ml` (dune finds it in any folder)."""
    return files.with_suffix(spec[:1].lower() + spec[1:] + ".ml") if spec else []


def _resolve_dart(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`package:name/src/x.dart` is the package's `lib/src/x.dart`; `dart:` libraries are the SDK's."""
    if spec.startswith("dart:"):
        return []
    if spec.startswith("package:"):
        inner = spec.removeprefix("package:").partition("/")[2]
        return files.with_suffix(posixpath.join("lib", inner)) or files.with_suffix(inner)
    return _resolve_relative_file(spec, from_path, files)


def _resolve_terraform(spec: str, from_path: str, files: FileSet) -> list[str]:
    """A module `source = "./modules/vpc"` is the `.tf` files of that folder (registry sources are not)."""
    if not spec.startswith("."):
        return []
    folder = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
    return sorted(p for p in files.by_dir.get(folder, ()) if p.endswith(".tf"))


def _resolve_erlang(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`-include("x.hrl")` is beside the module or in an `include/` folder; `-include_lib("app/include/
    x.hrl")` is the app's; a module named by a remote call or `-behaviour` is `<module>.erl` anywhere."""
    if spec.endswith(".hrl"):
        local = _resolve_relative_file(spec, from_path, files)
        included = posixpath.join("include", posixpath.basename(spec))
        return local or files.with_suffix(spec) or files.with_suffix(included)
    return files.with_suffix(spec + ".erl")


def _resolve_clojure(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`demo.http-util` lives in `demo/http_util.clj` (or `.cljc`, `.cljs`) below a source folder."""
    parts = spec.replace("-", "_").split(".")
    for extension in (".clj", ".cljc", ".cljs"):
        found = _trailing(parts, extension, files)
        if found:
            return found
    return []


def _resolve_elm(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`Counter.Format` is `Counter/Format.elm` below a source directory (`src/`)."""
    return _trailing(spec.split("."), ".elm", files)


def _resolve_nim(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`import shapes/circle` is `shapes/circle.nim` from the importer's folder or the search path;
    `std/…` modules are the standard library's."""
    if spec.startswith(("std/", "pkg/")):
        return []
    path = spec if spec.endswith(".nim") else spec + ".nim"
    local = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), path))
    return [local] if local in files else files.with_suffix(posixpath.normpath(path).lstrip("./"))


def _resolve_d(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`import demo.util;` is `demo/util.d` (or the package's `demo/util/package.d`) below a source folder."""
    parts = spec.split(".")
    found = _trailing(parts, ".d", files) or _trailing(parts, ".di", files)
    return found or _trailing([*parts, "package"], ".d", files)


def _resolve_purescript(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`Demo.Format` is `Demo/Format.purs` below a source folder, as in Haskell."""
    return _trailing(spec.split("."), ".purs", files)


def _resolve_verilog(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`` `include "defs.svh" `` is a file beside the importer or on the include path; `import pkg::*;`
    names a package, by convention in `pkg.sv`."""
    if "." in spec:
        return _resolve_relative_file(spec, from_path, files) or files.with_suffix(spec)
    return files.with_suffix(spec + ".sv") or files.with_suffix(spec + ".svh")


def _resolve_ada(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`with Stacks.Limits;` is the unit GNAT keeps in `stacks-limits.ads` (its body in `.adb`)."""
    stem = spec.lower().replace(".", "-")
    return files.with_suffix(stem + ".ads") or files.with_suffix(stem + ".adb")


def _resolve_pascal(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`uses Geometry.Points;` is the unit file `Geometry.Points.pas` (or `.pp`), in any case."""
    for name in (spec, spec.lower()):
        found = files.with_suffix(name + ".pas") or files.with_suffix(name + ".pp")
        if found:
            return found
    return []


def _resolve_godot(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`res://player/player.gd` is a path from the Godot project's root (where `project.godot` is)."""
    if spec.startswith("res://"):
        return files.with_suffix(spec.removeprefix("res://"))
    return _resolve_relative_file(spec, from_path, files)


def _resolve_gleam(spec: str, from_path: str, files: FileSet) -> list[str]:
    """`import store/codec` is `src/store/codec.gleam` (or `test/…`)."""
    return files.with_suffix(spec + ".gleam")


RESOLVERS: dict[str, Callable[[str, str, FileSet], list[str]]] = {
    "python": _resolve_python,
    "javascript": _resolve_js,
    "typescript": _resolve_js,
    "tsx": _resolve_js,
    "go": _resolve_go,
    "rust": _resolve_rust,
    "java": _resolve_dotted(".java", "."),
    "csharp": _resolve_dotted(".cs", "."),
    "php": _resolve_dotted(".php", "\\"),
    "c": _resolve_include,
    "cpp": _resolve_include,
    "ruby": _resolve_ruby,
    "kotlin": _resolve_package(".kt"),
    "scala": _resolve_package(".scala"),
    "haskell": _resolve_haskell,
    "elixir": _resolve_elixir,
    "lua": _resolve_lua,
    "zig": _resolve_relative_file,
    "bash": _resolve_relative_file,
    "objc": _resolve_include,
    "julia": _resolve_relative_file,
    "perl": _resolve_perl,
    "powershell": _resolve_relative_file,
    "groovy": _resolve_package(".groovy"),
    "solidity": _resolve_relative_file,
    "hcl": _resolve_terraform,
    "dart": _resolve_dart,
    "ocaml": _resolve_ocaml,
    "r": _resolve_relative_file,
    "erlang": _resolve_erlang,
    "clojure": _resolve_clojure,
    "elm": _resolve_elm,
    "nim": _resolve_nim,
    "d": _resolve_d,
    "gleam": _resolve_gleam,
    "cuda": _resolve_include,
    "glsl": _resolve_include,
    "tcl": _resolve_relative_file,
    "racket": _resolve_relative_file,
    "scheme": _resolve_relative_file,
    "purescript": _resolve_purescript,
    "verilog": _resolve_verilog,
    "ada": _resolve_ada,
    "pascal": _resolve_pascal,
    "gdscript": _resolve_godot,
    "luau": _resolve_lua,
    "vue": _resolve_js,
    "svelte": _resolve_js,
}
