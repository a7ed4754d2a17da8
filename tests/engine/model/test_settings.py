"""Settings: editor and CLI spellings, and bad values reported and replaced by defaults."""

from __future__ import annotations

from fourfold.engine.model.settings import Settings, parse_settings


def test_editor_nested_camel_case() -> None:
    settings, errors = parse_settings({"preset": "thorough", "semantic": {"backend": "none"},
                                       "exclude": ["dist/**"], "maxFileSize": 2048, "demoteFactor": 0.25})
    assert errors == []
    assert settings == Settings(preset="thorough", semantic_backend="none", exclude=("dist/**",),
                                max_file_size=2048, demote_factor=0.25)


def test_bad_values_fall_back_with_messages() -> None:
    settings, errors = parse_settings({"preset": "fastest", "maxFileSize": -1, "exclude": "dist", "colour": "red"})
    assert settings == Settings()
    assert errors == [
        "fourfold.preset: preset must be one of quick, default, thorough; using the default",
        "fourfold.maxFileSize: maxFileSize must be a positive number of bytes; using the default",
        "fourfold.exclude: exclude must be a list of glob strings; using the default",
        "unknown setting fourfold.colour (ignored)",
    ]


def test_api_key_is_not_in_repr(monkeypatch: object) -> None:
    settings, _ = parse_settings({"voyageApiKey": "pa-secret-key"})
    assert settings.api_key() == "pa-secret-key"
    assert "pa-secret" not in repr(settings)


def test_api_key_from_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VOYAGE_API_KEY", "env-key")
    assert Settings().api_key() == "env-key"


def test_the_text_cache_budget_is_a_whole_number_of_mib_and_zero_keeps_none() -> None:
    settings, errors = parse_settings({"textCacheMb": 0})
    assert settings.text_cache_mb == 0 and errors == []
    settings, errors = parse_settings({"text_cache_mb": 1.5})
    assert settings.text_cache_mb == Settings().text_cache_mb
    assert errors == ["fourfold.text_cache_mb: textCacheMb must be a whole number of MiB (0: no texts kept); "
                      "using the default"]


def test_parent_ignore_files_are_obeyed_by_default_and_the_switch_takes_only_a_boolean() -> None:
    assert parse_settings({})[0].parent_ignores
    settings, errors = parse_settings({"parentIgnoreFiles": False})
    assert not settings.parent_ignores and errors == []
    settings, errors = parse_settings({"parentIgnoreFiles": "no"})
    assert settings.parent_ignores
    assert errors == ["fourfold.parentIgnoreFiles: parentIgnoreFiles must be true or false; using the default"]
