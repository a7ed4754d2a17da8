"""Which files of a workspace are indexed, and how a file's content is read safely.

A user expects the same files ripgrep would search: `.gitignore`, `.ignore` and `.fourfoldignore`
are honoured at every level (via `pathspec`'s git-wildmatch), binary, oversized and minified files
are skipped, and symlinks never lead out of the root — a symlink loop cannot hang the walk
because every directory is visited once by its real path.

A repository can hold anything git allows, so every entry is judged alone and a bad one costs only
itself, with a reason status lists: a name that is not UTF-8, a folder too deep for recursion (the
walk keeps its own stack), an ignore file that is a FIFO, a device, a link out of the root or too big
to be a real one (never opened, or opened non-blocking and checked on the descriptor).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec
import xxhash

from ..model.languages import detect_language
from ..model.profiles import DEFAULT_MAX_FILE_SIZE
from ..model.records import FileRecord

log = logging.getLogger(__name__)

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


# An ignore file larger than this is not obeyed (a `.fourfoldignore -> /dev/zero` must not fill memory);
# the largest real ones (generated monorepo lists) are a few hundred KiB.
IGNORE_FILE_MAX = 1024 * 1024
# Patterns compiled into one matcher before the set is split: RE2 refuses sets past its memory budget
# ("failed to compile Set", seen at ~3,000 gitignore lines with character classes).
IGNORE_SET_MAX = 1000


class IgnoreSpec:
    """Gitignore patterns of one layer, matched last-match-wins, whatever their number.

    `pathspec` compiles the whole list into one RE2 set; a set too big for RE2 is split in halves
    until each part compiles (a single pattern RE2 still refuses falls back to pathspec's pure Python
    matcher). Parts are asked in order and the last one with a verdict decides, as one list would.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.parts: list[pathspec.GitIgnoreSpec] = []
        for start in range(0, len(lines), IGNORE_SET_MAX):
            self.parts.extend(_compiled(list(lines[start : start + IGNORE_SET_MAX])))

    def match_file(self, path: str) -> bool:
        verdict: bool | None = None
        for part in self.parts:
            include = part.check_file(path).include
            if include is not None:
                verdict = include
        return bool(verdict)


