"""Which files of a workspace are indexed, and how a file's content is read safely.

A user expects the same files ripgrep would search: `.gitignore`, `.ignore` and `.fourfoldignore`
are honoured at every level (via `pathspec`'s git-wildmatch), and so are those of the folders above
the root up to the repository that holds it, with the repository's `.git/info/exclude` (a workspace
opened on a subfolder leaves out what its repository leaves out); binary, oversized and minified files
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
# A repository's own excludes, beside its `.gitignore` files (git and ripgrep obey both).
GIT_EXCLUDE = ("info", "exclude")
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
    """One folder's rules: `base` is the folder relative to the root; `prefix` is the root relative to a
    folder above it ("" for a folder inside), so a parent's `src/gen/` still matches `gen/` of root `src`."""

    base: str
    spec: IgnoreSpec
    prefix: str = ""


def _ignored(layers: Sequence[_IgnoreLayer], relative: str, is_dir: bool) -> bool:
    for layer in layers:
        sub = layer.prefix + (relative[len(layer.base) + 1 :] if layer.base else relative)
        if layer.spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def enclosing_repository(root: Path) -> Path | None:
    """The nearest folder at or above `root` that holds a `.git` (a folder, or a worktree's file)."""
    for folder in (root, *root.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def enclosing_ignore_files(root: Path) -> list[Path]:
    """The ignore files above `root` that the walk obeys: those of every folder from its repository down
    to its parent, and the repository's `.git/info/exclude`. A root outside any repository has none
    (ripgrep, too, stops at the repository: a home folder's stray `.gitignore` is not the project's).
    `root` is resolved already (the walk's and the workspace's are)."""
    repository = enclosing_repository(root)
    if repository is None:
        return []
    files = [repository.joinpath(".git", *GIT_EXCLUDE)]
    folders = [root, *root.parents]
    for folder in reversed(folders[1 : folders.index(repository) + 1]):
        files.extend(folder / name for name in IGNORE_FILES)
    return files


def _within_root(lines: Sequence[str], prefix: str) -> list[str]:
    """A parent folder's patterns less those that would leave out the root itself or a folder holding it:
    the user opened this folder, so `build/` above a root named `build` must not empty the workspace."""
    holders = [prefix[: end + 1] for end, char in enumerate(prefix) if char == "/"]
    return [line for line in lines if not any(
        pattern.include is True and any(pattern.match_file(holder) for holder in holders)
        for pattern in pathspec.GitIgnoreSpec.from_lines([line]).patterns)]


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
    real: str  # the folder's resolved path: a child that is no symlink resolves to real/name


class Walker:
    """Walks a root once, yielding candidate files; symlinks are followed only while they stay inside.

    The walk is a loop over an explicit stack, so no depth of nested folders can exhaust Python's
    recursion limit, and every entry is judged on its own: a bad name or an unreadable folder costs
    that entry (listed in `skipped` with a reason), never the walk.
    """

    def __init__(
        self, root: Path, exclude: Sequence[str] = (), max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        parent_ignores: bool = True,
    ) -> None:
        self.root = root.resolve()
        self.parent_ignores = parent_ignores
        self.exclude = IgnoreSpec(list(exclude))
        self.max_file_size = max_file_size
        self.skipped: list[Skipped] = []
        self._skipped_paths: set[str] = set()

    def walk(self) -> Iterator[Candidate]:
        seen: set[str] = set()
        stack: list[_Folder] = []
        self._enter(self.root, "", self._enclosing_layers() if self.parent_ignores else [], seen, stack)
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
                # Only a symlink needs resolving (os.path.realpath lstats every part of the path: on
                # Django that was 41k system calls, half of a re-check's walk).
                real = None if entry.is_symlink() else os.path.join(folder.real, entry.name)
                self._enter(entry.path, child, folder.layers, seen, stack, real)

    def _enter(self, directory: str | Path, relative: str, layers: list[_IgnoreLayer], seen: set[str],
               stack: list[_Folder], real: str | None = None) -> None:
        real = os.path.realpath(directory) if real is None else real
        if real in seen or not self._inside(real):
            return
        seen.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self._read_ignore_layer(directory, relative)  # still says an ignore file it cannot obey
            self._skip(relative or ".", f"unreadable folder: {error.strerror or error}")
            return
        present = {entry.name for entry in entries}
        layer = self._read_ignore_layer(directory, relative, [name for name in IGNORE_FILES if name in present])
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

    def _read_ignore_layer(self, directory: str | Path, relative: str,
                           names: Sequence[str] = IGNORE_FILES) -> _IgnoreLayer | None:
        """The rules of the folder's ignore files; `names`: those its listing holds (not looked up again)."""
        lines: list[str] = []
        for name in names:
            path = f"{relative}/{name}" if relative else name
            try:
                text = self._ignore_text(Path(directory, name))  # a Path only for a folder's ignore files
            except _NotObeyed as reason:
                self._skip(path, f"ignore file not obeyed: {reason}")
                continue
            if text is not None:
                lines.extend(text.splitlines())
        return _IgnoreLayer(relative, IgnoreSpec(lines)) if lines else None

    def _enclosing_layers(self) -> list[_IgnoreLayer]:
        """The rules of the ignore files above the root, one layer per folder that has any, outermost first."""
        by_folder: dict[Path, list[str]] = {}
        for path in enclosing_ignore_files(self.root):
            folder = path.parent.parent.parent if path.parts[-3:] == (".git", *GIT_EXCLUDE) else path.parent
            try:
                text = self._ignore_text(path, inside=folder)
            except _NotObeyed as reason:
                self._skip(printable(os.path.relpath(path, self.root)), f"ignore file not obeyed: {reason}")
                continue
            if text is not None:
                by_folder.setdefault(folder, []).extend(text.splitlines())
        layers = []
        for folder, lines in by_folder.items():
            prefix = "" if folder == self.root else self.root.relative_to(folder).as_posix() + "/"
            kept = _within_root(lines, prefix) if prefix else lines
            if kept:
                layers.append(_IgnoreLayer("", IgnoreSpec(kept), prefix))
        return layers

    def _ignore_text(self, path: Path, inside: Path | None = None) -> str | None:
        """The text of an ignore file, None when there is none; refuses what could hang or flood the walk.
        A link is followed only while it stays inside the root (or `inside`, for a file above the root)."""
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            real = os.path.realpath(path)
            if not (self._inside(real) if inside is None else _is_within(real, str(inside.resolve()))):
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
            data = _read_regular(path, IGNORE_FILE_MAX)
        except UnreadableFile as error:
            raise _NotObeyed(error.reason) from None
        return data[1].decode("utf-8", errors="replace")

    def _skip(self, path: str, reason: str) -> None:
        if path not in self._skipped_paths:
            self._skipped_paths.add(path)
            self.skipped.append(Skipped(path, reason))

    def _inside(self, real: str) -> bool:
        return _is_within(real, str(self.root))


def _is_within(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


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
