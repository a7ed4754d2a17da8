"""Which files of a workspace are indexed, and how a file's content is read safely.

A user expects the same files ripgrep would search: `.gitignore`, `.ignore` and `.fourfoldignore`
are honoured at every level (via `pathspec`'s git-wildmatch), binary, oversized and minified files
are skipped, and symlinks never lead out of the root — a symlink loop cannot hang the walk
because every directory is visited once by its real path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec
import xxhash

from .languages import detect_language
from .records import FileRecord

IGNORE_FILES = (".gitignore", ".ignore", ".fourfoldignore")
# Folders no user wants searched, even without an ignore file (ripgrep skips hidden ones too).
ALWAYS_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".venv",
        "venv",
        "node_modules",
        ".idea",
        ".vscode-test",
    }
)
DEFAULT_MAX_FILE_SIZE = 1024 * 1024
# A line this long, in a file whose average line is also long, means minified or generated code.
MINIFIED_LINE_LENGTH = 1000
SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Candidate:
    """A file found by the walk, before reading: its relative path and the stat that names its version."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Skipped:
    """A file left out of the index, and the reason a user would see in status."""

    path: str
    reason: str


@dataclass
class _IgnoreLayer:
    base: str
    spec: pathspec.GitIgnoreSpec


def _read_ignore_layer(directory: Path, relative: str) -> _IgnoreLayer | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            lines.extend((directory / name).read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    if not lines:
        return None
    return _IgnoreLayer(relative, pathspec.GitIgnoreSpec.from_lines(lines))


def _ignored(layers: Sequence[_IgnoreLayer], relative: str, is_dir: bool) -> bool:
    for layer in layers:
        sub = relative[len(layer.base) + 1 :] if layer.base else relative
        if layer.spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


class Walker:
    """Walks a root once, yielding candidate files; symlinks are followed only while they stay inside."""

    def __init__(
        self, root: Path, exclude: Sequence[str] = (), max_file_size: int = DEFAULT_MAX_FILE_SIZE
    ) -> None:
        self.root = root.resolve()
        self.exclude = pathspec.GitIgnoreSpec.from_lines(list(exclude))
        self.max_file_size = max_file_size
        self.skipped: list[Skipped] = []

    def walk(self) -> Iterator[Candidate]:
        seen: set[str] = set()
        yield from self._walk_dir(self.root, "", [], seen)

    def _walk_dir(
        self, directory: Path, relative: str, layers: list[_IgnoreLayer], seen: set[str]
    ) -> Iterator[Candidate]:
        real = os.path.realpath(directory)
        if real in seen or not self._inside(real):
            return
        seen.add(real)
        layer = _read_ignore_layer(directory, relative)
        active = [*layers, layer] if layer else layers
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self.skipped.append(Skipped(relative or ".", f"unreadable folder: {error.strerror}"))
            return
        for entry in entries:
            yield from self._visit(entry, relative, active, seen)

    def _visit(
        self, entry: os.DirEntry[str], relative: str, layers: list[_IgnoreLayer], seen: set[str]
    ) -> Iterator[Candidate]:
        child = f"{relative}/{entry.name}" if relative else entry.name
        try:
            info = os.stat(entry.path)
        except OSError:
            return  # dangling symlink or vanished file: nothing to index
        is_dir = stat.S_ISDIR(info.st_mode)
        if (is_dir and entry.name in ALWAYS_SKIPPED) or _ignored(layers, child, is_dir):
            return
        if self.exclude.match_file(child + "/" if is_dir else child):
            return
        if is_dir:
            yield from self._walk_dir(Path(entry.path), child, layers, seen)
        elif stat.S_ISREG(info.st_mode):
            if entry.is_symlink() and not self._inside(os.path.realpath(entry.path)):
                self.skipped.append(Skipped(child, "symlink points outside the workspace"))
            elif info.st_size > self.max_file_size:
                self.skipped.append(Skipped(child, f"larger than {self.max_file_size} bytes"))
            else:
                yield Candidate(child, info.st_size, info.st_mtime_ns)

    def _inside(self, real: str) -> bool:
        root = str(self.root)
        return real == root or real.startswith(root + os.sep)


class UnreadableFile(Exception):
    """The file cannot be indexed; the message says why in words a user understands."""


def decode(data: bytes, path: str) -> str:
    """Bytes to text, refusing binary and minified content; invalid UTF-8 is replaced, not fatal."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise UnreadableFile(f"{path}: binary file")
    text = data.decode("utf-8", errors="replace")
    if _looks_minified(text):
        raise UnreadableFile(f"{path}: minified or generated code")
    return text


def _looks_minified(text: str) -> bool:
    if len(text) < MINIFIED_LINE_LENGTH:
        return False
    lines = text.count("\n") + 1
    return (
        len(text) / lines > MINIFIED_LINE_LENGTH / 2
        and max(map(len, text.splitlines())) > MINIFIED_LINE_LENGTH
    )


def digest(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


def read_file(
    root: Path, relative: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE
) -> tuple[FileRecord, str]:
    """Read one file for indexing: its record (size, mtime, hash, language) and its decoded text."""
    full = root / relative
    try:
        with open(full, "rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > max_file_size:
                raise UnreadableFile(f"{relative}: larger than {max_file_size} bytes")
            data = handle.read(max_file_size + 1)
    except OSError as error:
        raise UnreadableFile(f"{relative}: {error.strerror or error}") from error
    text = decode(data, relative)
    record = FileRecord(relative, len(data), info.st_mtime_ns, digest(data), detect_language(relative, text))
    return record, text