def _compiled(lines: list[str]) -> list[pathspec.GitIgnoreSpec]:
    try:
        return [pathspec.GitIgnoreSpec.from_lines(lines)]
    except Exception as error:  # RE2's compile error type depends on the binding; any failure splits
        if len(lines) > 1:
            half = len(lines) // 2
            return _compiled(lines[:half]) + _compiled(lines[half:])
        log.info("ignore pattern %r kept out of the RE2 set (%s)", lines[0], error)
        try:
            return [pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")]  # type: ignore[call-arg]
        except Exception as again:
            log.warning("ignore pattern %r cannot be used: %s", lines[0], again)
            return []


@dataclass
class _IgnoreLayer:
    base: str
    spec: IgnoreSpec


def _ignored(layers: Sequence[_IgnoreLayer], relative: str, is_dir: bool) -> bool:
    for layer in layers:
        sub = relative[len(layer.base) + 1 :] if layer.base else relative
        if layer.spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def _name_problem(name: str) -> str | None:
    """Why a file name cannot be indexed, or None: the index and the protocol carry UTF-8 text only."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "file name is not valid UTF-8"
    return None


def printable(path: str) -> str:
    """A path that can be shown and stored even when its name is not UTF-8 (bad bytes as \\xNN)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass
class _Folder:
    """One level of the walk: the rest of its entries, its root-relative path and the ignore rules in force."""

    entries: Iterator[os.DirEntry[str]]
    relative: str
    layers: list[_IgnoreLayer]
    # Its real path (symlinks resolved): a folder below it that is no symlink is this plus its name.
    real: str


class Walker:
    """Walks a root once, yielding candidate files; symlinks are followed only while they stay inside.

    The walk is a loop over an explicit stack, so no depth of nested folders can exhaust Python's
    recursion limit, and every entry is judged on its own: a bad name or an unreadable folder costs
    that entry (listed in `skipped` with a reason), never the walk.
    """

    def __init__(
        self, root: Path, exclude: Sequence[str] = (), max_file_size: int = DEFAULT_MAX_FILE_SIZE
    ) -> None:
        self.root = root.resolve()
        self._root_text = str(self.root)
        self.exclude = IgnoreSpec(list(exclude))
        self.max_file_size = max_file_size
        self.skipped: list[Skipped] = []
        self._skipped_paths: set[str] = set()

    def walk(self) -> Iterator[Candidate]:
        seen: set[str] = set()
        stack: list[_Folder] = []
        self._enter(self._root_text, os.path.realpath(self._root_text), "", [], seen, stack)
        while stack:
            folder = stack[-1]
            entry = next(folder.entries, None)
            if entry is None:
                stack.pop()
                continue
            child = f"{folder.relative}/{entry.name}" if folder.relative else entry.name
            problem = _name_problem(entry.name)
            if problem is not None:
                self._skip(printable(child), problem)
                continue
            found = self._visit(entry, child, folder.layers)
            if isinstance(found, Candidate):
                yield found
            elif found is not None:
                # only a symlink needs resolving (`realpath` lstats every part of the path: 41k calls on Django)
                real = os.path.realpath(entry.path) if entry.is_symlink() else f"{folder.real}{os.sep}{entry.name}"
                self._enter(entry.path, real, child, folder.layers, seen, stack)

    def _enter(self, directory: str, real: str, relative: str, layers: list[_IgnoreLayer], seen: set[str],
               stack: list[_Folder]) -> None:
        if real in seen or not self._inside(real):
            return
        seen.add(real)
        layer = self._read_ignore_layer(directory, relative)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self._skip(relative or ".", f"unreadable folder: {error.strerror or error}")
            return
        stack.append(_Folder(iter(entries), relative, [*layers, layer] if layer else layers, real))

    def _visit(self, entry: os.DirEntry[str], child: str, layers: list[_IgnoreLayer]) -> Candidate | bool | None:
        """A candidate file, True for a folder to descend into, or None for an entry left out."""
        try:
            info = os.stat(entry.path)
        except OSError:
            return None  # dangling symlink or vanished file: nothing to index
        is_dir = stat.S_ISDIR(info.st_mode)
        if (is_dir and entry.name in ALWAYS_SKIPPED) or _ignored(layers, child, is_dir):
            return None
        if self.exclude.match_file(child + "/" if is_dir else child):
            return None
        if is_dir:
            return True
        if not stat.S_ISREG(info.st_mode):
            return None  # FIFOs, sockets, devices: never read
        if entry.is_symlink() and not self._inside(os.path.realpath(entry.path)):
            self._skip(child, "symlink points outside the workspace")
        elif info.st_size > self.max_file_size:
            self._skip(child, f"larger than {self.max_file_size} bytes")
        else:
            return Candidate(child, info.st_size, info.st_mtime_ns)
        return None

    def _read_ignore_layer(self, directory: str, relative: str) -> _IgnoreLayer | None:
        lines: list[str] = []
        for name in IGNORE_FILES:
            path = f"{relative}/{name}" if relative else name
            try:
                text = self._ignore_text(os.path.join(directory, name))
            except _NotObeyed as reason:
                self._skip(path, f"ignore file not obeyed: {reason}")
                continue
            if text is not None:
                lines.extend(text.splitlines())
        return _IgnoreLayer(relative, IgnoreSpec(lines)) if lines else None

    def _ignore_text(self, path: str) -> str | None:
        """The text of an ignore file, None when there is none; refuses what could hang or flood the walk."""
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            if not self._inside(os.path.realpath(path)):
                raise _NotObeyed("it points outside the workspace")
            try:
                info = os.stat(path)
            except OSError:
                return None
        if not stat.S_ISREG(info.st_mode):
            raise _NotObeyed("not a regular file")
        if info.st_size > IGNORE_FILE_MAX:
            raise _NotObeyed(f"larger than {IGNORE_FILE_MAX} bytes")
        try:
            data = _read_regular(Path(path), IGNORE_FILE_MAX)
        except UnreadableFile as error:
            raise _NotObeyed(error.reason) from None
        return data[1].decode("utf-8", errors="replace")

    def _skip(self, path: str, reason: str) -> None:
        if path not in self._skipped_paths:
            self._skipped_paths.add(path)
            self.skipped.append(Skipped(path, reason))

    def _inside(self, real: str) -> bool:
        root = self._root_text
        return real == root or real.startswith(root + os.sep)


class _NotObeyed(Exception):
    """An ignore file the walk refuses to read; the message says why."""


class UnreadableFile(Exception):
    """The file cannot be indexed; `reason` says why in words a user understands (status counts them)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


# Byte order marks of the encodings a BOM names unambiguously; UTF-32 first (its LE mark starts with UTF-16's).
# A UTF-8 BOM stays in the text as U+FEFF, so columns and digests keep meaning what they meant.
BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode(data: bytes, path: str) -> str:
    """Bytes to text, refusing binary and minified content; invalid UTF-8 is replaced, not fatal.

    UTF-16 and UTF-32 files (Windows tools write them) are decoded from their byte order mark; without
    one, their NUL bytes make them binary, as in ripgrep.
    """
    for mark, encoding in BOMS:
        if data.startswith(mark):
            text = data[len(mark) :].decode(encoding, errors="replace")
            if "\x00" in text[:SNIFF_BYTES]:
                raise UnreadableFile(path, "binary file")
            break
    else:
        if b"\x00" in data[:SNIFF_BYTES]:
            raise UnreadableFile(path, "binary file")
        text = data.decode("utf-8", errors="replace")
    if _looks_minified(text):
        raise UnreadableFile(path, "minified or generated code")
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


def _read_regular(full: Path, limit: int) -> tuple[os.stat_result, bytes]:
    """The stat and the bytes of a regular file of at most `limit` bytes.

    Opened non-blocking and checked on the open descriptor: a FIFO or device put where a file was
    (or swapped in after the walk) is refused instead of blocking the indexer or streaming forever.
    """
    relative = full.name
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise UnreadableFile(relative, error.strerror or str(error)) from error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(relative, "not a regular file")
        if info.st_size > limit:
            raise UnreadableFile(relative, f"larger than {limit} bytes")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise UnreadableFile(relative, error.strerror or str(error)) from error
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(relative, f"larger than {limit} bytes")
    return info, data


def read_file(
    root: Path, relative: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE
) -> tuple[FileRecord, str]:
    """Read one file for indexing: its record (size, mtime, hash, language) and its decoded text."""
    problem = _name_problem(relative)
    if problem is not None:
        raise UnreadableFile(printable(relative), problem)
    try:
        info, data = _read_regular(root / relative, max_file_size)
    except UnreadableFile as error:
        raise UnreadableFile(relative, error.reason) from None
    text = decode(data, relative)
    record = FileRecord(relative, len(data), info.st_mtime_ns, digest(data), detect_language(relative, text))
    return record, text
