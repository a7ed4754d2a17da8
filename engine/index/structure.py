"""The structural pass: what a file defines, what it uses and what it imports.

A user who types `class Config` or `who calls load_settings` gets answers from here: every file
in a grammar-backed language is parsed once with tree-sitter and queried with the grammar's own
`tags.scm` plus Fourfold's queries in `engine/index/queries/<lang>.scm` (which fill the gaps the shipped
tags leave: C# has none, Python has no methods' containers, Rust calls structs "class", …).
The result is a `ParsedFile`: symbols with normalised kinds, containers, qualified names,
signatures and docs; references (calls, plain uses, inheritance) with their enclosing definition;
raw import specifiers normalised per language for the graph; and the file's retrieval chunks.

It never raises on bad input: tree-sitter recovers from syntax errors, and columns are converted
from tree-sitter's byte offsets to code points so that non-ASCII lines map correctly.
"""

from __future__ import annotations

import bisect
import inspect
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import tree_sitter as ts

from ..model.languages import GRAMMARS, grammar, shipped_tags_query
from ..model.records import ParsedFile, Reference, Span, Symbol
from .chunks import make_chunks

__all__ = ["KINDS", "parse_file"]

# The one kind vocabulary every retriever, the LSP mapping and the kind filters share.
KINDS = frozenset(
    {
        "function", "method", "class", "interface", "struct", "enum", "type", "constant",
        "variable", "module", "field", "property", "trait", "namespace", "macro", "constructor",
        "enum_member",
    }
)  # fmt: skip
# Capture kinds some grammars' tags.scm use for what our vocabulary already names.
KIND_ALIASES = {
    "object": "class",
    "protocol": "interface",
    "union": "struct",
    "mixin": "class",  # Dart
    "extension": "class",  # Dart's named extensions
    "enum_variant": "enum_member",  # OCaml
    "operator": "function",  # OCaml
}

# Languages whose functions are written as several clauses (Haskell and PureScript equations after a signature,
# Elixir `def` heads per pattern, Elm's annotation and equation, Erlang clauses, which its grammar
# parses as declarations apiece): consecutive same-named definitions are one symbol spanning them all.
CLAUSE_LANGUAGES = frozenset({"haskell", "elixir", "erlang", "elm", "purescript"})
# Grammars that parse a function's body as the next sibling of its signature (Dart's top-level
# functions and methods): the definition spans both.
DETACHED_BODIES: dict[str, frozenset[str]] = {"dart": frozenset({"function_body"})}

# A function directly inside one of these is a method.
CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "enum", "impl"})
# Ruby mixes module methods into classes, so there a module makes its functions methods too.
CLASS_LIKE_EXTRA: dict[str, frozenset[str]] = {"ruby": frozenset({"module"})}

# Languages whose tags call every top-level assignment a constant; there only SHOUTING names are.
LOOSE_CONSTANT_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "r"})

# Languages whose module is a declaration of one line that names the module of the whole file (Erlang's
# `-module(kv_store).`): the definitions after it are the module's, qualified by it, as `kv_store:lookup`
# qualifies a remote call. Then `ets:lookup(…)` inside `lookup` is not a call of itself. PHP's statement
# `namespace Monolog\Handler;` (no braces) holds the definitions after it, up to the next one.
# Value: the kind of that declaration.
FILE_MODULE_LANGUAGES = {"erlang": "module", "php": "namespace"}

# Languages whose definitions may name their namespace in the name itself (`proc ::queue::pop`).
NAMESPACE_SEPARATORS = {"tcl": "::"}

# Reference capture suffix -> Reference.kind. Anything else is a plain "reference".
REFERENCE_KINDS = {"call": "call", "inherit": "inherit"}
# When two patterns capture the same name node, the more specific reading wins.
REFERENCE_PRIORITY = {"inherit": 0, "call": 1, "reference": 2}

# Names a grammar tags as references that are the language's own (Go tags every type name, and
# `string` or `error` would otherwise become the most referenced "symbols" of any Go repository).
IGNORED_REFERENCES: dict[str, frozenset[str]] = {
    # Elixir's definition and control forms are calls in its grammar.
    "elixir": frozenset(
        {
            "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate", "defmodule",
            "defprotocol", "defimpl", "defstruct", "defexception", "defoverridable", "alias", "import",
            "require", "use", "case", "cond", "if", "unless", "for", "with", "try", "receive", "raise",
            "quote", "unquote", "fn", "doc", "moduledoc", "typedoc", "spec", "type", "impl", "callback",
        }
    ),
    # Shell builtins and the commands every script runs: calls, but not to anything the workspace defines.
    "bash": frozenset(
        {
            "echo", "printf", "command", "local", "export", "return", "exit", "test", "[", "[[", "cd",
            "set", "unset", "shift", "eval", "exec", "read", "true", "false", "source", ".", "\\.",
            "type", "shopt", "trap", "wait", "alias", "declare", "readonly", "grep", "sed", "awk",
            "cat", "rm", "mkdir", "ls", "tr", "head", "tail", "cut", "sort", "xargs", "basename", "dirname",
        }
    ),
    # Scheme's and Racket's special forms, and Common Lisp's: list heads, as calls are.
    "scheme": (_LISP_FORMS := frozenset(
        {
            "define", "define*", "define-syntax", "define-syntax-rule", "define-record-type", "define-struct",
            "define-values", "lambda", "λ", "case-lambda", "let", "let*", "letrec", "let-values", "if", "cond",
            "case", "when", "unless", "begin", "quote", "quasiquote", "set!", "and", "or", "else", "do",
            "require", "provide", "module", "module+", "struct", "syntax-rules", "define/contract", "match",
        }
    )),
    "racket": _LISP_FORMS,
    "commonlisp": frozenset(
        {
            "defun", "defmacro", "defgeneric", "defmethod", "defclass", "defstruct", "defvar", "defparameter",
            "defconstant", "defpackage", "in-package", "let", "let*", "flet", "labels", "lambda", "if", "cond",
            "case", "when", "unless", "progn", "setf", "setq", "loop", "declare", "quote", "function", "and",
            "or", "not", "return", "return-from", "block", "multiple-value-bind", "destructuring-bind",
        }
    ),
    # Tcl's own commands: every line is a command call, and these are the language's.
    "tcl": frozenset(
        {
            "set", "puts", "return", "variable", "global", "upvar", "proc", "namespace", "package", "source",
            "if", "else", "elseif", "for", "foreach", "while", "switch", "expr", "incr", "append", "lappend",
            "lindex", "lrange", "llength", "list", "string", "dict", "array", "catch", "error", "eval",
            "uplevel", "info", "file", "format", "regexp", "regsub", "split", "join", "my", "method",
        }
    ),
    # Clojure's special and defining forms head lists as calls do.
    "clojure": frozenset(
        {
            "ns", "def", "defn", "defn-", "defmacro", "defmulti", "defmethod", "defonce", "defprotocol",
            "definterface", "defrecord", "deftype", "declare", "let", "fn", "if", "do", "when", "cond",
            "case", "loop", "recur", "quote", "var", "try", "catch", "finally", "throw", "new", "set!",
        }
    ),
    "go": frozenset(
        {
            "any",
            "bool",
            "byte",
            "comparable",
            "complex64",
            "complex128",
            "error",
            "float32",
            "float64",
            "int",
            "int8",
            "int16",
            "int32",
            "int64",
            "rune",
            "string",
            "uint",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "uintptr",
        }
    ),
}

# TypeScript's tags.scm is written as an addition to JavaScript's (tree-sitter's own config
# inherits it), so both are loaded for TS and TSX.
INHERITED_TAGS = {
    "typescript": ("javascript",), "tsx": ("javascript",), "cuda": ("cpp",), "glsl": ("c",), "luau": ("lua",),
}
# TSX is TypeScript with JSX: it reads TypeScript's own queries rather than a copy of them. The pack's
# CUDA grammar extends C++'s and its GLSL grammar C's (same node types): they read those queries too;
# Racket reads Scheme's, and Luau (Roblox's typed Lua, the same node types) Lua's.
OWN_QUERIES = {"tsx": "typescript", "cuda": "cpp", "glsl": "c", "racket": "scheme", "luau": "lua"}

# A capture on a small node stands for a larger definition: the declarator of a C function is
# lifted to the function (or prototype), a JS declarator to its `const` statement, a Go type_spec
# to its `type` statement. Value: (ancestor types to stop at, intermediate types allowed, required).
LIFTS: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {
    "function_declarator": (
        frozenset({"function_definition", "declaration", "field_declaration"}),
        frozenset({"pointer_declarator", "reference_declarator", "parenthesized_declarator"}),
        True,
    ),
    "variable_declarator": (frozenset({"lexical_declaration", "variable_declaration"}), frozenset(), False),
    "type_spec": (frozenset({"type_declaration"}), frozenset(), False),
}
# Nodes that wrap a definition without changing it; the span and the doc comment start there.
WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})

