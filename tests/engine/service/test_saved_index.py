"""A restart opens the saved trigram postings and symbol table instead of decoding every row (issue 17).

Work is counted (rows decoded, graphs built), never timed. What a restart opens must give the same
answers as the index that saved it and as a cold index of the same files; a saved entry that is
damaged, built from other rows, or whose rows were garbled since is never used: the index is
opened from the rows, and the entry is saved again.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.lexical import LexicalIndex
from fourfold.engine.index.saved import POINTER, DamagedSaved, SavedIndex
from fourfold.engine.index.snapshot import ChunkSequence
from fourfold.engine.index.store import SAVED_FILE, StoredParsed, encode_parsed
from fourfold.engine.index.symbols import SymbolTable
from fourfold.engine.index.trigram import TrigramIndex, file_trigrams
from fourfold.engine.model.records import Chunk, ParsedFile, Span, Symbol
from fourfold.engine.service import workspace as workspace_module
from fourfold.engine.service.workspace import SAVED_ENTRY

QUERIES = ("BaseJob.with_retry", "Item", "class Item", '"retry"', "/def \\w+_retry/", "how does retry work",
           "who calls with_retry", "what depends on Item", "similar to with_retry")


def opened(root: Path, index: Path) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=False)


def answers(workspace: Workspace) -> list[list[tuple[Any, ...]]]:
    """Every query's ranked results, with what ranked them (timings left out)."""
    found = []
    for query in QUERIES:
        result = workspace.search_dict(SearchRequest(query=query))
        found.append([(hit["path"], str(hit["range"]), hit["symbol"], hit["score"], str(hit["contributions"]),
                       str(hit["matches"])) for hit in result["results"]])
    return found


def places(found: list[list[tuple[Any, ...]]]) -> list[list[tuple[Any, ...]]]:
    return [sorted(hit[:3] for hit in hits) for hits in found]


def saved_blob(index: Path) -> bytes:
    with sqlite3.connect(index / "index.sqlite") as db:
        row = db.execute("SELECT blob FROM derived WHERE name = ?", (SAVED_ENTRY,)).fetchone()
    assert row is not None, "the index was not saved"
    blob: bytes = row[0]
    return blob


def saved_content(index: Path) -> tuple[Any, ...]:
    """What the saved entry's file holds, decoded."""
    saved = SavedIndex.open(index, saved_blob(index))
    arrays = saved.trigrams.arrays()
    return (saved.rows, saved.doc_ids, {name: array.tolist() for name, array in arrays.items()},
            list(saved.symbols.all()))


def set_saved(index: Path, blob: bytes) -> None:
    with sqlite3.connect(index / "index.sqlite") as db:
        db.execute("UPDATE derived SET blob = ? WHERE name = ?", (blob, SAVED_ENTRY))


def opened_saved(workspace: Workspace) -> bool:
    """Whether the snapshot came from the saved entry (its rows are decoded only on demand)."""
    return isinstance(workspace.snapshot().parsed, StoredParsed)


def cold_answers(root: Path, index: Path) -> list[list[tuple[Any, ...]]]:
    workspace = opened(root, index)
    workspace.refresh()
    found = answers(workspace)
    workspace.close()
    return found


