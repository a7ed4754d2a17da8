"""Rust re-exports of another crate's names: `pub use axum_core::extract::FromRequest;` is where a
checkout of axum defines `FromRequest` (axum_core is not in it), so the name is a symbol there; a path
that starts at this crate or one of its modules is not (Rust 2018: `mod sse; pub use sse::Sse;`), and a
real definition elsewhere in the workspace always comes first (serde's `pub use serde_derive::Deserialize`
beside serde_core's `trait Deserialize`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.structure import parse_file

EXTRACT = """//! Types and traits for extracting data from requests.

mod state;
use http::header::{self, HeaderMap};

#[doc(inline)]
pub use axum_core::extract::{DefaultBodyLimit, FromRequest, rejection::JsonRejection};
pub use http_body::Body as HttpBody;
pub use state::State;
pub use self::state::StateRef;
pub use crate::Json;
pub use header::CONTENT_TYPE;
pub use Kind::Plain;
pub(crate) use tower::Layer;
use serde::Deserialize;
pub use axum_core::response::*;

pub enum Kind { Plain }
"""

FILES = {
    "axum/src/extract/mod.rs": EXTRACT,
    "axum/src/extract/state.rs": "pub struct State<S>(pub S);\npub struct StateRef;\n",
    "axum/src/json.rs": "pub struct Json<T>(pub T);\n",
    "serde/src/lib.rs": "pub use serde_derive::{Deserialize, Serialize};\n",
    "serde_core/src/de/mod.rs": "/// A data structure that can be deserialized.\npub trait Deserialize<'de> {}\n",
}


def test_a_pub_use_of_another_crate_defines_the_names_it_binds() -> None:
    symbols = parse_file("axum/src/extract/mod.rs", EXTRACT, "rust").symbols
    reexports = {s.name: s.reexport_of for s in symbols if s.reexport_of}
    assert reexports == {
        "DefaultBodyLimit": "axum_core::extract::DefaultBodyLimit",
        "FromRequest": "axum_core::extract::FromRequest",
        "JsonRejection": "axum_core::extract::rejection::JsonRejection",
        "HttpBody": "http_body::Body",
    }
    from_request = next(s for s in symbols if s.name == "FromRequest")
    assert (from_request.kind, from_request.span.start_line, from_request.name_span.start_line) == ("type", 6, 6)
    assert from_request.name_span.start_col == EXTRACT.splitlines()[6].index("FromRequest")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("rust") / "repo"
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = tmp_path_factory.mktemp("index")
    opened = Workspace(Path(root), Settings(index_dir=str(index), semantic_backend="none"))
    opened.refresh()
    yield opened
    opened.close()


def _first(workspace: Workspace, query: str) -> tuple[str, int]:
    answer = workspace.search_dict(SearchRequest(query=query, limit=5, modes=("structural",)))
    row = answer["results"][0]
    return row["path"], row["range"]["start"]["line"]


def test_the_reexport_answers_a_name_the_workspace_does_not_define(workspace: Workspace) -> None:
    assert _first(workspace, "FromRequest") == ("axum/src/extract/mod.rs", 6)


def test_a_real_definition_of_the_name_hides_the_reexport(workspace: Workspace) -> None:
    assert _first(workspace, "Deserialize") == ("serde_core/src/de/mod.rs", 1)
    table = workspace.snapshot().symbols
    assert [s.path for s in table.definitions("Deserialize")] == ["serde_core/src/de/mod.rs"]
    assert [m.symbol.path for m in table.search("Serialize") if m.tier == "exact"] == ["serde/src/lib.rs"]
    assert [s.path for s in table.definitions("State")] == ["axum/src/extract/state.rs"]