COMMENT_TYPES = frozenset(
    {"comment", "line_comment", "block_comment", "multiline_comment", "haddock", "documentation_comment",
     "statement_comment"}  # Gleam's `///`
)
COMMENT_MARKERS = re.compile(r"^\s*(?:/\*+|\*+/|\*|///?!?|//|#+|-{2,}(?:\s*\|)?)\s?|\s*\*+/\s*$")
# Comment markers of the languages the shared pattern above does not know (roxygen's `#'`, Erlang's
# `%%`, Lisp's `;;`, Elm's `{-|`, D's `/++`); kept apart so the other languages' docs stay as they were.
LANGUAGE_COMMENT_MARKERS: dict[str, re.Pattern[str]] = {
    "r": re.compile(r"^\s*#+'?\s?"),
    "erlang": re.compile(r"^\s*%+\s?(?:@doc\s)?"),
    "clojure": (_SEMICOLONS := re.compile(r"^\s*;+\s?")),
    "scheme": _SEMICOLONS,
    "racket": _SEMICOLONS,
    "commonlisp": _SEMICOLONS,
    "elm": re.compile(r"^\s*(?:\{-\|?|-}|--)\s?|\s*-}\s*$"),
    "pascal": re.compile(r"^\s*(?:\{|\(\*|//)\s?|\s*(?:\}|\*\))\s*$"),
    "d": re.compile(r"^\s*(?:/\*+|/\++|\*+/|\++/|\*|\+|///?|//)\s?|\s*[*+]+/\s*$"),
}
SIGNATURE_MAX_CHARS = 200
SIGNATURE_MAX_LINES = 8
DOC_MAX_CHARS = 500

QUERY_FOLDER = Path(__file__).parent / "queries"

_parsers = threading.local()


@dataclass
class _Scope:
    """A definition (or a container-only node such as a Rust impl) while the file is walked."""

    node: ts.Node
    outer: ts.Node
    name_node: ts.Node
    name: str
    kind: str
    pattern: int
    receiver: str | None = None
    symbol: bool = True
    container: str | None = None
    qualified: str = ""
    # The last clause of a definition written in several (CLAUSE_LANGUAGES), or a body the grammar puts
    # beside its signature (DETACHED_BODIES): its end ends the definition.
    last: ts.Node | None = None
    # Bytes from the name node's start to the name itself (`::queue::pop` names `pop`).
    name_offset: int = 0

    @property
    def end_byte(self) -> int:
        return (self.last or self.outer).end_byte


@dataclass(frozen=True)
class _RawReference:
    name_node: ts.Node
    kind: str
    # The module a query's `@qualifier` capture names (Erlang's `kv_util:first`): the reference is then
    # `kv_util.first`, which the graph resolves only to a definition of that module.
    qualifier: str | None = None


class _Columns:
    """Converts tree-sitter's byte columns to code-point columns (identity for ASCII files)."""

    def __init__(self, text: str, data: bytes) -> None:
        self._ascii = text.isascii()
        self._lines = data.split(b"\n") if not self._ascii else []

    def column(self, row: int, byte_column: int) -> int:
        if self._ascii or byte_column == 0 or row >= len(self._lines):
            return byte_column
        return len(self._lines[row][:byte_column].decode("utf-8", "replace"))

    def span(self, node: ts.Node) -> Span:
        start, end = node.start_point, node.end_point
        if self._ascii:  # byte columns are the columns (a call per node: ~300k per Django)
            return Span(start.row, start.column, end.row, end.column)
        start_column = self.column(start.row, start.column)
        return Span(start.row, start_column, end.row, self.column(end.row, end.column))

    def name_span(self, node: ts.Node, offset: int) -> Span:
        """The span of a name that starts `offset` bytes into its node (on the node's first line)."""
        span = self.span(node)
        if not offset:
            return span
        start = node.start_point
        return Span(start.row, self.column(start.row, start.column + offset), span.end_line, span.end_col)

    def definition_span(self, node: ts.Node, data: bytes) -> Span:
        """Like `span`, but a node that swallows its final newline (C `#define`) ends on its last line."""
        end = node.end_point
        if end.column != 0 or end.row == node.start_point.row:
            return self.span(node)
        last_line_end = node.end_byte - 1
        last_line_start = data.rfind(b"\n", 0, last_line_end) + 1
        width = self.column(end.row - 1, last_line_end - last_line_start)
        start = node.start_point
        return Span(start.row, self.column(start.row, start.column), end.row - 1, width)


def parse_file(path: str, text: str, language: str | None) -> ParsedFile:
    """Symbols, references, imports and chunks of one file; chunks only without a grammar."""
    if language not in GRAMMARS:
        return ParsedFile(chunks=make_chunks(path, text, language, ()))
    data = text.encode("utf-8", "surrogatepass")
    columns = _Columns(text, data)
    code = language
    templates: list[tuple[int, int]] = []
    if language in SCRIPT_HOSTS:
        data, code, templates = _script_blocks(language, data)
    tree = _parser(code).parse(data)
    if code in ITEM_MACRO_LANGUAGES:
        data, tree = _with_item_macros_opened(code, data, tree)
    written = data  # C/C++'s passes below replace macros, same length: signatures show what is written
    if code in MACRO_LINE_LANGUAGES:
        data, tree = _with_namespace_macros_opened(code, data, tree)
        data, tree = _with_class_head_macros_blanked(code, data, tree)
        data, tree = _with_specifier_macros_blanked(code, data, tree)
        data, tree = _with_macro_lines_blanked(code, data, tree)
    scopes, references, import_nodes = _collect(code, tree.root_node)
    if language in SCRIPT_HOSTS:
        scopes, references = _component_names(code, tree.root_node, scopes, references, templates)
    _nest(scopes, code)
    text_of = written if code in MACRO_LINE_LANGUAGES else data
    symbols = tuple(_symbol(scope, path, code, text_of, columns) for scope in scopes if scope.symbol)
    if code != language:
        symbols = tuple(replace(symbol, language=language) for symbol in symbols)
    parsed_references = _references(references, scopes, path, columns)
    imports = _imports(code, import_nodes)
    chunks = make_chunks(path, text, language, symbols)
    if language == "rust":
        symbols += _rust_reexports(tree.root_node, scopes, path, data, columns)
    return ParsedFile(symbols=symbols, references=parsed_references, imports=imports, chunks=chunks)


def warm(languages: Iterable[str]) -> None:
    """Load the grammar and compile the queries of each of `languages` (those with a grammar), by parsing
    an empty line in each: the first edit after a restart otherwise pays them, and this module's import,
    on the user's keystroke (a grammar and its queries cost some 10-40 ms each). Grammars and queries are
    shared by every thread; a parser is per thread, and cheap to make."""
    for language in sorted(set(languages) & set(GRAMMARS)):
        parse_file("", "\n", language)


# Single-file components whose code is in `<script>` blocks: the pack's Vue and Svelte grammars leave a
# script's body as raw text, so it is parsed again with the JavaScript or TypeScript grammar (by the
# block's `lang`), on a copy of the file blanked outside the scripts: every byte keeps its offset, so
# definitions keep their lines and columns.
SCRIPT_HOSTS = frozenset({"vue", "svelte"})
SCRIPT_LANGUAGES = {"ts": "typescript", "typescript": "typescript", "tsx": "tsx", "jsx": "tsx"}
_NOT_NEWLINE = re.compile(rb"[^\n]")


def _script_blocks(language: str, data: bytes) -> tuple[bytes, str, list[tuple[int, int]]]:
    """The file with everything but its `<script>` bodies and template expressions blanked to spaces,
    the language to parse them with (TypeScript if any block says so: it reads JavaScript too), and the
    byte ranges of the template expressions."""
    tree = _parser(language).parse(data)
    blanked = bytearray(_NOT_NEWLINE.sub(b" ", data))
    code = "javascript"
    for element in tree.root_node.named_children:
        if element.type != "script_element":
            continue
        for child in element.named_children:
            if child.type == "raw_text":
                blanked[child.start_byte : child.end_byte] = data[child.start_byte : child.end_byte]
            elif child.type == "start_tag":
                lang = SCRIPT_LANGUAGES.get(_attribute(child, "lang"))
                if lang is not None and code != "tsx":
                    code = lang
    templates: list[tuple[int, int]] = []
    for expression in _template_expressions(tree.root_node):
        # Each as a statement of its own: the byte before it (a quote or a brace) becomes a `;`.
        blanked[expression.start_byte : expression.end_byte] = data[expression.start_byte : expression.end_byte]
        if expression.start_byte > 0:
            blanked[expression.start_byte - 1] = ord(";")
        templates.append((expression.start_byte, expression.end_byte))
    return bytes(blanked), code, templates


# Patterns of `queries/component.scm` are numbered after the language's own: those win ties on a node.
_COMPONENT_PATTERNS = 1 << 20


def _component_names(
    code: str, root: ts.Node, scopes: list[_Scope], references: list[_RawReference], templates: list[tuple[int, int]]
) -> tuple[list[_Scope], list[_RawReference]]:
    """A component's script state as definitions (`queries/component.scm`), and the template's bare uses
    of the script's names (`:items="visible"`, `{count}`) as references: the JavaScript queries see
    calls, not plain identifiers, and a template name that the script does not define (a `v-for`
    variable, a global) is nothing the workspace can resolve."""
    by_node = {scope.node.id: scope for scope in scopes}
    for pattern, captures in ts.QueryCursor(_component_query(code)).matches(root):
        for capture, nodes in captures.items():
            if capture.startswith("definition.") and captures.get("name"):
                _add_scope(by_node, _COMPONENT_PATTERNS + pattern, capture, nodes[0], captures["name"][0], None, code)
    merged = sorted(by_node.values(), key=lambda s: (s.outer.start_byte, -s.end_byte, s.pattern))
    defined = {scope.name for scope in merged}
    seen = {ref.name_node.id for ref in references}
    uses = list(references)
    for start, end in templates:
        expression = root.descendant_for_byte_range(start, end)
        stack = [expression] if expression is not None else []
        while stack:
            node = stack.pop()
            if node.type == "identifier" and node.id not in seen and _text(node) in defined:
                uses.append(_RawReference(node, "reference"))
                seen.add(node.id)
            stack.extend(child for child in node.named_children if start <= child.start_byte < end)
    return merged, uses


