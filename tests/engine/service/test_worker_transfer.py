"""What a worker sends the indexer: its row, whose first part is its records without their chunks pickled once;
the indexer does not unpickle them (the entry arrives bare) but reads them back from the row when asked."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from fourfold.engine.index.indexjob import Indexed, index_batch, index_job
from fourfold.engine.index.store import decode_parsed
from fourfold.engine.model.records import ParsedFile

SOURCE = '''
import os


class Config:
    def load(self, path):
        return os.path.exists(path)


def main():
    return Config().load("settings.toml")
'''


class _CountingPickler(pickle.Pickler):
    """Counts the ParsedFile objects a pickle walks (each one is a whole file's records pickled)."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.parsed = 0

    def persistent_id(self, obj: object) -> None:
        if isinstance(obj, ParsedFile):
            self.parsed += 1
        return None


def test_a_worker_entry_pickles_its_records_once(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE)
    entry = index_job((tmp_path, "app.py", 1 << 20))
    assert isinstance(entry, Indexed) and entry.pickled
    assert {s.qualified for s in entry.stored.parsed.symbols} >= {"Config", "Config.load", "main"}

    buffer = io.BytesIO()
    pickler = _CountingPickler(buffer)
    pickler.dump(entry)
    assert pickler.parsed == 0  # the records travel inside the row, not walked again
    assert entry.pickled not in buffer.getvalue()  # nor sent beside the row that holds them

    received = pickle.loads(buffer.getvalue())
    assert received.pickled == b""  # the indexer's copy does not keep the transfer bytes
    assert received.stored.parsed == ParsedFile() and received.bare  # nothing unpickled on arrival
    assert received.released and received.chunks == len(entry.stored.parsed.chunks)
    assert received.records() == replace(entry.stored.parsed, chunks=())  # read back from the row
    assert decode_parsed(received.stored.encoded) == entry.stored.parsed  # the row payload, unchanged
    written = received.written()
    assert written.chunks == received.chunks  # still counted once the row is written
    assert written.stored.encoded == received.stored.encoded and written.records() == received.records()
    assert received.stored.record == entry.stored.record and received.text == entry.text
    assert received.grams.tolist() == entry.grams.tolist()


def test_a_batch_without_texts_sends_none(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE)
    job = (tmp_path, "app.py", 1 << 20)
    [kept] = index_batch(index_job, [job])
    [dropped] = index_batch(index_job, [job], texts=False)
    assert isinstance(kept, Indexed) and isinstance(dropped, Indexed)
    assert kept.text == SOURCE and dropped.text == ""
    assert dropped.stored.encoded == kept.stored.encoded and dropped.pickled == kept.pickled


def test_an_entry_made_in_process_pickles_as_itself(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE)
    entry = index_job((tmp_path, "app.py", 1 << 20))
    assert isinstance(entry, Indexed)
    local = Indexed(entry.stored, entry.text, entry.grams)
    again = pickle.loads(pickle.dumps(local))
    assert again.stored == local.stored and again.text == local.text


def test_a_worker_imports_neither_the_service_nor_the_graph() -> None:
    """What a spawned worker imports to run `index_job` (it unpickles the function by its module)."""
    heavy = ["fourfold.engine.service.workspace", "fourfold.engine.graph.graph", "networkx", "scipy", "bm25s"]
    code = ("import sys, fourfold.engine.index.indexjob; "
            f"print([name for name in {heavy!r} if name in sys.modules])")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"
