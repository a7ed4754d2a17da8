"""Chunks: the units BM25 scores and the embedding model reads.

A search for `how does retry work` should land on the function that retries, not on the file
that happens to contain it, so code is cut along its definitions (DESIGN §5): one chunk per
top-level definition, a large class as a header chunk plus one chunk per method, the module code
between definitions in short windows. Docs are cut by heading, other files in plain windows.
Every non-blank line of a file lands in some chunk, so BM25 can find a word anywhere.

Each chunk's text starts with what a reader would want to know before the body (path, kind,
the qualified name as words, signature, doc) and is capped, because the embedding models have
a context limit and a giant chunk would drown its own topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

import xxhash

from ..model.languages import DOC_LANGUAGES, GRAMMARS
from ..model.records import Chunk, Span, Symbol

__all__ = ["make_chunks", "name_words"]

# DESIGN §5 numbers. Windows of 40 lines keep a window about one screen of code; a class longer
# than 80 lines is split so that one method is not buried among forty others.
WINDOW_LINES = 40
CLASS_SPLIT_LINES = 80
DEFINITION_MAX_LINES = 80
DOC_SECTION_MAX_LINES = 80
TEXT_MAX_CHARS = 4000

# Symbols that own a chunk. Namespaces and modules are looked through (they often span the whole
# file); constants, fields and macros travel with the code around them.
UNIT_KINDS = frozenset({"function", "method", "constructor", "class", "interface", "struct", "enum", "trait"})
SPLITTABLE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
# Languages whose headers declare functions apart from their definitions.
PROTOTYPE_LANGUAGES = frozenset({"c", "cpp", "objc", "cuda", "glsl"})

# Comment lines directly above a definition belong to its chunk, not to the gap before it.
DEFAULT_COMMENT_PREFIXES = ("//", "/*", "*")
LINE_COMMENT_PREFIXES = {
    "python": ("#",),
    "ruby": ("#",),
    "php": ("//", "/*", "*", "#"),
    "elixir": ("#",),
    "bash": ("#",),
    "perl": ("#",),
    "julia": ("#",),
    "powershell": ("#", "<#"),
    "nix": ("#",),
    "hcl": ("#", "//", "/*", "*"),
    "haskell": ("--", "{-"),
    "lua": ("--",),
    "sql": ("--", "/*", "*"),
    "ocaml": ("(*", "*"),
    "erlang": ("%",),
    "matlab": ("%",),
    "r": ("#",),
    "clojure": (";",),
    "scheme": (";",),
    "racket": (";",),
    "commonlisp": (";",),
    "elm": ("--", "{-"),
    "purescript": ("--", "{-"),
    "gleam": ("//",),
    "nim": ("#",),
    "tcl": ("#",),
    "gdscript": ("#",),
    "ada": ("--",),
    "fortran": ("!",),
    "pascal": ("//", "{", "(*"),
}


def is_comment_line(line: str, language: str | None) -> bool:
    """Whether a line is only (part of) a comment in `language`: its first characters open a comment."""
    return line.lstrip().startswith(LINE_COMMENT_PREFIXES.get(language or "", DEFAULT_COMMENT_PREFIXES))

MARKDOWN_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
MARKDOWN_FENCE = re.compile(r"^ {0,3}(```|~~~)")
UNDERLINE = re.compile(r"""^([=\-~^"'`#*+:.])\1{2,}\s*$""")
WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def make_chunks(path: str, text: str, language: str | None, symbols: Sequence[Symbol]) -> tuple[Chunk, ...]:
    """The chunks of one file, in line order; code by definitions, docs by heading, else windows."""
    builder = _Builder(path, text, language)
    if builder.last < 0:
        return ()
    if language in DOC_LANGUAGES:
        return tuple(builder.doc_sections())
    if language not in GRAMMARS:
        return tuple(builder.windows(0, builder.last, "window", None))
    units = sorted(
        (symbol for symbol in symbols if symbol.kind in UNIT_KINDS and not builder.prototype(symbol)),
        key=lambda s: (s.span.start_line, -s.span.end_line),
    )
    return tuple(builder.region(units, 0, builder.last, None))


def name_words(name: str) -> str:
    """`Config.parseConfig` -> "config parse config": what BM25 and the embedder should read."""
    return " ".join(word.lower() for word in WORD.findall(name))


class _Builder:
    """Cuts one file's lines into chunks; holds the lines so every cut is a cheap slice."""

    def __init__(self, path: str, text: str, language: str | None) -> None:
        self.path = path
        self.language = language
        self.lines = text.split("\n")
        self.last = len(self.lines) - 1
        if self.lines[-1] == "":
            self.last -= 1
        self.summary, self.summary_last = _module_summary(self.lines, language)

    def region(
        self, units: Sequence[Symbol], first: int, last: int, enclosing: str | None
    ) -> Iterator[Chunk]:
        """Definition chunks for the outermost units in [first, last], gap windows between them."""
        cursor = first
        for unit in _outermost(units, first, last):
            start = self.comment_start(unit.span.start_line, cursor)
            yield from self.windows(cursor, start - 1, "gap", enclosing)
            yield from self.unit(unit, units, start)
            cursor = unit.span.end_line + 1
        yield from self.windows(cursor, last, "gap", enclosing)

    def prototype(self, symbol: Symbol) -> bool:
        """A C-family function or method declared without a body (a header's prototype): it travels
        with the declarations around it, as macros do, instead of being a one-line chunk of its own
        (measured: a header's one-line prototypes outranked the `.c` files that implement them)."""
        if self.language not in PROTOTYPE_LANGUAGES or symbol.kind not in ("function", "method"):
            return False
        span = symbol.span
        return not any("{" in line for line in self.lines[span.start_line : span.end_line + 1])

    def comment_start(self, line: int, floor: int) -> int:
        """The first line of the comment block right above `line`: it documents the definition."""
        while line > floor and is_comment_line(self.lines[line - 1], self.language):
            line -= 1
        return line

    def unit(self, unit: Symbol, units: Sequence[Symbol], first: int) -> Iterator[Chunk]:
        last = min(unit.span.end_line, self.last)
        splits = unit.kind in SPLITTABLE_KINDS and last - first + 1 > CLASS_SPLIT_LINES
        inner = (
            [s for s in units if s is not unit and first <= s.span.start_line and s.span.end_line <= last]
            if splits
            else []
        )
        if inner:
            members_start = self.comment_start(min(s.span.start_line for s in inner), first + 1)
            yield from self.definition(unit, first, max(first, members_start - 1))
            yield from self.region(inner, max(first + 1, members_start), last, unit.qualified or unit.name)
        else:
            yield from self.definition(unit, first, last)

    def definition(self, unit: Symbol, first: int, last: int) -> Iterator[Chunk]:
        """The definition's head as one chunk; a very long body continues in windows."""
        qualified = unit.qualified or unit.name
        head_last = min(last, first + DEFINITION_MAX_LINES - 1)
        header = (self.path, f"{unit.kind} {name_words(qualified)}", unit.signature, unit.doc)
        yield self.chunk(first, head_last, "definition", qualified, header)
        yield from self.windows(head_last + 1, last, "gap", qualified)

    def windows(self, first: int, last: int, kind: str, symbol: str | None) -> Iterator[Chunk]:
        """Windows of at most WINDOW_LINES lines, trimmed of blank edges; blank-only ones dropped."""
        for start in range(first, last + 1, WINDOW_LINES):
            end = min(start + WINDOW_LINES - 1, last)
            while start <= end and not self.lines[start].strip():
                start += 1
            while end >= start and not self.lines[end].strip():
                end -= 1
            if start <= end:
                yield self.chunk(start, end, kind, symbol, (self.path, kind))

    def doc_sections(self) -> Iterator[Chunk]:
        """Markdown/rst by heading (long sections windowed); plain text in windows."""
        starts = self.heading_lines()
        bounds = [0, *starts] if not starts or starts[0] != 0 else starts
        for index, first in enumerate(bounds):
            last = bounds[index + 1] - 1 if index + 1 < len(bounds) else self.last
            title = self.title(first) if first in starts else None
            short = last - first + 1 <= DOC_SECTION_MAX_LINES
            if short and any(line.strip() for line in self.lines[first : last + 1]):
                yield self.chunk(first, last, "doc", title, (self.path, "doc"))
            else:
                yield from self.windows(first, last, "doc", title)

    def title(self, line: int) -> str | None:
        """A heading's words; an rst overline means the title is on the next line."""
        if UNDERLINE.match(self.lines[line]) and line < self.last:
            line += 1
        return self.lines[line].strip(" #=-~^*+:.'\"`") or None

    def heading_lines(self) -> list[int]:
        if self.language == "markdown":
            return self.markdown_headings()
        if self.language == "rst":
            return self.underlined_headings()
        return []

    def markdown_headings(self) -> list[int]:
        headings: list[int] = []
        fenced = False
        for number, line in enumerate(self.lines[: self.last + 1]):
            if MARKDOWN_FENCE.match(line):
                fenced = not fenced
            elif not fenced and MARKDOWN_HEADING.match(line):
                headings.append(number)
        return sorted(set(headings) | set(self.underlined_headings(markdown=True)))

    def underlined_headings(self, markdown: bool = False) -> list[int]:
        """Titles underlined (and, in rst, optionally overlined) with a run of punctuation."""
        headings: list[int] = []
        for number in range(1, self.last + 1):
            underline = self.lines[number]
            title = self.lines[number - 1]
            if not title.strip() or UNDERLINE.match(title) or not UNDERLINE.match(underline):
                continue
            if markdown and underline.strip()[0] not in "=-":
                continue
            if len(underline.strip()) < len(title.strip()):
                continue
            overlined = number >= 2 and self.lines[number - 2].strip() == underline.strip()
            headings.append(number - 2 if overlined else number - 1)
        return headings

    def chunk(self, first: int, last: int, kind: str, symbol: str | None, header: Iterable[str]) -> Chunk:
        body = "\n".join(self.lines[first : last + 1])
        parts = [part for part in header if part]
        if self.summary and first > self.summary_last:
            parts.insert(1, self.summary)  # after the path: what the whole file is about
        text = "\n".join([*parts, body])[:TEXT_MAX_CHARS]
        span = Span(first, 0, last, len(self.lines[last]))
        digest = xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))
        return Chunk(self.path, span, kind, symbol, text, digest, self.language)