@cache
def _component_query(code: str) -> ts.Query:
    return ts.Query(grammar(code), (QUERY_FOLDER / "component.scm").read_text(encoding="utf-8"))


# Where a component's template holds code: Vue's directive values (`@click="toggle(item)"`) and
# `{{ … }}` interpolations, Svelte's `{…}` expressions. Parsed with the script, they make the template's
# calls references to the script's functions.
TEMPLATE_EXPRESSIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "vue": (("attribute_value", "quoted_attribute_value"), ("raw_text", "interpolation")),
    "svelte": (("raw_text_expr", "expression"),),
}


def _template_expressions(root: ts.Node) -> Iterable[ts.Node]:
    """The template's expression nodes, outside `<script>` and `<style>`, in file order."""
    wanted = {pair for pairs in TEMPLATE_EXPRESSIONS.values() for pair in pairs}
    stack = [child for child in reversed(root.named_children) if child.type not in ("script_element", "style_element")]
    while stack:
        node = stack.pop()
        parent = node.parent
        if parent is not None and (node.type, parent.type) in wanted and _is_code(parent):
            yield node
            continue
        stack.extend(reversed(node.named_children))


def _is_code(holder: ts.Node) -> bool:
    """A quoted attribute value is code only in a directive (`@click`, `:key`, `v-if`), not in `class="…"`."""
    if holder.type != "quoted_attribute_value":
        return True
    return holder.parent is not None and holder.parent.type == "directive_attribute"


def _attribute(tag: ts.Node, name: str) -> str:
    """The value of attribute `name` on an HTML-like start tag, "" when absent."""
    for attribute in tag.named_children:
        names = [child for child in attribute.named_children if child.type == "attribute_name"]
        if attribute.type == "attribute" and names and _text(names[0]) == name:
            values = [child for child in attribute.named_children if child.type != "attribute_name"]
            return _unquote(_text(values[0])) if values else ""
    return ""


# Path heads that name this crate or a module of it, never another crate.
RUST_LOCAL_ROOTS = frozenset({"crate", "self", "super", "Self"})


def _rust_reexports(
    root: ts.Node, scopes: list[_Scope], path: str, data: bytes, columns: _Columns
) -> tuple[Symbol, ...]:
    """The names a file's top-level `pub use other_crate::…::Name;` makes part of its public API.

    axum's `FromRequest` is defined in axum_core, which a checkout of axum does not hold; `pub use
    axum_core::extract::FromRequest` in extract/mod.rs is the only place the workspace gives it. Since
    Rust 2018 a path may also start at a child module (`mod sse; pub use sse::Sse;`), an item or a name
    another `use` brought in: those heads are local, so their names are defined elsewhere in the
    workspace and are left out. The re-export spans its `use` statement and makes no chunk of its own.
    """
    local = set(RUST_LOCAL_ROOTS)
    local.update(scope.name for scope in scopes if scope.container is None)
    uses: list[ts.Node] = []
    for item in root.named_children:
        head = item.child_by_field_name("name" if item.type == "mod_item" else "argument")
        if item.type == "mod_item" and head is not None:
            local.add(_text(head))
        elif item.type == "use_declaration" and head is not None:
            uses.append(item)
            local.update(bound for _, bound, _ in _rust_use_names(head, ()))
    found: list[Symbol] = []
    for item in uses:
        argument = item.child_by_field_name("argument")
        visibility = next((child for child in item.named_children if child.type == "visibility_modifier"), None)
        if argument is None or visibility is None or _text(visibility) != "pub":
            continue
        for segments, name, name_node in _rust_use_names(argument, ()):
            if len(segments) < 2 or segments[0] in local:
                continue
            found.append(
                Symbol(
                    name=name,
                    kind="type",
                    path=path,
                    span=columns.definition_span(item, data),
                    name_span=columns.span(name_node),
                    qualified=name,
                    signature=_signature(item, data),
                    doc=_leading_comment(item, data, "rust")[:DOC_MAX_CHARS],
                    language="rust",
                    reexport_of="::".join(segments),
                )
            )
    return tuple(found)


def _rust_use_names(node: ts.Node, prefix: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], str, ts.Node]]:
    """(full path, name it binds, the name's node) for each name a use tree binds; globs bind none."""
    if node.type == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None and alias is not None:
            yield (*prefix, *_rust_segments(path)), _text(alias), alias
    elif node.type == "scoped_use_list":
        path, listed = node.child_by_field_name("path"), node.child_by_field_name("list")
        inner = (*prefix, *_rust_segments(path)) if path is not None else prefix
        if listed is not None:
            yield from _rust_use_names(listed, inner)
    elif node.type == "use_list":
        for child in node.named_children:
            yield from _rust_use_names(child, prefix)
    elif node.type == "self" and prefix:
        yield prefix, prefix[-1], node  # `use http::header::{self, HeaderMap}` binds `header`
    elif node.type in ("identifier", "scoped_identifier"):
        segments = (*prefix, *_rust_segments(node))
        name = node.child_by_field_name("name") if node.type == "scoped_identifier" else node
        if name is not None and segments[-1] != "self":
            yield segments, _text(name), name


def _rust_segments(node: ts.Node) -> tuple[str, ...]:
    """`a::b::c` -> ("a", "b", "c"); a leading `::` (an explicit extern path) adds nothing."""
    if node.type == "scoped_identifier":
        path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
        head = _rust_segments(path) if path is not None else ()
        return (*head, _text(name)) if name is not None else head
    return (_text(node),)


# Languages whose code wraps definitions in macro calls that the grammar leaves as unparsed token trees:
# tokio writes `cfg_rt! { pub struct LocalSet { … } }` some 300 times, so `LocalSet` had no definition.
ITEM_MACRO_LANGUAGES = frozenset({"rust"})
_ITEM_PARENTS = frozenset({"source_file", "declaration_list"})


def _with_item_macros_opened(language: str, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree]:
    """The file re-parsed with each item-position `name! { … }` call's head and braces blanked to
    spaces, so the definitions inside parse as items at their own bytes, lines and columns. Kept
    only when that parse is as clean as the first (a macro whose body is not items stays a call)."""
    opened = bytearray(data)
    changed = False
    for node in tree.root_node.children if tree.root_node.type in _ITEM_PARENTS else ():
        for call in _item_macro_calls(node):
            body = call.children[-1]
            if body.type != "token_tree" or not body.text or not body.text.startswith(b"{"):
                continue
            opened[call.start_byte:body.start_byte + 1] = b" " * (body.start_byte + 1 - call.start_byte)
            opened[body.end_byte - 1:call.end_byte] = b" " * (call.end_byte - body.end_byte + 1)
            changed = True
    if not changed:
        return data, tree
    reparsed = _parser(language).parse(bytes(opened))
    if reparsed.root_node.has_error and not tree.root_node.has_error:
        return data, tree
    return bytes(opened), reparsed


# C and C++ open namespaces and export blocks with a macro alone on its line (`ABSL_NAMESPACE_BEGIN`,
# `FMT_BEGIN_NAMESPACE`, `NLOHMANN_JSON_NAMESPACE_BEGIN`). Without the preprocessor the grammar reads
# it as the type of a declaration that swallows the next definition: `absl::Hash`, nlohmann's
# `adl_serializer` and abseil's `linked_hash_map` were not symbols, their members had the wrong container.
MACRO_LINE_LANGUAGES = frozenset({"c", "cpp"})
_MACRO_NAME = re.compile(rb"[A-Z][A-Z0-9_]*")
_MACRO_HOSTS = frozenset({"declaration", "field_declaration", "function_definition"})
# Where such a line can stand: among a file's, a namespace's or a class's items (the walk enters no body).
_MACRO_SCOPES = frozenset(
    {
        "translation_unit", "namespace_definition", "declaration_list", "linkage_specification",
        "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
        "class_specifier", "struct_specifier", "union_specifier", "field_declaration_list",
        "template_declaration",
    }
)  # fmt: skip


def _with_macro_lines_blanked(language: str, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree]:
    """The file re-parsed with each misread macro line blanked to spaces (same bytes, lines and
    columns): a SHOUTING name alone on its line that the grammar took as the type of a declaration
    running on past that line and failing to parse there. A macro the grammar read right (an
    enumerator, an argument, a return type on its own line above the function) is kept."""
    misread = list(_misread_macro_lines(tree.root_node, data))
    if not misread:
        return data, tree
    opened = bytearray(data)
    for node in misread:
        opened[node.start_byte:node.end_byte] = b" " * (node.end_byte - node.start_byte)
    reparsed = _parser(language).parse(bytes(opened))
    if reparsed.root_node.has_error and not tree.root_node.has_error:
        return data, tree
    return bytes(opened), reparsed


# An attribute macro between `class` and the name (`class ABSL_ATTRIBUTE_OWNER btree_map : …`,
# `class FMT_SO_VISIBILITY("default") format_error : …`) becomes the class's name in the grammar's reading.
# Only where a name and then a base list, a body or `final` follow: `struct FOO bar;` declares `bar`.
_CLASS_HEAD_MACRO = re.compile(
    rb"\b(?:class|struct|union)\s+(?P<macro>[A-Z][A-Z0-9_]*[A-Z0-9](?:\s*\([^()\n]*\))?)\s+"
    rb"(?=[A-Za-z_]\w*\s*(?:\bfinal\b|:(?!:)|\{))"
)


