"""User settings, validated once: a bad value is reported and replaced by its default, never fatal.

The same names reach the engine from the CLI flags, the LSP `initializationOptions` and the
`fourfold` configuration section of an editor, so they are parsed here, in one place.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .profiles import DEFAULT_MAX_FILE_SIZE, DEMOTE_FACTOR, TEXT_CACHE_MIB
from .profiles import PRESETS as PRESET_TABLE

PRESETS = tuple(PRESET_TABLE)
BACKENDS = ("local", "code", "blend", "wordllama", "minilm", "voyage", "none")


@dataclass(frozen=True)
class Settings:
    """Everything a user can configure. `voyage_api_key` is held in memory only, never stored."""

    preset: str = "default"
    semantic_backend: str = "local"
    exclude: tuple[str, ...] = ()
    index_dir: str | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    demote_factor: float = DEMOTE_FACTOR
    text_cache_mb: int = TEXT_CACHE_MIB
    # Obey the ignore files above the root, up to its repository, as ripgrep does (VS Code's
    # `search.useParentIgnoreFiles`); off, the root is searched as a tree of its own.
    parent_ignores: bool = True
    voyage_api_key: str | None = field(default=None, repr=False, compare=False)

    def api_key(self) -> str | None:
        return self.voyage_api_key or os.environ.get("VOYAGE_API_KEY") or None


# Accepted spellings of each setting: editors send nested camelCase, the CLI flat snake_case.
_ALIASES: dict[str, str] = {
    "preset": "preset",
    "semantic.backend": "semantic_backend",
    "semanticBackend": "semantic_backend",
    "semantic_backend": "semantic_backend",
    "exclude": "exclude",
    "indexDir": "index_dir",
    "index_dir": "index_dir",
    "maxFileSize": "max_file_size",
    "max_file_size": "max_file_size",
    "demoteFactor": "demote_factor",
    "demotion": "demote_factor",
    "demote_factor": "demote_factor",
    "parentIgnoreFiles": "parent_ignores",
    "parent_ignores": "parent_ignores",
    "textCacheMb": "text_cache_mb",
    "text_cache_mb": "text_cache_mb",
    "voyageApiKey": "voyage_api_key",
    "voyage.apiKey": "voyage_api_key",
}


def _flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and name not in _ALIASES:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _check(name: str, value: Any) -> tuple[Any, str | None]:
    """The value converted to its field's type, or an error message saying what was expected."""
    if name == "preset":
        return (value, None) if value in PRESETS else (None, f"preset must be one of {', '.join(PRESETS)}")
    if name == "semantic_backend":
        return (
            (value, None)
            if value in BACKENDS
            else (None, f"semantic.backend must be one of {', '.join(BACKENDS)}")
        )
    if name == "exclude":
        ok = isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
        return (tuple(value), None) if ok else (None, "exclude must be a list of glob strings")
    if name == "index_dir":
        return (
            (value or None, None)
            if value is None or isinstance(value, str)
            else (None, "indexDir must be a path")
        )
    if name == "max_file_size":
        ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
        return (value, None) if ok else (None, "maxFileSize must be a positive number of bytes")
    if name == "demote_factor":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
        return (float(value), None) if ok else (None, "demoteFactor must be a number between 0 and 1")
    if name == "text_cache_mb":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        return (value, None) if ok else (None, "textCacheMb must be a whole number of MiB (0: no texts kept)")
    if name == "parent_ignores":
        return (value, None) if isinstance(value, bool) else (None, "parentIgnoreFiles must be true or false")
    if name == "voyage_api_key":
        return (
            (value or None, None)
            if value is None or isinstance(value, str)
            else (None, "the API key must be text")
        )
    return None, None


def parse_settings(
    values: Mapping[str, Any] | None, base: Settings | None = None
) -> tuple[Settings, list[str]]:
    """Settings from an editor's or the CLI's mapping, plus one message per rejected or unknown value."""
    settings = base or Settings()
    errors: list[str] = []
    known = {f.name for f in fields(Settings)}
    changes: dict[str, Any] = {}
    for key, value in _flatten(values or {}).items():
        name = _ALIASES.get(key)
        if name is None or name not in known:
            errors.append(f"unknown setting fourfold.{key} (ignored)")
            continue
        checked, error = _check(name, value)
        if error:
            errors.append(f"fourfold.{key}: {error}; using the default")
        else:
            changes[name] = checked
    return replace(settings, **changes), errors
