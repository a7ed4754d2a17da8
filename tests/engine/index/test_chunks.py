"""Chunking: definitions, split classes, gap windows, doc headings, coverage of every line."""

from __future__ import annotations

from pathlib import Path

import pytest
import xxhash

from fourfold.engine.index.chunks import CLASS_SPLIT_LINES, TEXT_MAX_CHARS, WINDOW_LINES, make_chunks, name_words
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.records import Chunk

FIXTURES = Path(__file__).parents[2] / "fixtures" / "structure"


def uncovered(text: str, chunks: tuple[Chunk, ...]) -> list[int]:
    """Non-blank lines no chunk covers."""
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.span.start_line, chunk.span.end_line + 1))
    return [n for n, line in enumerate(text.split("\n")) if line.strip() and n not in covered]


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir()))
def test_every_non_blank_line_is_in_a_chunk(fixture: str) -> None:
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    chunks = parse_file(fixture, text, detect_language(fixture)).chunks
    assert chunks
    assert uncovered(text, chunks) == []
    assert all(c.digest == xxhash.xxh3_64_hexdigest(c.text.encode()) for c in chunks)


def test_definitions_get_their_own_chunk_with_header_and_comment() -> None:
    text = (FIXTURES / "sample.py").read_text(encoding="utf-8")
    chunks = parse_file("pkg/sample.py", text, "python").chunks
    by_symbol = {c.symbol: c for c in chunks if c.kind == "definition"}
    assert set(by_symbol) == {"parse_config", "Config", "decorated"}
    config = by_symbol["Config"]
    assert config.span.start_line == 14  # the comment above the class travels with it
    lines = config.text.split("\n")
    assert lines[:4] == [
        "pkg/sample.py",
        "class config",
        "class Config(Base, mixins.Loggable)",
        "A configuration holder.",
    ]
    assert "def load(self, path):" in config.text
    assert [c.kind for c in chunks] == ["gap", "definition", "definition", "definition"]


def big_class(methods: int) -> str:
    body = ["class Big:", '    """A big class."""', "    size = 1", ""]
    for index in range(methods):
        body += [f"    def method_{index}(self):", *[f"        x = {n}" for n in range(8)], ""]
    return "\n".join(["import os", "", *body, "TAIL = 1", ""])


def test_long_class_splits_into_header_and_methods() -> None:
    text = big_class(12)
    assert len(text.split("\n")) > CLASS_SPLIT_LINES
    chunks = parse_file("big.py", text, "python").chunks
    definitions = [c for c in chunks if c.kind == "definition"]
    assert definitions[0].symbol == "Big"
    assert definitions[0].span.start_line == 2 and definitions[0].span.end_line == 5
    assert "size = 1" in definitions[0].text and "def method_0" not in definitions[0].text
    assert [c.symbol for c in definitions[1:]] == [f"Big.method_{i}" for i in range(12)]
    assert chunks[-1].kind == "gap" and chunks[-1].text.endswith("TAIL = 1")
    assert uncovered(text, chunks) == []


def test_short_class_stays_whole() -> None:
    chunks = parse_file("small.py", big_class(2), "python").chunks
    assert [c.symbol for c in chunks if c.kind == "definition"] == ["Big"]


def test_module_code_between_definitions_is_windowed() -> None:
    text = "\n".join(f"X{n} = {n}" for n in range(100)) + "\n\ndef f():\n    pass\n"
    chunks = parse_file("m.py", text, "python").chunks
    gaps = [c for c in chunks if c.kind == "gap"]
    assert [g.span.start_line for g in gaps] == [0, 40, 80]
    assert all(g.span.end_line - g.span.start_line + 1 <= WINDOW_LINES for g in gaps)
    assert chunks[-1].symbol == "f"


def test_blank_only_windows_are_skipped() -> None:
    text = "x = 1\n" + "\n" * 100 + "def f():\n    pass\n"
    chunks = parse_file("m.py", text, "python").chunks
    assert [(c.kind, c.span.start_line, c.span.end_line) for c in chunks] == [
        ("gap", 0, 0),
        ("definition", 101, 102),
    ]


def test_markdown_by_heading_ignoring_fenced_hashes() -> None:
    text = "intro\n\n# Title\n\ntext\n\n```sh\n# not a heading\n```\n\nSetext\n------\n\nmore\n"
    chunks = make_chunks("README.md", text, "markdown", ())
    assert [(c.symbol, c.span.start_line) for c in chunks] == [(None, 0), ("Title", 2), ("Setext", 10)]
    assert all(c.kind == "doc" for c in chunks)


def test_rst_headings_with_overlines() -> None:
    text = "=====\nTitle\n=====\n\nIntro.\n\nSection\n-------\n\nBody.\n"
    chunks = make_chunks("index.rst", text, "rst", ())
    assert [(c.symbol, c.span.start_line) for c in chunks] == [("Title", 0), ("Section", 6)]


def test_long_doc_section_is_windowed() -> None:
    text = "# Long\n" + "\n".join(f"line {n}" for n in range(200)) + "\n"
    chunks = make_chunks("a.md", text, "markdown", ())
    assert len(chunks) == 6 and all(c.symbol == "Long" for c in chunks)
    assert uncovered(text, chunks) == []


def test_unknown_files_are_windows_and_text_is_capped() -> None:
    text = "\n".join("y" * 300 for _ in range(90))
    chunks = make_chunks("data.xyz", text, None, ())
    assert [c.kind for c in chunks] == ["window"] * 3
    assert all(len(c.text) <= TEXT_MAX_CHARS for c in chunks)
    assert chunks[0].text.startswith("data.xyz\nwindow\n")


def test_empty_file_has_no_chunks() -> None:
    assert make_chunks("e.py", "", "python", ()) == ()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("parseConfig", "parse config"),
        ("Config.load_settings", "config load settings"),
        ("HTTPServer", "http server"),
    ],
)
def test_name_words(name: str, words: str) -> None:
    assert name_words(name) == words


RUST_MODULE = """\
//! Runs `!Send` futures on the current thread.
//!
//! # Examples
use std::rc::Rc;

pub struct LocalSet {
    tick: u8,
}

pub fn spawn_local() -> u8 {
    1
}
"""


def test_every_chunk_of_a_rust_module_carries_its_summary_after_the_path() -> None:
    """A function deep in `task/local.rs` is about what the file's `//!` doc says, as its head is."""
    chunks = parse_file("src/task/local.rs", RUST_MODULE, "rust").chunks
    later = [chunk for chunk in chunks if chunk.span.start_line > 0]
    assert later and all(chunk.text.split("\n")[1] == "Runs `!Send` futures on the current thread." for chunk in later)
    head = next(chunk for chunk in chunks if chunk.span.start_line == 0)
    assert head.text.count("Runs `!Send`") == 1  # the head holds the doc itself, once
    assert all("Examples" not in chunk.text.split("\n")[1] for chunk in chunks)


def test_a_file_without_module_docs_gets_no_summary_line() -> None:
    chunks = parse_file("src/plain.rs", "/// An item doc, not the module's.\npub fn f() {}\n", "rust").chunks
    assert chunks[0].text.split("\n")[1] != "An item doc, not the module's."
