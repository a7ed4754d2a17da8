"""`fourfold daemon`: one warm index per root, so a CLI search costs what `rg` costs, not a restart.

Without it every `fourfold search` loads the whole index (on Django: 8 CPU-seconds and 900 MB
before the first result). With it the first CLI call for a root starts a background process that
keeps the index open; later calls send their question over a Unix socket in the index folder and
print the answer, importing nothing of the engine. The daemon re-checks the disk before each answer
(one stat per file, folder and ignore file; a full refresh only when something changed), so an edit
is found on the next call. It stops after `IDLE_S` without a question, or on `fourfold daemon stop`.

One daemon per index folder: it holds `daemon.lock` for its whole life, and CLIs that race to start
one serialise on `spawn.lock`, so only the first spawns and the others wait for its socket. A CLI
whose settings (semantic backend, excludes) differ from the running daemon's asks it to stop and
starts a fresh one. `--no-daemon` keeps the in-process path.

Wire format: one JSON object per line. The client sends one request; the daemon answers with any
number of `{"progress": ...}` lines while the index loads, then one `{"ok": ...}` line.
"""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import json
import os
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import platformdirs
import xxhash

SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
SPAWN_LOCK_NAME = "spawn.lock"
LOG_NAME = "daemon.log"
# Idle minutes before a daemon exits: long enough for an agent's whole task, short enough not to linger.
IDLE_S = float(os.environ.get("FOURFOLD_DAEMON_IDLE_S", 15 * 60))
# How long a starting daemon may take to listen (Python start-up and imports, on a busy machine).
START_TIMEOUT_S = 60.0
# Unix socket paths are limited to 107 bytes (Linux) or 103 (macOS).
MAX_SOCKET_PATH = 100
PROGRESS_INTERVAL_S = 0.5
# A daemon that sends nothing (no progress, no answer) for this long is taken for hung.
SILENCE_S = 300.0


class DaemonError(Exception):
    """The daemon could not be reached or started; the message says what to do."""