def _with_class_head_macros_blanked(language: str, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree]:
    """The file re-parsed with each class-head attribute macro blanked to spaces (same bytes, lines
    and columns), so the class is named by its name."""
    found = [match.span("macro") for match in _CLASS_HEAD_MACRO.finditer(data)]
    if not found:
        return data, tree
    opened = bytearray(data)
    for start, end in found:
        opened[start:end] = b" " * (end - start)
    return bytes(opened), _parser(language).parse(bytes(opened))


def _misread_macro_lines(root: ts.Node, data: bytes) -> Iterable[ts.Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _MACRO_SCOPES:
            stack.extend(node.children)
        if node.type not in _MACRO_HOSTS or not node.has_error:
            continue
        head = node.child_by_field_name("type")
        if head is None or head.type != "type_identifier" or head.start_byte != node.start_byte:
            continue
        if node.end_point.row == head.end_point.row or not _MACRO_NAME.fullmatch(_text_bytes(head)):
            continue
        line_start = data.rfind(b"\n", 0, head.start_byte) + 1
        line_end = data.find(b"\n", head.end_byte)
        rest = data[head.end_byte : line_end if line_end >= 0 else len(data)]
        if not data[line_start : head.start_byte].strip() and not rest.strip():
            yield head


# C and C++ declarations lead with specifier and attribute macros the grammar cannot expand:
# `FMT_CONSTEXPR void f()`, `FMT_NORETURN FMT_API void report_error(…)`, `static FMT_INLINE int g()`,
# `ABSL_MUST_USE_RESULT bool Ok()`, `void f() FMT_NOEXCEPT;`, `int n ABSL_GUARDED_BY(mu);`. The grammar reads
# the first as a type and the real type as an ERROR (fmtlib's base.h: 189 error nodes), members lose their
# class and definitions their span. In a file that does not parse cleanly, such names are blanked to
# spaces (same bytes, lines and columns) and the file re-parsed; kept only when that has fewer errors.
# A SHOUTING run is in specifier position at a declaration's start (after `;`, `{`, `}`, `>`, a label or a
# storage keyword) followed by what cannot follow a type: a declaration keyword, or a type and a name.
_SHOUTING = re.compile(rb"(?<![\w.$:])[A-Z][A-Z0-9_]*[A-Z0-9](?![\w$])")
_MACRO_ARGUMENTS = re.compile(rb"\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")
# What no type is followed by: so the names before it are specifiers (`FMT_CONSTEXPR void`, `X inline`).
_DECLARATION_KEYWORD = re.compile(
    rb"\s*(?:void|bool|char|short|int|long|float|double|signed|unsigned|auto|static|inline|extern|virtual|"
    rb"explicit|friend|constexpr|consteval|constinit|typename|template|typedef|decltype|struct|class|union|"
    rb"enum|wchar_t|char8_t|char16_t|char32_t)\b"
)
# A type (qualified, templated, pointer or reference) and then a name: `FMT_API std::string format(`.
_TYPE_THEN_NAME = re.compile(
    rb"\s*(?:const\s+)?(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*(?:\s*<[^;{}\n]*>)?(?:\s*::\s*\w+)*"
    rb"(?:\s*[*&]+\s*|\s+)(?:const\s+)?[*&]*\s*(?:\w+\s*::\s*)*~?[A-Za-z_]\w*\s*[(\[;=,{]"
)
# The words of a macro name that say it is a specifier or attribute, for the positions where a type could
# stand as well (before a constructor's name, after a declarator): `FMT_CONSTEXPR basic_string_view(…)`,
# `void f() FMT_NOEXCEPT`, `int n ABSL_GUARDED_BY(mu)`. Trailing digits aside (`FMT_CONSTEXPR20`).
SPECIFIER_MACRO_WORDS = frozenset(
    {
        "API", "EXPORT", "IMPORT", "DLL", "DECL", "EXTERN", "INLINE", "NOINLINE", "CONSTEXPR", "CONSTEVAL",
        "NOEXCEPT", "NORETURN", "NODISCARD", "DEPRECATED", "ATTRIBUTE", "ATTR", "VISIBILITY", "VISIBLE",
        "HIDDEN", "PURE", "MUST", "UNUSED", "MAYBE", "FORCEINLINE", "ALWAYS", "OVERRIDE", "FINAL", "NONNULL",
        "RESTRICT", "GUARDED", "REQUIRES", "EXCLUDES", "LOCKS", "LOCKABLE", "ACQUIRE", "RELEASE", "SCOPED",
        "LIFETIME", "WARN", "CDECL", "STDCALL", "WINAPI", "CALLBACK", "APIENTRY", "CALL", "NOTHROW", "THROW",
        "PRINTF", "FORMAT", "HOT", "COLD", "ALIGN", "ALIGNAS", "PACKED", "THREAD", "LOCAL", "STATIC", "PUBLIC",
        "EXPLICIT", "CONST", "LIKELY", "UNLIKELY", "FALLTHROUGH", "SO", "GNUC", "AVAILABLE",
    }
)  # fmt: skip
_STORAGE_WORDS = frozenset({b"static", b"inline", b"extern", b"virtual", b"explicit", b"friend", b"constexpr"})
_NAME_AND_PARAMETERS = re.compile(rb"\s*~?[A-Za-z_]\w*\s*\(")
_TRAILING_FOLLOWERS = re.compile(rb"\s*(?:[;{=:,]|->|\b(?:override|final|const|noexcept)\b)")
_NOT_CODE = frozenset(
    {"comment", "string_literal", "string_content", "raw_string_literal", "raw_string_content", "char_literal",
     "preproc_arg", "system_lib_string", "escape_sequence"}
)  # fmt: skip


def _errors(root: ts.Node) -> tuple[int, int]:
    """How much of a tree did not parse: the bytes under its outermost ERROR nodes (and one per MISSING
    node), and how many ERROR and MISSING nodes it has."""
    covered = count = 0
    stack = [(root, False)]
    while stack:
        node, inside = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
            if not inside:
                covered += max(1, node.end_byte - node.start_byte)
        if node.has_error:
            stack.extend((child, inside or node.type == "ERROR") for child in node.children)
    return covered, count


def _is_specifier_macro(name: bytes) -> bool:
    return any(part.rstrip(b"0123456789").decode() in SPECIFIER_MACRO_WORDS for part in name.split(b"_"))


def _with_specifier_macros_blanked(language: str, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree]:
    """The file re-parsed with its specifier and attribute macros blanked (see above), when it had errors
    and that leaves fewer; else the file and tree as they were."""
    if not tree.root_node.has_error:
        return data, tree
    spans = list(_specifier_macros(data, tree.root_node))
    return _blanked_if_better(language, data, tree, spans, BLANKING_SPLITS)


# Error recovery is not local: one blanked name can lose a namespace that parsed before
# (`ABSL_ATTRIBUTE_NOINLINE raw_hash_set(raw_hash_set&& that) noexcept(…)` in abseil's raw_hash_set.h),
# while the rest of the file's blanking mends it. So a set of blankings that reads worse is tried again
# in halves, this many times deep (each try is one more parse of the file).
BLANKING_SPLITS = 3


def _blanked_if_better(
    language: str, data: bytes, tree: ts.Tree, spans: list[tuple[int, int, bytes]], splits: int
) -> tuple[bytes, ts.Tree]:
    """The file with `spans` replaced and re-parsed if that leaves less of it unparsed (no more bytes under
    errors and no more error nodes, one of them fewer); else the halves of `spans` tried in turn, `splits`
    levels deep."""
    if not spans:
        return data, tree
    opened = bytearray(data)
    for start, end, text in spans:
        opened[start:end] = text.ljust(end - start)
    reparsed = _reparsed(language, data, tree, bytes(opened), [(start, end) for start, end, _ in spans])
    before, after = _errors(tree.root_node), _errors(reparsed.root_node)
    if after != before and after[0] <= before[0] and after[1] <= before[1]:
        return bytes(opened), reparsed
    if splits == 0 or len(spans) == 1:
        return data, tree
    half = len(spans) // 2
    data, tree = _blanked_if_better(language, data, tree, spans[:half], splits - 1)
    return _blanked_if_better(language, data, tree, spans[half:], splits - 1)


_NEWLINE = re.compile(rb"\n")


def _reparsed(language: str, data: bytes, tree: ts.Tree, changed: bytes, spans: list[tuple[int, int]]) -> ts.Tree:
    """`changed` (`data` with `spans` rewritten, same length) parsed incrementally from `tree`: the same
    tree a fresh parse gives, in about a third of the time (fmtlib's format.h)."""
    newlines = [match.start() for match in _NEWLINE.finditer(data)] if spans else []

    def point(offset: int) -> tuple[int, int]:
        row = bisect.bisect_left(newlines, offset)
        return row, offset - (newlines[row - 1] + 1 if row else 0)

    edited = tree.copy()
    for start, end in spans:
        edited.edit(start, end, end, point(start), point(end), point(end))
    return _parser(language).parse(changed, edited)


def _specifier_macros(data: bytes, root: ts.Node) -> Iterable[tuple[int, int, bytes]]:
    """Byte spans (name and arguments) of the specifier macros of a C/C++ file, in order, with what
    replaces each: nothing, or `int` for a constraint macro among template parameters
    (`template <typename T, FMT_ENABLE_IF(cond)>`: an unnamed non-type parameter, as it expands to)."""
    position = 0
    for match in _SHOUTING.finditer(data):
        if match.start() < position:
            continue
        run = [match]
        end = _after_arguments(data, match.end())
        while (following := _SHOUTING.match(data, _skip_space(data, end))) is not None:
            run.append(following)
            end = _after_arguments(data, following.end())
        position = end
        line_start = data.rfind(b"\n", 0, match.start()) + 1
        if data[line_start : match.start()].lstrip().startswith(b"#") or not _in_code(root, *match.span()):
            continue
        before = _previous_token(data, match.start())
        names = [m.group() for m in run]
        closes = data[_skip_space(data, end) :][:1] in (b">", b",")
        if before in (b"<", b",") and len(run) == 1 and end > match.end() and closes:
            if _in_template_parameters(data, match.start()):
                yield match.start(), end, b"int"
        elif before == b"if" and len(run) == 1 and _is_specifier_macro(names[0]):
            yield match.start(), end, b""  # `if FMT_CONSTEXPR20 (…)`
        elif before in (b"", b";", b"{", b"}", b">", b":") or before in _STORAGE_WORDS or (
            _SHOUTING.fullmatch(before) and _is_specifier_macro(before)
        ):
            if _DECLARATION_KEYWORD.match(data, end) or _TYPE_THEN_NAME.match(data, end):
                yield from ((m.start(), _after_arguments(data, m.end()), b"") for m in run)
            else:  # a type may stand there (`DWORD WINAPI f(`): only the names that say they are specifiers,
                # before a constructor's or function's name or a type of the run (`FOO_API MYTYPE* f(`)
                keep = [m for m, name in zip(run, names, strict=True) if _is_specifier_macro(name)]
                if len(keep) < len(run) or _NAME_AND_PARAMETERS.match(data, end):
                    yield from ((m.start(), _after_arguments(data, m.end()), b"") for m in keep)
        elif (
            (before == b")" or before[-1:].isalnum() or before[-1:] == b"_")
            and before not in _NOT_TYPE_WORDS
            and len(run) == 1
            and _is_specifier_macro(names[0])
            and _TRAILING_FOLLOWERS.match(data, end)
        ):
            yield match.start(), end, b""


# Words after which a SHOUTING name is an expression, not a trailing attribute.
_NOT_TYPE_WORDS = frozenset({b"return", b"case", b"throw", b"else", b"do", b"goto", b"co_return", b"co_yield",
                             b"sizeof", b"new", b"delete", b"and", b"or", b"not", b"define", b"ifdef",
                             b"ifndef", b"if", b"elif", b"undef", b"include", b"pragma"})


def _skip_space(data: bytes, position: int) -> int:
    while position < len(data) and data[position] in b" \t\r\n":
        position += 1
    return position


def _after_arguments(data: bytes, position: int) -> int:
    arguments = _MACRO_ARGUMENTS.match(data, position)
    return arguments.end() if arguments else position


def _previous_token(data: bytes, position: int) -> bytes:
    """The word or punctuation character just before `position`, across spaces, newlines and comments."""
    end = position
    while True:
        while end > 0 and data[end - 1] in b" \t\r\n":
            end -= 1
        line_start = data.rfind(b"\n", 0, end) + 1
        comment = data.find(b"//", line_start, end)
        if data[line_start:end].lstrip().startswith(b"#") and line_start > 0:
            end = line_start - 1  # a preprocessor line between (`#if FMT_GCC_VERSION` / `FMT_ALWAYS_INLINE`)
        elif comment >= 0 and data.count(b'"', line_start, comment) % 2 == 0:
            end = comment
        elif data[end - 2 : end] == b"*/" and (opening := data.rfind(b"/*", 0, end - 2)) >= 0:
            end = opening
        else:
            break
    if end == 0:
        return b""
    if not (data[end - 1 : end].isalnum() or data[end - 1] == ord("_")):
        return data[end - 1 : end]
    start = end
    while start > 0 and (data[start - 1 : start].isalnum() or data[start - 1] == ord("_")):
        start -= 1
    return data[start:end]


def _in_template_parameters(data: bytes, position: int) -> bool:
    """Whether `position` is inside a `template <…>` list (looked for in the 400 bytes before)."""
    window = data[max(0, position - 400) : position]
    opening = window.rfind(b"template")
    return opening >= 0 and re.match(rb"template\s*<[^;{}]*$", window[opening:]) is not None


def _in_code(root: ts.Node, start: int, end: int) -> bool:
    node = root.descendant_for_byte_range(start, end)
    if node is None or node.type in _NOT_CODE:
        return False
    return not any(n.type.startswith("preproc_") and n.type not in _PREPROC_BLOCKS for n in _ancestors(node))


_PREPROC_BLOCKS = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})