# Module documentation a language writes apart from any item's (Rust's inner `//!` comments): the
# file's one-line summary, which every chunk of the file carries after its path, since a method deep
# in `task/local.rs` is about "running !Send futures on the current thread" as much as the file head.
MODULE_DOC_PREFIXES = {"rust": "//!"}
MODULE_SUMMARY_CHARS = 200


def _module_summary(lines: Sequence[str], language: str | None) -> tuple[str, int]:
    """The first paragraph of the file's module documentation (at most MODULE_SUMMARY_CHARS) and
    the last line it spans; ("", -1) without one."""
    prefix = MODULE_DOC_PREFIXES.get(language or "")
    if prefix is None:
        return "", -1
    words: list[str] = []
    last = -1
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith(prefix):
            if words or stripped:
                break
            continue
        content = stripped[len(prefix):].strip()
        if not content:
            if words:
                break
            continue
        if content.startswith("#") or content.startswith("```"):
            break
        words.append(content)
        last = number
    return " ".join(words)[:MODULE_SUMMARY_CHARS], last


def _outermost(units: Sequence[Symbol], first: int, last: int) -> Iterator[Symbol]:
    """Units inside [first, last] not nested in an earlier one (units are sorted by start)."""
    covered_until = first - 1
    for unit in units:
        start = unit.span.start_line
        if start > covered_until and start >= first and unit.span.end_line <= last:
            covered_until = unit.span.end_line
            yield unit
