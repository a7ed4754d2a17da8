"""Fourfold: multi-modal code search as a language server (see engine/ and lsp/)."""
