"""The icon an editor shows next to a result: our kind strings mapped to LSP `SymbolKind`.

The engine names kinds after the tags.scm captures (`definition.class` -> "class"); editors only
know the LSP enumeration. Unknown kinds fall back to a neutral icon instead of failing the request.
"""

from __future__ import annotations

from lsprotocol.types import SymbolKind

SYMBOL_KINDS: dict[str, SymbolKind] = {
    "class": SymbolKind.Class,
    "constant": SymbolKind.Constant,
    "constructor": SymbolKind.Constructor,
    "enum": SymbolKind.Enum,
    "enum_member": SymbolKind.EnumMember,
    "event": SymbolKind.Event,
    "field": SymbolKind.Field,
    "file": SymbolKind.File,
    "function": SymbolKind.Function,
    "interface": SymbolKind.Interface,
    "macro": SymbolKind.Constant,  # LSP has no macro kind; clangd uses Constant too
    "method": SymbolKind.Method,
    "module": SymbolKind.Module,
    "namespace": SymbolKind.Namespace,
    "object": SymbolKind.Object,
    "package": SymbolKind.Package,
    "property": SymbolKind.Property,
    "section": SymbolKind.String,  # a Markdown heading
    "struct": SymbolKind.Struct,
    "trait": SymbolKind.Interface,  # rust-analyzer maps traits to Interface
    "type": SymbolKind.TypeParameter,
    "variable": SymbolKind.Variable,
}
# Text hits without an enclosing definition (a log string, a comment) and unknown kinds.
FALLBACK_KIND = SymbolKind.String


def symbol_kind(kind: str | None) -> SymbolKind:
    """The LSP kind for an engine kind string such as "method" or "definition.method"."""
    if not kind:
        return FALLBACK_KIND
    return SYMBOL_KINDS.get(kind.rsplit(".", 1)[-1].lower(), FALLBACK_KIND)
