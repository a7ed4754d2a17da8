"""Which language a file is written in, and the tree-sitter grammar that parses it.

Grammars come from the per-language wheels (`tree-sitter-python`, …), which ship a compiled
parser and, for most languages, a `tags.scm` query. Languages with no wheel of their own (R, Erlang,
Clojure, Elm, Nim, D, Gleam, Vue, Svelte, …) come from `tree-sitter-language-pack`, pinned at 0.13.0:
it bundles their compiled grammars in the wheel (its 1.x releases download grammars at run time
instead, which an offline index cannot do). Nothing is downloaded at run time, so the index builds
offline. A file whose extension is not listed here is still indexed for text search.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath

import tree_sitter as ts

# The module of tree-sitter-language-pack, whose `get_language(name)` returns a bundled grammar.
PACK_MODULE = "tree_sitter_language_pack"


@dataclass(frozen=True)
class Grammar:
    """Where a language's parser lives: the wheel's module and the function returning its pointer,
    or (`packed`) the name tree-sitter-language-pack knows the language by, in `function`."""

    module: str
    function: str = "language"
    packed: bool = False

    @classmethod
    def from_pack(cls, name: str) -> Grammar:
        return cls(PACK_MODULE, name, packed=True)


# Extension -> language id. The ids are the ones the `languages` search filter accepts.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".sc": "scala",
    ".swift": "swift",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".lua": "lua",
    ".zig": "zig",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".bats": "bash",
    ".m": "objc",
    ".mm": "objc",
    ".dart": "dart",
    ".ml": "ocaml",
    ".jl": "julia",
    ".pl": "perl",
    ".pm": "perl",
    ".t": "perl",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".sol": "solidity",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".sql": "sql",
    ".fs": "fsharp",
    ".fsx": "fsharp",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f08": "fortran",
    ".r": "r",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".cljc": "clojure",
    ".edn": "clojure",
    ".elm": "elm",
    ".nim": "nim",
    ".nims": "nim",
    ".nimble": "nim",
    ".d": "d",
    ".di": "d",
    ".gleam": "gleam",
    ".vue": "vue",
    ".svelte": "svelte",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".glsl": "glsl",
    ".vert": "glsl",
    ".frag": "glsl",
    ".geom": "glsl",
    ".comp": "glsl",
    ".tesc": "glsl",
    ".tese": "glsl",
    ".tcl": "tcl",
    ".tm": "tcl",
    ".rkt": "racket",
    ".scm": "scheme",
    ".ss": "scheme",
    ".sld": "scheme",
    ".lisp": "commonlisp",
    ".lsp": "commonlisp",
    ".cl": "commonlisp",
    ".asd": "commonlisp",
    ".purs": "purescript",
    ".v": "verilog",
    ".vh": "verilog",
    ".sv": "verilog",
    ".svh": "verilog",
    ".adb": "ada",
    ".ads": "ada",
    ".pas": "pascal",
    ".pp": "pascal",
    ".dpr": "pascal",
    ".lpr": "pascal",
    ".gd": "gdscript",
    ".luau": "luau",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
}

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python"),
    "javascript": Grammar("tree_sitter_javascript"),
    "typescript": Grammar("tree_sitter_typescript", "language_typescript"),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx"),
    "go": Grammar("tree_sitter_go"),
    "rust": Grammar("tree_sitter_rust"),
    "java": Grammar("tree_sitter_java"),
    "c": Grammar("tree_sitter_c"),
    "cpp": Grammar("tree_sitter_cpp"),
    "csharp": Grammar("tree_sitter_c_sharp"),
    "ruby": Grammar("tree_sitter_ruby"),
    "php": Grammar("tree_sitter_php", "language_php"),
    "kotlin": Grammar("tree_sitter_kotlin"),
    "scala": Grammar("tree_sitter_scala"),
    "swift": Grammar("tree_sitter_swift"),
    "elixir": Grammar("tree_sitter_elixir"),
    "haskell": Grammar("tree_sitter_haskell"),
    "lua": Grammar("tree_sitter_lua"),
    "zig": Grammar("tree_sitter_zig"),
    "bash": Grammar("tree_sitter_bash"),
    "objc": Grammar("tree_sitter_objc"),
    "dart": Grammar("tree_sitter_dart"),
    "ocaml": Grammar("tree_sitter_ocaml", "language_ocaml"),
    "julia": Grammar("tree_sitter_julia"),
    "perl": Grammar("tree_sitter_perl"),
    "powershell": Grammar("tree_sitter_powershell"),
    "groovy": Grammar("tree_sitter_groovy"),
    "solidity": Grammar("tree_sitter_solidity"),
    "hcl": Grammar("tree_sitter_hcl"),
    "sql": Grammar("tree_sitter_sql"),
    "fsharp": Grammar("tree_sitter_fsharp"),
    "fortran": Grammar("tree_sitter_fortran"),
    "r": Grammar.from_pack("r"),
    "erlang": Grammar.from_pack("erlang"),
    "clojure": Grammar.from_pack("clojure"),
    "elm": Grammar.from_pack("elm"),
    "nim": Grammar.from_pack("nim"),
    "d": Grammar.from_pack("d"),
    "gleam": Grammar.from_pack("gleam"),
    "vue": Grammar.from_pack("vue"),
    "svelte": Grammar.from_pack("svelte"),
    "cuda": Grammar.from_pack("cuda"),
    "glsl": Grammar.from_pack("glsl"),
    "tcl": Grammar.from_pack("tcl"),
    "racket": Grammar.from_pack("racket"),
    "scheme": Grammar.from_pack("scheme"),
    "commonlisp": Grammar.from_pack("commonlisp"),
    "purescript": Grammar.from_pack("purescript"),
    "verilog": Grammar.from_pack("verilog"),
    "ada": Grammar.from_pack("ada"),
    "pascal": Grammar.from_pack("pascal"),
    "matlab": Grammar.from_pack("matlab"),
    "gdscript": Grammar.from_pack("gdscript"),
    "luau": Grammar.from_pack("luau"),
}

# Extensions other files share: `.d` is D source, but also Debian's `invoke-rc.d` completion scripts
# (`-*- shell-script -*-`) and make's dependency files. There a `#!` or mode line naming a language wins.
CONTENT_FIRST_EXTENSIONS = frozenset({".d"})

# Documentation languages are chunked by heading rather than parsed.
DOC_LANGUAGES = frozenset({"markdown", "rst", "text"})


# Interpreter named on a `#!` line -> language id, for scripts without an extension (`nvm-exec`,
# `bin/rails`). `env` and its flags are looked through: `#!/usr/bin/env -S bash -e` is bash.
INTERPRETERS: dict[str, str] = {
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "dash": "bash",
    "ksh": "bash",
    "python": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ts-node": "typescript",
    "ruby": "ruby",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "elixir": "elixir",
    "runhaskell": "haskell",
    "runghc": "haskell",
    "kotlin": "kotlin",
    "scala": "scala",
    "swift": "swift",
    "perl": "perl",
    "julia": "julia",
    "pwsh": "powershell",
    "groovy": "groovy",
    "ocaml": "ocaml",
    "Rscript": "r",
    "escript": "erlang",
    "clojure": "clojure",
    "bb": "clojure",  # babashka
    "tclsh": "tcl",
    "wish": "tcl",
    "racket": "racket",
    "guile": "scheme",
    "sbcl": "commonlisp",
}
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(.*))?")
_VERSION_SUFFIX = re.compile(r"[\d.]+$")
# What only C++ writes at the start of a line: enough to tell a C++ `.h` header from a C one.
_CPP_HEADER = re.compile(
    r"^[ \t]*(?:namespace\b|template[ \t]*<|class[ \t]+\w+[^;]*$|(?:public|private|protected):|using[ \t]+\w)",
    re.MULTILINE,
)
_OBJC_HEADER = re.compile(r"^[ \t]*(?:@interface|@protocol|#import)\b", re.MULTILINE)
# `.m` is Objective-C (`@implementation`, `#import`, `#include`) or MATLAB (`function`, `classdef`, `%`
# comments first): without Objective-C's marks, a file that starts its lines so is MATLAB.
_MATLAB = re.compile(r"\A(?:[ \t]*(?:%[^\n]*)?\n)*[ \t]*(?:function\b|classdef\b|%)")
# How much of a header is read to decide: the declarations that give C++ away come early.
CPP_SNIFF_CHARS = 20_000


def detect_language(path: str | PurePath, text: str | None = None) -> str | None:
    """The language id for a path, by extension; None for files indexed as plain text only.

    With the file's `text` (where the caller has read it: discovery, editor buffers) two cheap looks
    at the content refine it: a `#!` line (or an editor mode line) names the language of a script
    without an extension (or with one other files share: `.d`), and a `.h` header that declares
    namespaces, templates or classes is C++ rather than C (one with `@interface`, `@protocol` or
    `#import`, Objective-C), and a `.m` file that begins as MATLAB does (`function`, `classdef`, a `%`
    comment) and has no Objective-C mark is MATLAB.
    """
    pure = PurePath(path)
    suffix = pure.suffix.lower()
    language = EXTENSIONS.get(suffix)
    if text is None:
        return language
    if language is None or suffix in CONTENT_FIRST_EXTENSIONS:
        named = shebang_language(text) if text.startswith("#!") else mode_line_language(text)
        return named or language
    if suffix == ".m" and _MATLAB.match(text) and not _OBJC_HEADER.search(text, 0, CPP_SNIFF_CHARS):
        return "matlab"
    if suffix == ".h":
        if _OBJC_HEADER.search(text, 0, CPP_SNIFF_CHARS):
            return "objc"
        if _CPP_HEADER.search(text, 0, CPP_SNIFF_CHARS):
            return "cpp"
    return language


# Editor mode lines name the language of a file that has neither extension nor `#!` (bash-completion's
# `# ssh(1) completion  -*- shell-script -*-`, `# vim: ft=sh`): Emacs mode or Vim filetype -> language id.
MODES: dict[str, str] = {
    "sh": "bash",
    "shell-script": "bash",
    "bash": "bash",
    "zsh": "bash",
    "python": "python",
    "ruby": "ruby",
    "perl": "perl",
    "cperl": "perl",
    "lua": "lua",
    "js": "javascript",
    "javascript": "javascript",
    "elixir": "elixir",
    "haskell": "haskell",
    "r": "r",
    "ess-r": "r",
    "erlang": "erlang",
    "clojure": "clojure",
}
_EMACS_MODE = re.compile(r"-\*-\s*(?:mode:\s*)?([\w+-]+?)(?:-mode)?\s*(?:;[^\n]*)?-\*-", re.IGNORECASE)
_VIM_MODE = re.compile(r"\bvim?:.*?\b(?:ft|filetype)=([\w+-]+)")


def mode_line_language(text: str) -> str | None:
    """The language an Emacs `-*- mode -*-` or Vim `ft=` line in the first two lines names, or None."""
    head = "\n".join(text.split("\n", 2)[:2])
    match = _EMACS_MODE.search(head) or _VIM_MODE.search(head)
    return MODES.get(match.group(1).lower()) if match else None


def shebang_language(text: str) -> str | None:
    """The language a `#!` first line runs the script with, or None for an unknown interpreter."""
    line = text.split("\n", 1)[0].rstrip("\r")
    match = _SHEBANG.match(line)
    if match is None:
        return None
    program = PurePath(match.group(1)).name
    words = (match.group(2) or "").split()
    if program == "env":
        words = [word for word in words if not word.startswith("-")]
        program = PurePath(words[0]).name if words else ""
    return INTERPRETERS.get(_VERSION_SUFFIX.sub("", program).rstrip("-") or program)


def has_grammar(language: str | None) -> bool:
    return language in GRAMMARS


@cache
def grammar(language: str) -> ts.Language:
    """The compiled tree-sitter language for an id in GRAMMARS (cached: loading is not free)."""
    spec = GRAMMARS[language]
    module = importlib.import_module(spec.module)
    if spec.packed:
        # 0.13.0's `get_language` loads the grammar compiled into the wheel (`bindings/<name>.abi3.so`).
        language_object: ts.Language = module.get_language(spec.function)
        return language_object
    return ts.Language(getattr(module, spec.function)())


@cache
def shipped_tags_query(language: str) -> str:
    """The `tags.scm` shipped in the grammar wheel, or "" when the wheel ships none (C#, the pack)."""
    if GRAMMARS[language].packed:
        return ""
    module = importlib.import_module(GRAMMARS[language].module)
    folder = Path(module.__file__ or "").parent / "queries"
    tags = folder / "tags.scm"
    return tags.read_text(encoding="utf-8") if tags.is_file() else ""