class RemoteError(Exception):
    """The daemon answered with an error (a bad query, an unusable root): shown to the user as is."""

    def __init__(self, message: str, kind: str, position: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.position = position


@dataclass(frozen=True)
class DaemonKey:
    """What makes two CLI calls share a daemon: the root, the index folder, the settings that change
    answers, and the code that gives them (`code_identity`): a daemon started before an upgrade or a
    checkout of other code would go on answering with the old engine and write the index with it."""

    root: str
    index_dir: str
    backend: str
    exclude: tuple[str, ...]
    code: str = ""

    @classmethod
    def of(cls, root: str, index_dir: str | None, backend: str | None, exclude: list[str] | None) -> DaemonKey:
        resolved = Path(root).resolve()
        folder = Path(index_dir).resolve() if index_dir else default_index_dir(resolved)
        return cls(str(resolved), str(folder), backend or "local", tuple(exclude or ()), code_identity())

    @property
    def folder(self) -> Path:
        return Path(self.index_dir)

    def settings(self) -> dict[str, Any]:
        return {"index_dir": self.index_dir, "semantic_backend": self.backend, "exclude": list(self.exclude)}


@lru_cache(maxsize=1)
def code_identity() -> str:
    """A digest of the installed engine and adapters as files (each one's path, size and mtime), read
    without importing them: what a daemon runs is what a client would run only when these agree. A
    stat per file, about a millisecond for the whole package; compiled caches do not count."""
    digest = xxhash.xxh3_64()
    for package in ("fourfold.engine", "fourfold.lsp"):
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
            for path, size, mtime in sorted(_files(Path(folder))):
                digest.update(f"{path}\0{size}\0{mtime}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _files(folder: Path) -> Iterator[tuple[str, int, int]]:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    yield from _files(Path(entry.path))
            elif entry.is_file():
                info = entry.stat()
                yield entry.path, info.st_size, info.st_mtime_ns


def default_index_dir(root: Path) -> Path:
    """The engine's default index folder (`fourfold.engine.index.store.default_index_dir`), computed without
    importing the engine; a test keeps the two equal."""
    tag = xxhash.xxh3_64_hexdigest(str(root).encode())[:12]
    return Path(platformdirs.user_cache_dir("fourfold")) / f"{root.name or 'root'}-{tag}"


def socket_path(folder: Path) -> str:
    path = str(folder / SOCKET_NAME)
    if len(path.encode()) <= MAX_SOCKET_PATH:
        return path
    tag = xxhash.xxh3_64_hexdigest(str(folder).encode())[:16]
    return os.path.join(tempfile.gettempdir(), f"fourfold-{os.getuid()}-{tag}.sock")


# --- client ----------------------------------------------------------------------------------

def call(key: DaemonKey, message: Mapping[str, Any], progress: Callable[[dict[str, Any]], None] | None = None,
         start: bool = True) -> dict[str, Any]:
    """Send one request to the root's daemon (starting it if needed) and return its final answer.

    Raises RemoteError for an error the daemon reports, DaemonError when no daemon can be reached."""
    request = {**message, "key": asdict(key)}
    for attempt in range(2):
        try:
            connection = _connect(key) or (_start(key) if start else None)
        except OSError as error:  # an unusable index folder: the in-process path reports it in full
            raise DaemonError(f"cannot start a daemon in {key.folder}: {error.strerror or error}") from error
        if connection is None:
            raise DaemonError(f"no daemon is running for {key.root}")
        with connection:
            answer = _exchange(connection, request, progress)
        if answer.get("restart") and attempt == 0:
            _wait_stopped(key)
            continue
        if not answer.get("ok"):
            raise RemoteError(str(answer.get("error")), str(answer.get("kind", "error")), answer.get("position"))
        return answer
    raise DaemonError(f"the daemon for {key.root} keeps asking to restart; try `fourfold daemon stop`")


def _connect(key: DaemonKey) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(socket_path(key.folder))
    except OSError:
        connection.close()
        return None
    return connection


def _exchange(connection: socket.socket, request: Mapping[str, Any],
              progress: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    connection.settimeout(SILENCE_S)
    connection.sendall(json.dumps(request).encode() + b"\n")
    try:
        return _answer(connection, progress)
    except TimeoutError as error:
        raise DaemonError(f"the daemon sent nothing for {SILENCE_S:.0f} s; see daemon.log in the index folder, "
                          "or use --no-daemon") from error


def _answer(connection: socket.socket, progress: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    for line in _lines(connection.makefile("rb")):
        message = json.loads(line)
        if "progress" in message:
            if progress is not None:
                progress(message["progress"])
            continue
        return dict(message)
    raise DaemonError("the daemon closed the connection without answering; see daemon.log in the index folder")


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    while line := stream.readline():
        yield line


@contextmanager
def _locked(path: Path, blocking: bool = True) -> Iterator[bool]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _daemon_alive(key: DaemonKey) -> bool:
    """True while some process holds the daemon lock (running, or starting and not listening yet)."""
    with _locked(key.folder / LOCK_NAME, blocking=False) as free:
        return not free


def _start(key: DaemonKey) -> socket.socket:
    """Start the root's daemon unless a racing CLI already did, and connect to it."""
    with _locked(key.folder / SPAWN_LOCK_NAME):
        connection = _connect(key)
        if connection is not None:
            return connection
        if not _daemon_alive(key):
            _spawn(key)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            connection = _connect(key)
            if connection is not None:
                return connection
            time.sleep(0.05)
    raise DaemonError(f"the daemon for {key.root} did not start within {START_TIMEOUT_S:.0f} s; "
                      f"see {key.folder / LOG_NAME}, or use --no-daemon")


def _spawn(key: DaemonKey) -> None:
    command = [sys.executable, "-m", "fourfold.lsp.daemon", "--root", key.root, "--index-dir", key.index_dir,
               "--backend", key.backend, *(f"--exclude={glob}" for glob in key.exclude)]
    with open(key.folder / LOG_NAME, "ab") as log:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                         close_fds=True)


def _wait_stopped(key: DaemonKey, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while _daemon_alive(key) and time.monotonic() < deadline:
        time.sleep(0.05)


def stop(key: DaemonKey) -> bool:
    """Ask the root's daemon to exit; False when none was running."""
    connection = _connect(key)
    if connection is None:
        return False
    with connection:
        _exchange(connection, {"op": "stop", "key": asdict(key)}, None)
    _wait_stopped(key)
    return True


# --- daemon ----------------------------------------------------------------------------------

class Daemon:
    """The serving side: one WarmIndex, a socket server, and an idle clock."""

    def __init__(self, key: DaemonKey, idle_s: float) -> None:
        self.key = key
        self.idle_s = idle_s
        self.started = time.monotonic()
        self.last_used = time.monotonic()
        self.active = 0
        self.index: Any = None
        self.loaded = threading.Event()
        self.stopping = threading.Event()
        self.server: socketserver.ThreadingUnixStreamServer | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Open the index in the background (the engine import alone takes seconds); questions wait for it."""
        from fourfold.engine import parse_settings

        from .warm import WarmIndex

        settings, errors = parse_settings(self.key.settings())
        for error in errors:
            print(f"fourfold daemon: {error}", file=sys.stderr)
        self.index = WarmIndex(Path(self.key.root), settings)
        self.index.start()
        self.loaded.set()

    def handle(self, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> None:
        with self._lock:
            self.active += 1
            self.last_used = time.monotonic()
        try:
            send(self._answer(request, send))
        finally:
            with self._lock:
                self.active -= 1
                self.last_used = time.monotonic()

    def _answer(self, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        op = request.get("op")
        if op == "stop":
            self.shutdown()
            return {"ok": True}
        if op == "ping":
            return {"ok": True, "pid": os.getpid(), "root": self.key.root, "index_dir": self.key.index_dir,
                    "backend": self.key.backend, "uptime_s": round(time.monotonic() - self.started, 1),
                    "idle_s": self.idle_s}
        if request.get("key") != asdict(self.key) | {"exclude": list(self.key.exclude)}:
            self.shutdown()
            return {"ok": False, "restart": "this daemon runs with other settings or other code"}
        self._wait(send, request.get("wait_embedded", False))
        try:
            return self._run(op, request, send)
        except Exception as error:
            return _error_answer(error)

    def _wait(self, send: Callable[[dict[str, Any]], None], embedded: bool) -> None:
        """Stream progress while the index loads, indexes and (when asked) embeds."""
        report = _reporter(send)
        while not self.loaded.wait(PROGRESS_INTERVAL_S):
            report("loading")
        index = self.index
        while not index.wait_indexed(PROGRESS_INTERVAL_S):
            report(index.phase.name, index.phase.done, index.phase.total)
        while embedded and not index.wait_embedded(PROGRESS_INTERVAL_S):
            pending = index.workspace().status().get("semantic_progress") or {}
            report("embedding", pending.get("done", 0), pending.get("total", 0))

    def _run(self, op: Any, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        from fourfold.engine import SearchRequest

        from .warm import why_empty

        index = self.index
        workspace = index.workspace()
        update = _reporter(send)
        notes = index.sync(lambda done, total: update("indexing", done, total))  # a branch switch can take a while
        if op == "search":
            search = SearchRequest.from_mapping(request.get("args") or {})
            answer = workspace.search_answer(search)
            reason = why_empty(workspace, search) if not answer.results else None
            answer = replace(answer, notes=(*notes, *answer.notes, *([reason] if reason else [])))
            return {"ok": True, "result": answer.to_dict()}
        if op == "grep":
            from .grep import GrepOptions, grep

            found = grep(workspace, GrepOptions.from_mapping(request.get("args") or {}))
            return {"ok": True, "result": {**found, "notes": [*notes, *found["notes"]]}}
        if op == "status":
            return {"ok": True, "result": workspace.status()}
        if op == "index":
            stats = workspace.refresh(full=bool(request.get("full")))
            return {"ok": True, "result": {**asdict(stats), "status": workspace.status()}}
        return {"ok": False, "error": f"unknown request {op!r}", "kind": "protocol"}

    def idle_clock(self) -> None:
        while not self.stopping.wait(min(5.0, self.idle_s / 4)):
            with self._lock:
                idle = self.active == 0 and time.monotonic() - self.last_used > self.idle_s
            if idle:
                self.shutdown()

    def shutdown(self) -> None:
        if self.stopping.is_set():
            return
        self.stopping.set()
        if self.server is not None:
            threading.Thread(target=self.server.shutdown, name="shutdown", daemon=True).start()


def _reporter(send: Callable[[dict[str, Any]], None]) -> Callable[..., None]:
    """A progress callback that sends at most one line per PROGRESS_INTERVAL_S (and every phase change)."""
    started = time.monotonic()
    last: list[Any] = [None, 0.0]

    def report(phase: str, done: int = 0, total: int = 0) -> None:
        now = time.monotonic()
        if phase == last[0] and now - last[1] < PROGRESS_INTERVAL_S and done < total:
            return
        last[:] = [phase, now]
        send({"progress": {"phase": phase, "done": done, "total": total, "seconds": round(now - started, 2)}})

    return report


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True  # a CLI that hangs up mid-answer must not keep the daemon from exiting


def _error_answer(error: Exception) -> dict[str, Any]:
    from fourfold.engine import QueryError, SearchError, WorkspaceError

    if isinstance(error, QueryError):
        return {"ok": False, "error": str(error), "kind": "query", "position": error.position}
    if isinstance(error, SearchError | WorkspaceError | TimeoutError):
        return {"ok": False, "error": str(error), "kind": "search"}
    print(f"fourfold daemon: request failed: {error!r}", file=sys.stderr)
    return {"ok": False, "error": f"the daemon failed on this request: {error}", "kind": "internal"}


def serve(key: DaemonKey, idle_s: float = IDLE_S) -> int:
    """Run the daemon for `key` until idle or stopped; exits at once if another one holds the lock."""
    key.folder.mkdir(parents=True, exist_ok=True)
    with _locked(key.folder / LOCK_NAME, blocking=False) as mine:
        if not mine:
            print(f"fourfold daemon: another daemon already serves {key.index_dir}", file=sys.stderr)
            return 0
        path = socket_path(key.folder)
        with suppress(FileNotFoundError):
            os.unlink(path)  # left by a daemon that was killed: nobody holds the lock, so it is stale
        daemon = Daemon(key, idle_s)

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                def send(message: dict[str, Any]) -> None:
                    self.wfile.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
                    self.wfile.flush()

                line = self.rfile.readline()
                if not line:
                    return
                try:
                    request = json.loads(line)
                except json.JSONDecodeError:
                    send({"ok": False, "error": "requests are one JSON object per line", "kind": "protocol"})
                    return
                with suppress(BrokenPipeError, ConnectionResetError):  # the CLI went away (Ctrl+C)
                    daemon.handle(request, send)

        with _Server(path, Handler) as server:
            os.chmod(path, 0o600)
            daemon.server = server
            threading.Thread(target=daemon.load, name="load", daemon=True).start()
            threading.Thread(target=daemon.idle_clock, name="idle", daemon=True).start()
            print(f"fourfold daemon {os.getpid()}: serving {key.root} on {path}", file=sys.stderr, flush=True)
            try:
                server.serve_forever(poll_interval=0.5)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(path)
                if daemon.index is not None:
                    daemon.index.close()
        print(f"fourfold daemon {os.getpid()}: stopped", file=sys.stderr, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fourfold.lsp.daemon", description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--index-dir")
    parser.add_argument("--backend")
    parser.add_argument("--exclude", action="append")
    parser.add_argument("--idle", type=float, default=IDLE_S, help="seconds without a request before exiting")
    args = parser.parse_args(argv)
    return serve(DaemonKey.of(args.root, args.index_dir, args.backend, args.exclude), args.idle)


if __name__ == "__main__":
    sys.exit(main())
