"""What the tests that kill an indexing process share: a tree large enough to index in batches (and, for a
server, in a build process of its own), and the teardown of the process and whatever it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path


def many_modules(root: Path, count: int, folders: int) -> None:
    """`count` one-function Python modules over `folders` packages: module N says 'marker N' on its line 1."""
    for number in range(count):
        folder = root / f"pkg{number % folders}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{number}.py").write_text(f"def function_{number}():\n    return 'marker {number}'\n")


def kill_session(process: subprocess.Popen[str]) -> None:
    """Kill what `process` started in its session (pool workers, a build process) and close its pipes."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