def _ancestors(node: ts.Node) -> Iterable[ts.Node]:
    current: ts.Node | None = node
    while current is not None:
        yield current
        current = current.parent


# A namespace opened and closed by macros alone on their lines (fmtlib's `FMT_BEGIN_NAMESPACE` … `FMT_END_NAMESPACE`,
# `#define`d as `namespace fmt { inline namespace v12 {` and `} }`): replaced, same length, by what they open and
# close, `namespace fmt{` (inline namespaces dropped: their members are the outer namespace's) and `}`, so the
# definitions between have their namespace. The expansion is read from the file's own `#define`; a file that only
# uses them (fmt's format.h) takes the name from the macro's prefix, when the macro says NAMESPACE and BEGIN or
# OPEN and stands outside every namespace. Inside one (abseil's `namespace absl {` then `ABSL_NAMESPACE_BEGIN`) it
# is a version namespace and is blanked. Closers pair with the last opener still open.
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Z][A-Z0-9_]*)(?![\w(])((?:[^\n\\]|\\\r?\n|\\)*)", re.MULTILINE)
_DEFINE_NOISE = re.compile(rb"\\\r?\n|/\*.*?\*/|//[^\n]*", re.DOTALL)
_NAMESPACE_OPENING = re.compile(rb"\s*(inline\s+)?namespace\s+([A-Za-z_][\w:]*)\s*\{")
_OPENER_NAME = re.compile(
    rb"([A-Z][A-Z0-9]*)_(?:[A-Z0-9]+_)*?(?:BEGIN_NAMESPACE|NAMESPACE_BEGIN|OPEN_NAMESPACE|NAMESPACE_OPEN)"
)
_CLOSER_NAME = re.compile(
    rb"[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*?(?:END_NAMESPACE|NAMESPACE_END|CLOSE_NAMESPACE|NAMESPACE_CLOSE)"
)
_LINE_MACRO = re.compile(rb"^[ \t]*([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*(?://[^\n]*)?\r?$", re.MULTILINE)


def _with_namespace_macros_opened(language: str, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree]:
    """The file re-parsed with its namespace macros replaced (see above); kept unless that adds errors."""
    if language != "cpp":
        return data, tree
    uses = [match for match in _LINE_MACRO.finditer(data) if b"NAMESPACE" in match.group(1)]
    if not uses:
        return data, tree
    openers, closers = _namespace_defines(data)
    opened = bytearray(data)
    open_stack: list[int] = []
    for use in uses:
        name = use.group(1)
        start, end = use.span(1)
        if not _in_code(tree.root_node, start, end):
            continue
        if name in openers or (name not in closers and _OPENER_NAME.fullmatch(name)):
            if name in openers:
                names = openers[name]
            else:
                at = tree.root_node.descendant_for_byte_range(start, end) or tree.root_node
                inside = any(node.type == "namespace_definition" for node in _ancestors(at))
                prefix = _OPENER_NAME.fullmatch(name)
                names = [] if inside or prefix is None else [prefix.group(1).lower()]
            text = b"namespace " + b"::".join(names) + b"{" if names else b""
            if len(text) > end - start:
                text = b""
            open_stack.append(1 if text else 0)
        elif name in closers or _CLOSER_NAME.fullmatch(name):
            text = b"}" * (open_stack.pop() if open_stack else 0)
        else:
            continue
        opened[start:end] = text.ljust(end - start)
    if opened == data:
        return data, tree
    reparsed = _parser(language).parse(bytes(opened))
    before, after = _errors(tree.root_node), _errors(reparsed.root_node)
    if after[0] > before[0] or after[1] > before[1]:
        return data, tree
    return bytes(opened), reparsed


def _namespace_defines(data: bytes) -> tuple[dict[bytes, list[bytes]], set[bytes]]:
    """The file's `#define`s that open namespaces (name -> the non-inline namespaces, outermost first) and
    the ones that only close braces."""
    openers: dict[bytes, list[bytes]] = {}
    closers: set[bytes] = set()
    for define in _DEFINE.finditer(data):
        body = _DEFINE_NOISE.sub(b" ", define.group(2)).strip()
        names: list[bytes] = []
        position = 0
        while (opening := _NAMESPACE_OPENING.match(body, position)) is not None:
            if not opening.group(1):
                names.extend(opening.group(2).split(b"::"))
            position = opening.end()
        if position and not body[position:].strip():
            openers[define.group(1)] = names
        elif body and not body.replace(b"}", b"").strip():
            closers.add(define.group(1))
    return openers, closers


def _item_macro_calls(node: ts.Node) -> Iterable[ts.Node]:
    """Macro calls in item position at `node`: itself, or inside a module or impl body it opens."""
    if node.type == "macro_invocation":
        yield node
        return
    for child in node.children:
        if child.type in _ITEM_PARENTS:
            for item in child.children:
                yield from _item_macro_calls(item)


def _parser(language: str) -> ts.Parser:
    """One parser per thread and language: parsers are reusable but not thread-safe."""
    cached: dict[str, ts.Parser] | None = getattr(_parsers, "by_language", None)
    if cached is None:
        cached = {}
        _parsers.by_language = cached
    if language not in cached:
        cached[language] = ts.Parser(grammar(language))
    return cached[language]


@cache
def _query(language: str) -> ts.Query:
    """Fourfold's patterns first (they win ties on the same node), then the shipped tags."""
    own = QUERY_FOLDER / f"{OWN_QUERIES.get(language, language)}.scm"
    parts = [own.read_text(encoding="utf-8") if own.is_file() else ""]
    parts.append(shipped_tags_query(language))
    parts.extend(shipped_tags_query(parent) for parent in INHERITED_TAGS.get(language, ()))
    query = ts.Query(grammar(language), "\n".join(parts))
    for index in range(query.pattern_count):
        # `(#is-not? local)` needs scope tracking we don't do; unfiltered it makes every Ruby
        # identifier a call.
        if "local" in query.pattern_assertions(index):
            query.disable_pattern(index)
    return query


def _collect(language: str, root: ts.Node) -> tuple[list[_Scope], list[_RawReference], list[ts.Node]]:
    """One query pass: definitions (deduplicated per node), references and import nodes."""
    scopes: dict[int, _Scope] = {}
    references: dict[int, _RawReference] = {}
    imports: list[ts.Node] = []
    for pattern, captures in ts.QueryCursor(_query(language)).matches(root):
        imports.extend(captures.get("import", ()))
        names = captures.get("name")
        if not names:
            continue
        for capture, nodes in captures.items():
            if capture.startswith(("definition.", "container.")):
                receivers = captures.get("receiver") or captures.get("local.scope")
                _add_scope(scopes, pattern, capture, nodes[0], names[0], receivers, language)
            elif capture.startswith("reference."):
                qualifiers = captures.get("qualifier")
                _add_reference(references, capture, names[0], _text(qualifiers[0]) if qualifiers else None)
    definition_names = {scope.name_node.id for scope in scopes.values()}
    kept = [ref for ref in references.values() if ref.name_node.id not in definition_names]
    ignored = IGNORED_REFERENCES.get(language)
    if ignored:  # only then is every name read here (`_references` reads the kept ones' anyway)
        kept = [ref for ref in kept if _text(ref.name_node) not in ignored]
    if language in LISP_LANGUAGES:
        kept = [ref for ref in kept if ref.kind != "call" or not _lisp_binding(ref.name_node.parent)]
    ordered = sorted(scopes.values(), key=lambda s: (s.outer.start_byte, -s.end_byte, s.pattern))
    return ordered, kept, imports


# Lisps head a list with a call, but also their parameter lists and bindings: `(lambda (n) …)`,
# `(let ((x 1)) …)`, `(defun rows (m) …)`, a struct's fields. Value: form -> positions (0 is the form) of
# the lists the form binds names with, and of the lists whose elements each do (`let`'s bindings).
LISP_LANGUAGES = frozenset({"scheme", "racket", "commonlisp"})
_LISP_LISTS = frozenset({"list", "list_lit"})
_LISP_PARAMETERS: dict[str, frozenset[int]] = {
    **dict.fromkeys(("lambda", "λ", "named-lambda", "multiple-value-bind", "destructuring-bind"), frozenset({1})),
    **dict.fromkeys(("struct", "define-struct", "defclass"), frozenset({2})),  # fields; defclass's superclasses
}
_LISP_BINDINGS: dict[str, frozenset[int]] = {
    **dict.fromkeys(
        ("let", "let*", "letrec", "letrec*", "let-values", "let*-values", "letrec-values", "parameterize",
         "fluid-let", "do", "flet", "labels", "macrolet", "symbol-macrolet", "let-syntax", "letrec-syntax",
         "with-slots"),
        frozenset({1}),
    ),
    "defclass": frozenset({3}),  # slot specifiers
}
_LOCAL_FUNCTIONS = dict.fromkeys(("flet", "labels", "macrolet"), frozenset({1}))


def _lisp_binding(holder: ts.Node | None) -> bool:
    """Whether the list whose head is a reference binds names instead of calling its head."""
    if holder is None or holder.type not in _LISP_LISTS:
        return False
    parent = holder.parent
    if parent is not None and "defun_header" in (parent.type, parent.parent and parent.parent.type):
        return True  # in Common Lisp's lambda list: `(m)`, or `((m matrix))`, a specialised parameter
    if _lisp_position(holder, _LISP_PARAMETERS):
        return True
    if parent is None or parent.type not in _LISP_LISTS:
        return False
    if _lisp_position(parent, _LISP_BINDINGS):
        return True
    # A local function of `flet`/`labels`, `(g (z) body)`: `(z)` is its lambda list.
    grandparent = parent.parent
    items = [child for child in parent.named_children if child.type not in COMMENT_TYPES]
    local_function = grandparent is not None and _lisp_position(grandparent, _LOCAL_FUNCTIONS)
    return local_function and len(items) > 1 and items[1] == holder


def _lisp_position(node: ts.Node, forms: dict[str, frozenset[int]]) -> bool:
    """Whether `node` stands in one of the positions `forms` gives for the form of the list around it."""
    parent = node.parent
    if parent is None or parent.type not in _LISP_LISTS:
        return False
    items = [child for child in parent.named_children if child.type not in COMMENT_TYPES]
    if not items or items[0].type not in ("symbol", "sym_lit"):
        return False
    head = _text(items[0])
    positions = forms.get(head)
    if positions is None:
        return False
    if head == "let" and len(items) > 1 and items[1].type in ("symbol", "sym_lit"):
        positions = frozenset(position + 1 for position in positions)  # a named let, `(let loop ((i 0)) …)`
    return any(position < len(items) and items[position] == node for position in positions)


def _add_scope(
    scopes: dict[int, _Scope],
    pattern: int,
    capture: str,
    node: ts.Node,
    name_node: ts.Node,
    receivers: list[ts.Node] | None,
    language: str,
) -> None:
    core = _lift(node)
    if core is None:
        return
    existing = scopes.get(core.id)
    if existing is not None and existing.pattern <= pattern:
        return
    section, _, raw_kind = capture.partition(".")
    outer = _outer(core)
    body = outer.next_named_sibling
    detached = body if body is not None and body.type in DETACHED_BODIES.get(language, ()) else None
    if language in DEDENTED_TAIL_LANGUAGES:
        tail = _dedented_tail(outer, outer.start_point.column)
        if tail and tail[0].prev_sibling is not None:
            detached = tail[0].prev_sibling  # the definition ends before the next one's doc comment
    name = _text(name_node)
    receiver_text = _text(receivers[0]) if receivers else None
    name_offset = 0
    if len(name) > 2 and name[0] == name[-1] == "`":
        # R's `%>%` <- function(…), Kotlin's fun `parses a header`(): the quotes are not part of the name
        name, name_offset = name[1:-1], 1
    separator = NAMESPACE_SEPARATORS.get(language)
    if separator is not None and separator in name:
        # Tcl's `proc ::queue::pop` defines `pop` in the namespace `queue`; its name starts after the `::`.
        full = name
        namespace, _, name = name.strip(separator).rpartition(separator)
        receiver_text = namespace or None
        name_offset = len(full.rstrip(separator).encode("utf-8")) - len(name.encode("utf-8"))
    scopes[core.id] = _Scope(
        node=core,
        outer=outer,
        name_node=name_node,
        name=name,
        kind=_kind(raw_kind, name, language),
        pattern=pattern,
        receiver=receiver_text,
        symbol=section == "definition",
        name_offset=name_offset,
        last=detached,
    )


# Grammars that end a definition's body with the comments below it, even those back at the definition's
# own indentation: Nim parses the `## Distance between two points.` above `proc distance` as the last
# statement of the proc before it. Such a comment documents the next definition, and ends the previous.
DEDENTED_TAIL_LANGUAGES = frozenset({"nim"})


def _dedented_tail(node: ts.Node, column: int) -> list[ts.Node]:
    """The comments, in file order, that end `node` (in its last statement, at any depth) and start at
    or left of `column`; empty when its last statement is code or an indented comment."""
    current = node
    while current.named_child_count:
        children = current.named_children
        if children[-1].type not in COMMENT_TYPES:
            current = children[-1]
            continue
        tail: list[ts.Node] = []
        for child in reversed(children):
            if child.type not in COMMENT_TYPES or child.start_point.column > column:
                break
            tail.append(child)
        return tail[::-1]
    return []


def _add_reference(
    references: dict[int, _RawReference], capture: str, name_node: ts.Node, qualifier: str | None = None
) -> None:
    kind = REFERENCE_KINDS.get(capture.partition(".")[2], "reference")
    existing = references.get(name_node.id)
    if (
        existing is None
        or REFERENCE_PRIORITY[kind] < REFERENCE_PRIORITY[existing.kind]
        or (kind == existing.kind and existing.qualifier is None and qualifier is not None)
    ):
        references[name_node.id] = _RawReference(name_node, kind, qualifier)


def _kind(raw_kind: str, name: str, language: str) -> str:
    raw_kind = KIND_ALIASES.get(raw_kind, raw_kind)
    kind = raw_kind if raw_kind in KINDS or raw_kind == "impl" else "variable"
    if kind == "constant" and language in LOOSE_CONSTANT_LANGUAGES and name != name.upper():
        return "variable"
    return kind


def _lift(node: ts.Node) -> ts.Node | None:
    """The node that stands for the whole definition (see LIFTS); None for a stray declarator."""
    rule = LIFTS.get(node.type)
    if rule is None:
        return node
    targets, passable, required = rule
    current = node.parent
    while current is not None and current.type in passable:
        current = current.parent
    if current is not None and current.type in targets and (required or current.named_child_count <= 2):
        return current
    return None if required else node


def _outer(node: ts.Node) -> ts.Node:
    outer = node
    while outer.parent is not None and outer.parent.type in WRAPPERS:
        outer = outer.parent
    return outer


def _nest(scopes: list[_Scope], language: str) -> None:
    """Containers, qualified names and method kinds, from how definitions nest in the tree."""
    class_like = CLASS_LIKE | CLASS_LIKE_EXTRA.get(language, frozenset())
    clauses = language in CLAUSE_LANGUAGES
    stack: list[_Scope] = []
    previous: dict[int, _Scope] = {}  # per parent (by node id, 0 at top level): the last sibling seen
    file_module: _Scope | None = None
    for scope in scopes:
        while stack and stack[-1].end_byte <= scope.outer.start_byte:
            stack.pop()
        parent = stack[-1] if stack else file_module
        if not stack and scope.kind == FILE_MODULE_LANGUAGES.get(language) and _body(scope.outer) is None:
            file_module, parent = scope, None
        if parent is not None and _restates(parent, scope):
            scope.symbol = False  # `app.set = function set() {…}` is one definition, not `set` and `set.set`
            continue
        sibling = previous.get(parent.node.id if parent is not None else 0)
        if clauses and sibling is not None and sibling.symbol and (sibling.name, sibling.kind) == (
            scope.name,
            scope.kind,
        ):
            sibling.last = scope.outer  # another clause of the same function: one symbol spans them
            scope.symbol = False
            scope.qualified = sibling.qualified
            scope.container = sibling.container
            continue
        previous[parent.node.id if parent is not None else 0] = scope
        prefix = parent.qualified if parent else ""
        if scope.receiver:
            scope.container = scope.receiver
            prefix = f"{prefix}.{scope.receiver}" if prefix else scope.receiver
        elif parent is not None:
            scope.container = parent.name
        scope.qualified = f"{prefix}.{scope.name}" if prefix else scope.name
        if scope.kind in ("function", "method"):
            # A receiver makes a method, but a Tcl namespace in a proc's name is not a receiver.
            receiver = scope.receiver is not None and language not in NAMESPACE_SEPARATORS
            is_member = receiver or (parent is not None and parent.kind in class_like)
            scope.kind = "method" if is_member else "function"
        stack.append(scope)


def _restates(parent: _Scope, scope: _Scope) -> bool:
    """Whether `scope` is its parent again: the same name, declared on the parent's first line (a named
    function expression assigned to a property or variable of that name)."""
    return parent.symbol and parent.name == scope.name and parent.outer.start_point.row == scope.outer.start_point.row


def _symbol(scope: _Scope, path: str, language: str, data: bytes, columns: _Columns) -> Symbol:
    span = columns.definition_span(scope.outer, data)
    if scope.last is not None:
        end = columns.definition_span(scope.last, data)
        span = Span(span.start_line, span.start_col, end.end_line, end.end_col)
    return Symbol(
        name=scope.name,
        kind=scope.kind,
        path=path,
        span=span,
        name_span=columns.name_span(scope.name_node, scope.name_offset),
        container=scope.container,
        qualified=scope.qualified,
        signature=_signature(scope.outer, data),
        doc=_doc(scope, language, data),
        language=language,
    )


def _signature(outer: ts.Node, data: bytes) -> str:
    """The definition's header: from its first keyword up to its body, on one line."""
    node = outer.child_by_field_name("definition") if outer.type == "decorated_definition" else outer
    node = node or outer
    body = _body(node)
    if body is not None and body.start_byte > node.start_byte:
        header = data[node.start_byte : body.start_byte]
    else:
        line_end = data.find(b"\n", node.start_byte, node.end_byte)
        header = data[node.start_byte : line_end if line_end >= 0 else node.end_byte]
    lines = header.decode("utf-8", "replace").split("\n")[:SIGNATURE_MAX_LINES]
    signature = " ".join(" ".join(lines).split()).rstrip("{:").rstrip()
    return signature[:SIGNATURE_MAX_CHARS]


def _body(node: ts.Node) -> ts.Node | None:
    if node.type == "template_declaration" and node.named_child_count:
        node = node.named_children[-1]  # `template <…>` then the function or class it makes
    body = node.child_by_field_name("body")
    if body is None:
        declaration = node.child_by_field_name("declaration")
        body = declaration.child_by_field_name("body") if declaration is not None else None
    return body


def _doc(scope: _Scope, language: str, data: bytes) -> str:
    """Python docstring if there is one, else the comment block right above the definition."""
    if language == "python":
        docstring = _docstring(scope.node)
        if docstring:
            return docstring[:DOC_MAX_CHARS]
    if language == "elixir":
        attribute = _elixir_doc(scope.outer)
        if attribute:
            return attribute[:DOC_MAX_CHARS]
    if language in INNER_DOCS:
        inner = _inner_doc(scope.node, language)
        if inner:
            return inner[:DOC_MAX_CHARS]
    if language == "commonlisp" and scope.outer.named_child_count and scope.outer.named_children[0].type == "defun":
        docstring = _clojure_doc(scope.outer.named_children[0], position=1)  # `(defun f (args) "doc" …)`
        if docstring:
            return docstring[:DOC_MAX_CHARS]
    if language == "clojure":
        docstring = _clojure_doc(scope.outer)
        if docstring:
            return docstring[:DOC_MAX_CHARS]
    return _leading_comment(scope.outer, data, language)[:DOC_MAX_CHARS]


# Languages that document a definition under its signature: Nim's `##` first in the body, MATLAB's help
# text (the first comment inside the function or class). Value: (where the comment is, its markers).
INNER_DOCS: dict[str, tuple[str | None, re.Pattern[str]]] = {
    "nim": ("body", re.compile(r"^\s*##\s?")),
    "matlab": (None, re.compile(r"^\s*%+\s?")),
}


def _inner_doc(node: ts.Node, language: str) -> str:
    field, markers = INNER_DOCS[language]
    holder = node.child_by_field_name(field) if field else node
    if holder is None:
        return ""
    comment = next((child for child in holder.named_children if child.type in COMMENT_TYPES), None)
    if field and (comment is None or holder.named_children[0] != comment):
        # Nim's grammar puts a `##` on the line under the signature before the body, not in it.
        before = holder.prev_named_sibling
        comment = before if before is not None and before.type in COMMENT_TYPES else None
    if comment is None:
        return ""
    return "\n".join(markers.sub("", line).strip() for line in _text(comment).split("\n")).strip()


def _clojure_doc(outer: ts.Node, position: int = 2) -> str:
    """The docstring of `(defn name "doc" [args] …)` (and of `ns`, `def`, `defprotocol`; of Common
    Lisp's `defun`, whose header is one node): a string right after the name, followed by more forms
    (in `(def greeting "hello")` the string is the value)."""
    forms = [child for child in outer.named_children if child.type not in COMMENT_TYPES]
    if len(forms) > position + 1 and forms[position].type == "str_lit":
        return inspect.cleandoc(_unquote(_text(forms[position])))
    return ""


# Elixir documents with attributes, not comments: `@doc` above a function, `@moduledoc` first in a module.
ELIXIR_DOC_ATTRIBUTES = frozenset({"doc", "typedoc", "moduledoc"})


def _elixir_doc(outer: ts.Node) -> str:
    """The string of the `@doc` just above a definition (past `@spec` and other attributes), or of the
    module's `@moduledoc`."""
    blocks = [child for child in outer.named_children if child.type == "do_block"]
    candidates = blocks[0].named_children[:3] if blocks else []
    sibling = outer.prev_named_sibling
    while sibling is not None and sibling.type in ("unary_operator", "comment"):
        candidates.append(sibling)
        sibling = sibling.prev_named_sibling
    for node in candidates:
        operand = node.child_by_field_name("operand") if node.type == "unary_operator" else None
        target = operand.child_by_field_name("target") if operand is not None else None
        if operand is None or target is None or _text(target) not in ELIXIR_DOC_ATTRIBUTES:
            continue
        if (_text(target) == "moduledoc") != bool(blocks):
            continue
        strings = [arg for child in operand.named_children if child.type == "arguments"
                   for arg in child.named_children if arg.type in ("string", "sigil")]
        if strings:
            content = b"".join(_text_bytes(part) for part in strings[0].named_children if part.type == "quoted_content")
            return inspect.cleandoc(content.decode("utf-8", "replace"))
    return ""


def _docstring(node: ts.Node) -> str:
    body = node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_child_count else None
    if first is None or first.type != "expression_statement" or not first.named_child_count:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    content = b"".join(_text_bytes(part) for part in string.named_children if part.type == "string_content")
    return inspect.cleandoc(content.decode("utf-8", "replace"))


# Attributes a grammar makes siblings of the item they annotate, written between its doc comment and it:
# Rust's `/// Spawns a task.` then `#[track_caller]` then `pub fn spawn` documents `spawn`, as a JSDoc
# comment above a TypeScript method's `@decorator()` documents the method.
ATTRIBUTE_ITEMS = frozenset({"attribute_item", "decorator"})


# Bodies whose grammar leaves the comments above their first statement outside them: Ruby parses
# `class B` / `# Doc of m.` / `def m` with the comment a child of the class, beside its `body_statement`.
OPEN_BODIES = frozenset({"body_statement"})


def _leading_comment(outer: ts.Node, data: bytes, language: str) -> str:
    comments: list[ts.Node] = []
    below = outer
    candidate = outer.prev_named_sibling
    if candidate is None and outer.parent is not None and outer.parent.type in OPEN_BODIES:
        candidate = outer.parent.prev_named_sibling  # the body's first definition: its comments are outside
    if candidate is not None and candidate.type not in COMMENT_TYPES and language in DEDENTED_TAIL_LANGUAGES:
        tail = _dedented_tail(candidate, outer.start_point.column)
        candidate = tail[-1] if tail else candidate
    while (
        candidate is not None
        and (candidate.type in COMMENT_TYPES or candidate.type in ATTRIBUTE_ITEMS)
        and _last_row(candidate) >= below.start_point.row - 1
        and _starts_line(candidate, data)
    ):
        if candidate.type in COMMENT_TYPES:
            comments.append(candidate)
        below = candidate
        candidate = candidate.prev_named_sibling
    lines: list[str] = []
    markers = LANGUAGE_COMMENT_MARKERS.get(language, COMMENT_MARKERS)
    for comment in reversed(comments):
        for line in _text(comment).split("\n"):
            lines.append(markers.sub("", line).rstrip())
    return "\n".join(lines).strip()


def _last_row(node: ts.Node) -> int:
    """The last line a node's text is on: a Rust line comment's node ends at the start of the next line,
    so a blank line after it would otherwise not part it from the comment below (`//!` then `///`)."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _starts_line(node: ts.Node, data: bytes) -> bool:
    """A comment trailing code on its line documents that code, not the next definition."""
    line_start = node.start_byte - node.start_point.column
    return not data[line_start : node.start_byte].strip()


def _references(
    raw: list[_RawReference], scopes: list[_Scope], path: str, columns: _Columns
) -> tuple[Reference, ...]:
    """References with the qualified name of their innermost enclosing definition (one sweep)."""
    ordered = sorted(raw, key=lambda ref: ref.name_node.start_byte)
    stack: list[_Scope] = []
    position = 0
    result: list[Reference] = []
    for ref in ordered:
        start = ref.name_node.start_byte
        while position < len(scopes) and scopes[position].outer.start_byte <= start:
            while stack and stack[-1].end_byte <= scopes[position].outer.start_byte:
                stack.pop()
            stack.append(scopes[position])
            position += 1
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        enclosing = stack[-1].qualified if stack else None
        name = _text(ref.name_node)
        if ref.qualifier is not None:
            name = f"{ref.qualifier}.{name}"
        result.append(Reference(name, ref.kind, path, columns.span(ref.name_node), enclosing))
    return tuple(result)


def _imports(language: str, nodes: list[ts.Node]) -> tuple[str, ...]:
    normalise = IMPORT_NORMALISERS.get(language, _string_import)
    found: list[str] = []
    for node in sorted(nodes, key=lambda n: n.start_byte):
        found.extend(spec for spec in normalise(node) if spec)
    return tuple(dict.fromkeys(found))


def _text_bytes(node: ts.Node) -> bytes:
    return node.text or b""


def _text(node: ts.Node) -> str:
    return _text_bytes(node).decode("utf-8", "replace")


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def _string_import(node: ts.Node) -> Iterable[str]:
    """JS/TS/Go/C/C++ import strings; `<stdio.h>` keeps its brackets to say "system header"."""
    yield _unquote(_text(node))


def _python_import(node: ts.Node) -> Iterable[str]:
    names = [_dotted(child) for child in node.children_by_field_name("name")]
    if node.type == "import_statement":
        yield from names
        return
    module_node = node.child_by_field_name("module_name")
    module = _text(module_node) if module_node is not None else ""
    if not names:  # `from a import *`: the module itself is what is imported
        yield module
        return
    separator = "" if module.endswith(".") else "."
    yield from (f"{module}{separator}{name}" for name in names)


def _dotted(node: ts.Node) -> str:
    if node.type == "aliased_import":
        name = node.child_by_field_name("name")
        return _text(name) if name is not None else ""
    return _text(node)


def _rust_import(node: ts.Node) -> Iterable[str]:
    if node.parent is not None and node.parent.type == "mod_item":
        yield f"mod:{_text(node)}"
        return
    yield from _rust_use_tree(node, "")


def _rust_use_tree(node: ts.Node, prefix: str) -> Iterable[str]:
    """Expands `a::{b, c::{d}}` into full paths; `self` in a list means the prefix itself."""

    def join(tail: str) -> str:
        return f"{prefix}::{tail}" if prefix and tail else prefix or tail

    if node.type == "use_as_clause":
        path = node.child_by_field_name("path")
        if path is not None:
            yield join(_text(path))
    elif node.type == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = join(_text(path)) if path is not None else prefix
        listed = node.child_by_field_name("list")
        if listed is not None:
            yield from _rust_use_tree(listed, inner)
    elif node.type == "use_list":
        for child in node.named_children:
            yield from _rust_use_tree(child, prefix)
    elif node.type == "use_wildcard":
        yield from (join(_text(child)) for child in node.named_children[:1])
        if not node.named_children:
            yield prefix
    elif node.type == "self":
        yield prefix
    else:
        yield join(_text(node))


def _java_import(node: ts.Node) -> Iterable[str]:
    yield from (
        _text(child) for child in node.named_children if child.type in ("scoped_identifier", "identifier")
    )


def _csharp_import(node: ts.Node) -> Iterable[str]:
    names = [child for child in node.named_children if child.type != "comment"]
    if names:
        yield _text(names[-1])


def _ruby_import(node: ts.Node) -> Iterable[str]:
    spec = _unquote(_text(node))
    call = node.parent.parent if node.parent is not None else None
    method = call.child_by_field_name("method") if call is not None else None
    if method is not None and _text(method) == "require_relative" and not spec.startswith("."):
        spec = f"./{spec}"
    yield spec


def _php_import(node: ts.Node) -> Iterable[str]:
    if node.type in ("string", "encapsed_string"):
        yield _unquote(_text(node))
        return
    if node.type != "namespace_use_declaration":
        return
    group = node.child_by_field_name("body")
    if group is None:
        for clause in node.named_children:
            if clause.type == "namespace_use_clause" and clause.named_child_count:
                yield _text(clause.named_children[0]).lstrip("\\")
        return
    prefixes = [child for child in node.named_children if child.type == "namespace_name"]
    prefix = _text(prefixes[0]).lstrip("\\") if prefixes else ""
    for clause in group.named_children:
        if clause.type == "namespace_use_clause" and clause.named_child_count:
            name = _text(clause.named_children[0])
            yield f"{prefix}\\{name}" if prefix else name


def _scala_import(node: ts.Node) -> Iterable[str]:
    """`import a.b.{C, D => E}` -> `a.b.C`, `a.b.D`; `import a.b._` -> `a.b`."""
    path = ".".join(_text(child) for child in node.children_by_field_name("path") if child.is_named)
    selectors = [child for child in node.named_children if child.type == "namespace_selectors"]
    if not selectors:
        yield path
        return
    for selector in selectors[0].named_children:
        name = selector.named_children[0] if selector.type == "arrow_renamed_identifier" else selector
        if name.type == "identifier":
            yield f"{path}.{_text(name)}"


def _elixir_import(node: ts.Node) -> Iterable[str]:
    """`alias A.B` -> `A.B`; `alias A.{B, C}` -> `A.B`, `A.C`."""
    if node.type == "alias":
        yield _text(node)
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or right.type != "tuple":
        return
    prefix = _text(left)
    yield from (f"{prefix}.{_text(item)}" for item in right.named_children if item.type == "alias")


def _shell_import(node: ts.Node) -> Iterable[str]:
    """`. "$NVM_DIR/nvm.sh"` -> `nvm.sh`: a leading variable is where the script was installed."""
    spec = _unquote(_text(node))
    if spec.startswith("$"):
        spec = spec.split("/", 1)[1] if "/" in spec else ""
    yield spec


def _ocaml_import(node: ts.Node) -> Iterable[str]:
    """`open Foo.Bar` and `module M = Foo.Bar` depend on the compilation unit Foo (`foo.ml`)."""
    yield _text(node).split(".", 1)[0].strip()


def _nim_import(node: ts.Node) -> Iterable[str]:
    """`import std/math` -> `std/math`; `import shapes/[circle, square]` -> `shapes/circle`, `shapes/square`;
    `import a as b` -> `a`; `include "x.nim"` -> `x.nim`."""
    spec = "".join(re.split(r"\s+as\s+", _text(node))[0].split())
    spec = _unquote(spec)
    if "[" not in spec:
        yield spec
        return
    prefix, _, inner = spec.partition("[")
    yield from (prefix + name for name in inner.rstrip("]").split(",") if name)


IMPORT_NORMALISERS: dict[str, Callable[[ts.Node], Iterable[str]]] = {
    "python": _python_import,
    "rust": _rust_import,
    "java": _java_import,
    "csharp": _csharp_import,
    "ruby": _ruby_import,
    "php": _php_import,
    "scala": _scala_import,
    "elixir": _elixir_import,
    "bash": _shell_import,
    "powershell": _shell_import,
    "ocaml": _ocaml_import,
    "nim": _nim_import,
}