def test_a_restart_opens_the_saved_indexes_and_answers_as_the_cold_index(tree: Path, tmp_path: Path) -> None:
    cold = cold_answers(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    assert opened_saved(workspace)
    parsed = workspace.snapshot().parsed
    assert isinstance(parsed, StoredParsed) and parsed.decoded == 0
    workspace.search(SearchRequest(query="BaseJob.with_retry"))
    assert parsed.decoded == 0  # the symbol table answers a definition question alone
    workspace.search(SearchRequest(query='"retry"'))
    assert parsed.decoded == 0  # a literal names its hits' definitions from the symbol table's arrays too
    decoded = parsed.decoded
    assert workspace.refresh().indexed == 0
    after = workspace.snapshot().parsed  # a re-check that changed nothing decodes no row
    assert isinstance(after, StoredParsed) and after.decoded == decoded < len(after)
    assert answers(workspace) == cold
    workspace.close()
    assert cold_answers(tree, tmp_path / "another index") == cold


def test_the_first_bm25_built_is_served_from_its_stored_copy_and_answers_as_the_built_one(
        tree: Path, tmp_path: Path) -> None:
    cold = cold_answers(tree, tmp_path / "one-shot")
    server = Workspace(tree, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=True)
    server.refresh()
    built = LexicalIndex.builds
    assert answers(server) == cold
    lexical, chunks = server._lexical.get(server.snapshot())  # built by the first question, then stored
    assert LexicalIndex.builds == built + 1
    assert isinstance(lexical.model.scores["data"], np.memmap)  # ... and served from the stored copy
    fresh = LexicalIndex.build(chunks)
    for query in ("retry with backoff", "item inventory report", "warehouse ping"):
        assert lexical.search(query) == fresh.search(query)
    server.close()


def test_a_servers_first_index_is_served_from_what_it_stored_and_answers_as_the_built_one(
        tree: Path, tmp_path: Path) -> None:
    cold = cold_answers(tree, tmp_path / "one-shot")
    one_shot = opened(tree, tmp_path / "another one-shot")
    one_shot.refresh()  # a one-shot CLI keeps what it built: it exits after its answer
    assert one_shot.snapshot().graph.built and not one_shot.snapshot().graph.mapped
    one_shot.close()
    server = Workspace(tree, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=True)
    server.refresh()
    snapshot = server.snapshot()
    assert opened_saved(server) and snapshot.parsed.decoded == 0  # type: ignore[attr-defined]
    assert snapshot.graph.mapped and not snapshot.graph.built
    assert snapshot.contents.held == 0  # the texts the build cached went with it, as after a restart
    assert answers(server) == cold
    source = tree / "inventory" / "models.py"
    source.write_text(source.read_text() + "\n\ndef restock_with_retry(item):\n    return item\n")
    server.update_file(source)
    server._lexical.get(server.snapshot())  # BM25 of the edit is built behind the questions: wait for it
    building = server._lexical._building
    assert building is not None
    building.join()
    edited = answers(server)
    assert any(hit[2] == "restock_with_retry" for hits in edited for hit in hits)
    server.close()
    assert places(cold_answers(tree, tmp_path / "cold")) == places(edited)


@pytest.mark.parametrize("failure", [sqlite3.DatabaseError("disk I/O error"), MemoryError()])
def test_a_server_whose_stored_rows_fail_to_read_back_keeps_serving_what_it_built(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception) -> None:
    server = Workspace(tree, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=True)

    def unreadable() -> None:
        raise failure

    monkeypatch.setattr(server.store, "encoded_parsed", unreadable)
    server.refresh()  # indexed and stored: only serving it from the store failed
    assert server.ready and server.snapshot().graph.built and not server.snapshot().graph.mapped
    found = server.search_dict(SearchRequest(query="BaseJob.with_retry"))["results"]
    assert found and found[0]["symbol"] == "BaseJob.with_retry"
    server.close()


def test_a_server_keeps_its_built_index_while_a_buffer_is_unsaved(tree: Path, tmp_path: Path) -> None:
    server = Workspace(tree, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=True)
    source = tree / "inventory" / "models.py"
    server.set_buffer(source, source.read_text() + "\n\ndef unsaved_restock(item):\n    return item\n")
    server.refresh()  # the buffer's symbols are in no stored row: what is stored is not what is served
    assert server.snapshot().graph.built and not server.snapshot().graph.mapped
    found = server.search_dict(SearchRequest(query="unsaved_restock"))["results"]
    assert found and found[0]["symbol"] == "unsaved_restock"
    server.close()


def test_an_edit_after_a_restart_answers_as_a_cold_index_of_the_edited_files(tree: Path, tmp_path: Path) -> None:
    cold_answers(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    assert opened_saved(workspace)
    source = tree / "inventory" / "models.py"
    source.write_text(source.read_text() + "\n\ndef restock_with_retry(item):\n    return item\n")
    workspace.update_file(source)
    edited = answers(workspace)
    assert any(hit[2] == "restock_with_retry" for hits in edited for hit in hits)
    workspace.close()
    # Places only: centrality updated edge by edge after an edit differs from a fresh build's in the
    # last digits (as it did before the saved indexes), which moves scores, not what is found.
    cold = cold_answers(tree, tmp_path / "cold")
    assert places(cold) == places(edited)
    reopened = opened(tree, tmp_path / "index")
    assert opened_saved(reopened)  # saved again at close, for the edited rows
    # The edit was held over the stored graph (it added a definition), which keeps the stored centrality
    # until a build, and folded into it at close: the restart maps it and answers as the edited workspace.
    assert answers(reopened) == edited


def assert_refused_then_saved_again(tree: Path, index: Path, cold: list[list[tuple[Any, ...]]],
                                    content: tuple[Any, ...]) -> None:
    """A damaged saved index is not used, is said in `repairs`, answers as a cold index does, and is
    written again whole at the next refresh."""
    workspace = opened(tree, index)
    assert not opened_saved(workspace)
    assert any("saved indexes were damaged" in repair for repair in workspace.status()["repairs"])
    assert answers(workspace) == cold
    workspace.refresh()
    workspace.close()
    assert saved_content(index) == content
    assert opened_saved(opened(tree, index))


@pytest.mark.parametrize("damage", ["empty", "garbled", "truncated", "foreign"])
def test_a_damaged_saved_entry_is_not_used_and_is_saved_again(tree: Path, tmp_path: Path, damage: str) -> None:
    cold = cold_answers(tree, tmp_path / "index")
    blob, content = saved_blob(tmp_path / "index"), saved_content(tmp_path / "index")
    middle = len(blob) // 2
    damaged = {"empty": b"", "garbled": blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1:],
               "truncated": blob[:middle], "foreign": b"PK\x03\x04" + blob[4:]}[damage]
    set_saved(tmp_path / "index", damaged)
    assert_refused_then_saved_again(tree, tmp_path / "index", cold, content)


def garbled(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@pytest.mark.parametrize("damage", ["garbled", "garbled header", "truncated", "empty", "missing", "foreign"])
def test_a_damaged_saved_file_is_not_used_and_is_written_again(tree: Path, tmp_path: Path, damage: str) -> None:
    """The memory-mapped file beside the index is checked as the entry was: its size and digest are in
    the store, so a file cut, garbled, gone, or written for another index is refused, said, and rebuilt."""
    cold = cold_answers(tree, tmp_path / "index")
    path, content = tmp_path / "index" / SAVED_FILE, saved_content(tmp_path / "index")
    data = path.read_bytes()
    assert saved_blob(tmp_path / "index").startswith(POINTER) and len(saved_blob(tmp_path / "index")) < 300
    if damage == "foreign":  # the file of an index of other files, whole and valid in itself
        other = tmp_path / "other"
        shutil.copytree(tree, other)
        (other / "inventory" / "models.py").write_text("def elsewhere():\n    return 1\n")
        cold_answers(other, tmp_path / "other index")
        shutil.copyfile(tmp_path / "other index" / SAVED_FILE, path)
    elif damage == "missing":
        path.unlink()
    else:
        path.write_bytes({"garbled": garbled(data, len(data) - 100), "garbled header": garbled(data, 30),
                          "truncated": data[: len(data) // 2], "empty": b""}[damage])
    assert_refused_then_saved_again(tree, tmp_path / "index", cold, content)


def test_a_save_writes_its_file_whole_and_leaves_no_temporary_behind(tree: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    stale, fresh = index / f"{SAVED_FILE}.1.2.tmp", index / f"{SAVED_FILE}.3.4.tmp"
    for leftover in (stale, fresh):  # a killed save's (an hour old) and one another process is writing now
        leftover.write_bytes(b"half a file")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    cold_answers(tree, index)
    assert not stale.exists() and fresh.exists()
    assert sorted(path.name for path in index.glob(f"{SAVED_FILE}*")) == [SAVED_FILE, fresh.name]
    assert (index / SAVED_FILE).stat().st_size == json.loads(saved_blob(index)[len(POINTER):])["size"]


def test_a_rebuilt_index_file_takes_its_saved_file_with_it(tree: Path, tmp_path: Path) -> None:
    cold_answers(tree, tmp_path / "index")
    (tmp_path / "index" / "index.sqlite").write_bytes(b"not a database at all" * 100)
    workspace = opened(tree, tmp_path / "index")
    assert not (tmp_path / "index" / SAVED_FILE).exists()  # the rows it was built from are gone
    workspace.refresh()
    workspace.close()
    assert opened_saved(opened(tree, tmp_path / "index"))


def test_an_entry_saved_for_other_rows_is_not_used(tree: Path, tmp_path: Path) -> None:
    cold_answers(tree, tmp_path / "index")
    with sqlite3.connect(tmp_path / "index" / "index.sqlite") as db:
        db.execute("DELETE FROM files WHERE path = 'inventory/models.py'")
    workspace = opened(tree, tmp_path / "index")
    assert not opened_saved(workspace)
    assert "inventory/models.py" not in workspace.snapshot().files
    assert workspace.refresh().indexed == 1
    assert workspace.snapshot().symbols.definitions("Item")


def test_rows_garbled_since_the_entry_was_saved_open_from_the_rows(tree: Path, tmp_path: Path) -> None:
    """Same paths and file digests (the entry's key), other bytes: the eager load finds the damaged row."""
    cold = cold_answers(tree, tmp_path / "index")
    with sqlite3.connect(tmp_path / "index" / "index.sqlite") as db:
        db.execute("UPDATE files SET parsed = ? WHERE path = 'inventory/models.py'", (b"garbled payload",))
    workspace = opened(tree, tmp_path / "index")
    assert not opened_saved(workspace)
    assert any("damaged row" in repair for repair in workspace.status()["repairs"])
    assert workspace.refresh().indexed == 1
    assert answers(workspace) == cold


def symbol(name: str, path: str) -> Symbol:
    return Symbol(name, "function", path, Span(0, 0, 1, 0), Span(0, 4, 0, 4 + len(name)), container="mod",
                  qualified=name, signature=f"def {name}()", doc="Loads.", language="python")


def test_a_saved_index_reads_back_as_it_was_written() -> None:
    trigrams = TrigramIndex.build({1: file_trigrams("def load(): pass"), 4: file_trigrams("class Loader: ...")})
    symbols = SymbolTable([symbol("load", "a.py"), symbol("Loader", "b.py")]).with_file("c.py", [symbol("c", "c.py")])
    saved = SavedIndex("13:rows", {"a.py": 1, "b.py": 4}, trigrams, symbols, {"a.py": 3, "b.py": 0})
    back = SavedIndex.decode(saved.encode())
    assert back.rows == "13:rows" and back.doc_ids == {"a.py": 1, "b.py": 4}
    assert back.chunk_counts == {"a.py": 3, "b.py": 0}
    for literal in ("load", "class", "def", "zzz"):
        wanted = file_trigrams(literal)
        assert back.trigrams.candidates(wanted).tolist() == trigrams.candidates(wanted).tolist()
    assert [m.symbol for m in back.symbols.search("load")] == [m.symbol for m in symbols.search("load")]
    assert back.symbols.definitions("c") == [symbol("c", "c.py")]
    # The postings are read in place (no widened copy of the doc ids); what a search returns is int64 still.
    assert back.trigrams.base.docs.dtype == np.uint32
    assert back.trigrams.candidates(file_trigrams("load")).dtype == np.int64


@pytest.mark.parametrize("cut", [0, 8, 20, -1])
def test_a_cut_saved_index_raises_damaged(cut: int) -> None:
    saved = SavedIndex("13:rows", {"a.py": 1}, TrigramIndex.build({1: file_trigrams("text")}),
                       SymbolTable([symbol("load", "a.py")]), {"a.py": 1})
    with pytest.raises(DamagedSaved):
        SavedIndex.decode(saved.encode()[:cut])


def test_stored_parsed_decodes_each_file_once_and_an_undecodable_one_reads_empty() -> None:
    good = ParsedFile(symbols=(symbol("load", "a.py"),))
    parsed = StoredParsed({"a.py": encode_parsed(good), "b.py": b"not a payload"})
    assert list(parsed) == ["a.py", "b.py"] and len(parsed) == 2 and parsed.decoded == 0
    assert parsed["a.py"] == good and parsed["a.py"] is parsed["a.py"] and parsed.decoded == 1
    assert parsed["b.py"] == ParsedFile()
    assert "a.py" in parsed and "c.py" not in parsed and parsed.get("c.py") is None
    other = ParsedFile(symbols=(symbol("other", "c.py"),))
    edited = parsed.with_changes({"c.py": other, "a.py": ParsedFile()}, ["b.py"])
    assert list(edited) == ["a.py", "c.py"] and edited["c.py"] == other and edited["a.py"] == ParsedFile()
    assert "b.py" not in edited and edited.get("b.py") is None
    assert list(parsed) == ["a.py", "b.py"] and parsed["a.py"] == good  # the original is unchanged


def test_every_field_of_a_symbol_survives_the_saved_table() -> None:
    """A field added to Symbol must be saved too, or a restart would answer without it."""
    values = {field.name: Span(1, 2, 3, 4) if "Span" in str(field.type) else f"{field.name}-value"
              for field in dataclasses.fields(Symbol)}
    full = Symbol(**values)  # type: ignore[arg-type]
    bare = Symbol("bare", "function", "b.py", Span(0, 0, 1, 0), Span(0, 4, 0, 8))  # None and empty fields
    back = SymbolTable.from_arrays(SymbolTable([full, bare]).arrays())
    assert back.definitions(full.name) == [full] and list(back.all()) == [full, bare]
    assert back.definitions("bare")[0].container is None and back.definitions("bare") == [bare]


def test_a_symbol_table_saved_under_another_layout_is_not_read() -> None:
    arrays = SymbolTable([symbol("load", "a.py")]).arrays()
    layout = json.loads(arrays["layout"].tobytes())
    layout[0] = layout[0][:-1]  # as if Symbol had one field less
    other = {**arrays, "layout": np.frombuffer(json.dumps(layout).encode(), dtype=np.uint8)}
    with pytest.raises(ValueError, match="another layout"):
        SymbolTable.from_arrays(other)


def test_a_symbol_that_holds_no_text_where_text_belongs_is_not_saved() -> None:
    odd = dataclasses.replace(symbol("load", "a.py"), doc=("not", "text"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not text"):
        SymbolTable([odd]).arrays()


def test_a_saved_table_answers_every_tier_as_the_table_it_was_saved_from() -> None:
    """The lookups read from the arrays (bisected keys, CSR positions) give the dicts' answers, in order:
    exact, other case, same words, prefix, fuzzy, a qualifier, kinds, an overlay of edited files."""
    names = ["load_config", "LoadConfig", "loadConfig", "load", "loader", "Loader", "reload", "lc", "über_load",
             "__init__", "get", "get_or_create", "get", "parse", "ParseError"]
    symbols = [dataclasses.replace(symbol(name, f"pkg/mod{at % 4}.py"), container=f"Box{at % 3}",
                                   qualified=f"Box{at % 3}.{name}", kind=("function", "class", "variable")[at % 3])
               for at, name in enumerate(names)]
    table = SymbolTable(symbols).with_file("pkg/new.py", [symbol("load_new", "pkg/new.py")])
    table = table.without_file("pkg/mod3.py")
    back = SymbolTable.from_arrays(table.arrays())
    assert len(back) == len(table) and list(back.all()) == list(table.all())
    for query in ("load_config", "loadconfig", "LOAD_CONFIG", "load", "lo", "lcf", "Box1.get", "mod2.parse",
                  "pkg.mod0.load_config", "z.get", "über", "get", "nothing_here", "ld"):
        for kinds in (None, frozenset({"class"})):
            assert back.search(query, kinds) == table.search(query, kinds), (query, kinds)
    for name in names:
        assert back.definitions(name) == table.definitions(name)
    for words in ({"load", "config"}, {"get", "creat"}, {"pars", "error", "load"}, {"load"}):
        assert back.worded(words, 2) == table.worded(words, 2), words
    assert sorted(s.name for s in back.worded({"load", "config"}, 2)) == ["LoadConfig", "loadConfig", "load_config"]
    again = SymbolTable.from_arrays(back.arrays())  # a table read back saves the same arrays
    assert {name: array.tolist() for name, array in again.arrays().items()} == {
        name: array.tolist() for name, array in back.arrays().items()}


def test_only_a_large_loaded_index_is_frozen_out_of_the_collector(tree: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cold_answers(tree, tmp_path / "index")
    gc.unfreeze()
    opened(tree, tmp_path / "index").close()
    assert gc.get_freeze_count() == 0  # the fixture's few files are below FREEZE_MIN_FILES
    monkeypatch.setattr(workspace_module, "FREEZE_MIN_FILES", 1)
    try:
        workspace = opened(tree, tmp_path / "index")
        assert gc.get_freeze_count() > 0 and opened_saved(workspace)
        workspace.close()
    finally:
        gc.unfreeze()


def test_a_restart_lists_the_chunks_of_the_cold_index_without_decoding_every_row(tree: Path, tmp_path: Path) -> None:
    """BM25's positions name the same chunks after a restart as in the index that saved them: the chunk
    counts kept with the saved indexes place every chunk, and a question decodes only the files it shows."""
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    cold_chunks, cold_counts = workspace.snapshot().chunks(), dict(workspace.snapshot().chunk_counts)
    workspace.search(SearchRequest(query="how does retry work"))  # BM25 is built and stored
    workspace.close()
    workspace = opened(tree, tmp_path / "index")
    snapshot = workspace.snapshot()
    parsed = snapshot.parsed
    assert isinstance(parsed, StoredParsed)
    assert snapshot.chunk_counts == cold_counts and snapshot.chunk_count == len(cold_chunks)
    assert parsed.decoded == 0  # counted from what was saved
    workspace.search(SearchRequest(query="how does retry work"))
    assert 0 < parsed.decoded < len(parsed)
    assert list(snapshot.chunk_sequence) == cold_chunks
    assert [snapshot.chunk_sequence[at] for at in range(len(cold_chunks))] == cold_chunks
    workspace.close()


def test_a_chunk_sequence_reads_as_the_list_of_chunks() -> None:
    def chunks(path: str, count: int) -> ParsedFile:
        return ParsedFile(chunks=tuple(dataclasses.replace(chunk_of(path), digest=f"{path}{n}") for n in range(count)))

    def chunk_of(path: str) -> Chunk:
        return Chunk(path, Span(0, 0, 1, 0), "window", None, "text", "")

    parsed = {"b.py": chunks("b.py", 2), "a.py": chunks("a.py", 3), "empty.py": chunks("empty.py", 0),
              "c.py": chunks("c.py", 1)}
    listed = [chunk for path in sorted(parsed) for chunk in parsed[path].chunks]
    sequence = ChunkSequence(parsed, {path: len(one.chunks) for path, one in parsed.items()})
    assert len(sequence) == len(listed) == 6 and list(sequence) == listed
    assert [sequence[at] for at in range(-6, 6)] == listed + listed
    assert sequence[1:5] == listed[1:5] and sequence[::-2] == listed[::-2]
    for outside in (6, -7):
        with pytest.raises(IndexError):
            sequence[outside]
    assert len(ChunkSequence({}, {})) == 0 and list(ChunkSequence({}, {})) == []


def test_stored_parsed_counts_chunks_from_what_was_kept_and_from_its_edits() -> None:
    one = ParsedFile(chunks=(Chunk("a.py", Span(0, 0, 1, 0), "window", None, "a", "1"),))
    parsed = StoredParsed({"a.py": encode_parsed(one), "b.py": encode_parsed(ParsedFile())}, {"a.py": 1, "b.py": 0})
    assert parsed.chunk_counts() == {"a.py": 1, "b.py": 0} and parsed.decoded == 0
    edited = parsed.with_changes({"c.py": ParsedFile(chunks=one.chunks * 2)}, ["b.py"])
    assert edited.chunk_counts() == {"a.py": 1, "c.py": 2} and parsed.decoded == 0
    uncounted = StoredParsed({"a.py": encode_parsed(one)})
    assert uncounted.chunk_counts() == {"a.py": 1} and uncounted.decoded == 1  # decoded to count when not kept


def test_an_unkept_pass_reads_every_file_as_stored_and_keeps_none_decoded() -> None:
    first = ParsedFile(symbols=(symbol("load", "a.py"),))
    second = ParsedFile(symbols=(symbol("save", "b.py"),))
    parsed = StoredParsed({"a.py": encode_parsed(first), "b.py": encode_parsed(second)}, {"a.py": 0, "b.py": 0})
    edited = parsed.with_changes({"c.py": ParsedFile()}, [])
    unkept = edited.unkept()
    assert dict(unkept.items()) == {"a.py": first, "b.py": second, "c.py": ParsedFile()}
    assert list(unkept) == list(edited) and len(unkept) == 3 and "b.py" in unkept and "d.py" not in unkept
    assert unkept["a.py"] is not unkept["a.py"]  # decoded each time, kept by nobody
    kept = edited["a.py"]
    assert unkept["a.py"] is kept  # a row kept decoded already is read as it is
    with pytest.raises(KeyError):
        unkept["d.py"]


def test_a_restart_builds_the_graph_of_the_cold_index_without_keeping_the_rows_decoded(
        tree: Path, tmp_path: Path) -> None:
    cold = cold_answers(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    parsed = workspace.snapshot().parsed
    assert isinstance(parsed, StoredParsed)
    workspace.snapshot().graph.ensure_built()
    assert parsed.decoded == len(parsed) and parsed.kept == 0
    assert answers(workspace) == cold
    workspace.close()
