"""A bulk build run in a process of its own, reporting its progress and taking a cancel.

Why a process and not a thread: what a bulk build allocates stays with the process that built it. CPython
keeps each 1 MiB arena of small objects while any object in it lives, and a build's millions of short-lived
records (the workers' results, the graph's dicts, BM25's token lists) are interleaved with the few that
survive it. A language server that built 4x Django's first index itself held 930 MiB of heap after its first
question, where a restart of the same index holds 244. A child builds and stores the index, then exits, and
its memory goes with it; the server opens what it stored, as a restart does (`Workspace._refresh_elsewhere`).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

__all__ = ["BuildChannel", "BuildOutcome", "Finishing", "run_build", "start_build"]

log = logging.getLogger(__name__)
# How often the parent looks at its cancel flag while the child runs.
POLL_S = 0.2
# After a cancel, how long the child has to stop between files and store what it has, before it is killed.
CANCEL_GRACE_S = 30.0


class Finishing:
    """A build process storing what it was started for (BM25, which a server would otherwise build itself on
    its first question), until it exits; a thread waits for it, so it is reaped as soon as it ends."""

    def __init__(self, child: BaseProcess, connection: Connection) -> None:
        self._child = child
        self._connection = connection
        self._ended = threading.Event()
        self.finished = False  # whether it said it stored what it was started for
        threading.Thread(target=self._await, daemon=True, name="build-finishing").start()

    def _await(self) -> None:
        message = _receive(self._connection, None)
        self.finished = message is not None and message[0] == "done"
        self._child.join()
        self._connection.close()
        self._ended.set()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` for the process to end; whether it stored what it was started for."""
        return self._ended.wait(timeout) and self.finished

    def stop(self) -> None:
        """Stop it now (the workspace closes): what it is storing is written to a side folder and renamed
        into place, so a kill leaves the stored copy whole or absent."""
        if self._child.exitcode is None:
            self._child.kill()
        self._ended.wait(CANCEL_GRACE_S)


@dataclass(frozen=True)
class BuildOutcome:
    """How a build in a child ended: `result`, what it sent back (None when it did not get that far);
    `failure`, why not, in words (None when it did)."""

    result: Any
    failure: str | None


class BuildChannel:
    """The child's side: progress to report, the parent's cancel as an Event, the result to send back.
    A parent that goes away (killed, crashed) cancels the build too: the pipe closes under the listener."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.cancel = threading.Event()
        self._send_lock = threading.Lock()
        threading.Thread(target=self._listen, daemon=True, name="build-cancel").start()

    def _listen(self) -> None:
        with contextlib.suppress(EOFError, OSError):
            self._connection.recv()
        self.cancel.set()

    def progress(self, done: int, total: int) -> None:
        """Every file's, as an indexer in the parent's own process reports them (a message costs microseconds)."""
        self._send(("progress", done, total))

    def part(self, pointer: bytes) -> None:
        """A partial snapshot, written where `pointer` says, for the parent to serve."""
        self._send(("part", pointer))

    def result(self, result: object) -> None:
        """The build's result (`run_build` returns it)."""
        self._send(("result", result))

    def finish(self) -> None:
        """The work of a `start_build` is done and stored."""
        self._send(("done",))

    def fail(self, failure: str) -> None:
        self._send(("failed", failure))

    def _send(self, message: tuple[object, ...]) -> None:
        with self._send_lock:
            try:
                self._connection.send(message)
            except (BrokenPipeError, OSError):
                self.cancel.set()  # nobody is listening any more


def run_build(target: Callable[..., None], args: tuple[object, ...], progress: Callable[[int, int], None],
              cancel: threading.Event | None, part: Callable[[bytes], None]) -> BuildOutcome:
    """Run `target(*args, channel)` in a spawned process (spawn, not fork: a server has threads, and a forked
    lock can deadlock the child) and wait for its result, relaying its progress and its partial snapshots
    (`part`, with what `BuildChannel.part` sent). A cancel is passed on, and the child is killed if it does
    not stop within CANCEL_GRACE_S. A child that dies says so in `failure`."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=True)
    child = context.Process(target=target, args=(*args, theirs), name="fourfold-build")
    child.start()
    theirs.close()
    try:
        return _relayed(child, ours, progress, cancel, part)
    finally:
        ours.close()
        child.join(CANCEL_GRACE_S)
        if child.is_alive():
            child.kill()
            child.join()


def start_build(target: Callable[..., None], args: tuple[object, ...]) -> Finishing:
    """Start `target(*args, channel)` in a spawned process and return at once: for work whose result is
    stored, not sent (`BuildChannel.finish` says it is done)."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=True)
    child = context.Process(target=target, args=(*args, theirs), name="fourfold-build")
    child.start()
    theirs.close()
    return Finishing(child, ours)


def _relayed(child: BaseProcess, connection: Connection, progress: Callable[[int, int], None],
             cancel: threading.Event | None, part: Callable[[bytes], None]) -> BuildOutcome:
    cancelled_at: float | None = None
    while True:
        if cancel is not None and cancel.is_set() and cancelled_at is None:
            cancelled_at = time.monotonic()
            _send_cancel(connection)
        if cancelled_at is not None and time.monotonic() - cancelled_at > CANCEL_GRACE_S:
            child.kill()
            return BuildOutcome(None, "the build did not stop when cancelled; killed")
        message = _receive(connection, POLL_S)
        if message is None:
            continue
        if message[0] == "progress":
            progress(message[1], message[2])
        elif message[0] == "part":
            part(message[1])
        elif message[0] == "result":
            return BuildOutcome(message[1], None)
        elif message[0] == "failed":
            return BuildOutcome(None, str(message[1]))
        elif message[0] in ("gone", "done"):
            child.join()
            return BuildOutcome(None, f"the build process ended without a result (exit code {child.exitcode})")


def _receive(connection: Connection, timeout: float | None) -> tuple[Any, ...] | None:
    """The child's next message, None when none came within `timeout` (None: no limit), ("gone",) when the
    pipe closed."""
    try:
        if not connection.poll(timeout):
            return None
        message: tuple[Any, ...] = connection.recv()
        return message
    except (EOFError, OSError):
        return ("gone",)


def _send_cancel(connection: Connection) -> None:
    with contextlib.suppress(BrokenPipeError, OSError):  # the child is gone already: the next receive says so
        connection.send(("cancel",))
