"""Hostile LSP input, counted: what a broken or malicious client can send, and what the server does.

    python bench/lsp_faults.py [--json REPORT]

Starts `python -m fourfold.lsp` on a small repository and sends each hazard as raw bytes (bad
headers, bad lengths, invalid JSON, batches, odd ids, wrong params for every method Fourfold
serves, surrogates, a 10 MB buffer, requests after shutdown). After each it sends a probe (a
workspace/symbol that must find `parse_config`), resending it up to PROBES times when a hazard
swallowed it (a Content-Length longer than the body eats what follows). Per hazard it records:
answered (the reply owed came back: an error for a request or unreadable message), clean (no reply
carries stack frames), recovered (a probe was answered), lost (probes swallowed before that),
crashed (the process ended). Prints a table and a summary line; `--json` writes the rows. The fast
cases of the same kinds are tests (tests/e2e/test_lsp_faults.py); this is the long, counted run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# Wait for one answer; a deaf server reaches it, a busy machine does not.
ANSWER_S = 30.0
# Probes sent after a hazard before it counts as not recovered.
PROBES = 3
FRAME_MARKERS = (b"Traceback", b'File \\"', b"traceback")


def frame(body: bytes | str) -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


def request(method: str, params: Any, msg_id: Any = "h") -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))


def notification(method: str, params: Any) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))


def command(arguments: Any, name: str = "fourfold.search") -> bytes:
    return request("workspace/executeCommand", {"command": name, "arguments": arguments})


@dataclass(frozen=True)
class Hazard:
    name: str
    data: bytes
    owed: str  # "id": a reply to id "h"; "null": an error with id null; "none": nothing owed


def hazards(root: Path) -> list[Hazard]:
    """The catalogue. `owed` says what a correct server must send back before the probe."""
    doc = (root / "config.py").as_uri()
    position = {"textDocument": {"uri": doc}, "position": {"line": 0, "character": 4}}
    good = '{"jsonrpc": "2.0", "method": "x"}'
    rows = [
        # framing
        Hazard("header: no Content-Length", b"Content-Type: x\r\n\r\n" + good.encode(), "null"),
        Hazard("header: non-numeric length", b"Content-Length: twelve\r\n\r\n{}", "null"),
        Hazard("header: negative length", b"Content-Length: -5\r\n\r\n{}", "null"),
        Hazard("header: fractional length", b"Content-Length: 2.5\r\n\r\n{}", "null"),
        Hazard("header: hex length", b"Content-Length: 0x10\r\n\r\n{}", "null"),
        Hazard("header: empty length", b"Content-Length: \r\n\r\n{}", "null"),
        Hazard("header: length with junk", b"Content-Length: 2abc\r\n\r\n{}", "null"),
        Hazard("header: length 10^11", b"Content-Length: 100000000000\r\n\r\n{}", "null"),
        Hazard("header: length 2^64", b"Content-Length: 18446744073709551616\r\n\r\n{}", "null"),
        Hazard("header: length too short", b'Content-Length: 5\r\n\r\n{"jsonrpc": "2.0", "method": "x"}', "null"),
        # A header or body still waiting for its end cannot be told from a slow client: nothing is
        # owed until the next message arrives, which then shows the error (and is itself read).
        Hazard("header: length too long by 10", b"Content-Length: 12\r\n\r\n{}", "none"),
        Hazard("header: LF line endings", b"Content-Length: 2\n\n{}", "none"),
        Hazard("header: body without header", good.encode(), "none"),
        Hazard("header: lower case, no space (accepted)", b"content-length:2\r\n\r\n{}", "null"),
        Hazard("header: 100 KB line", b"X-Pad: " + b"a" * 100_000 + b"\r\n\r\n", "null"),
        Hazard("header: binary garbage", bytes(range(256)) * 40, "null"),
        Hazard("header: zero length", b"Content-Length: 0\r\n\r\n", "null"),
        # bodies that are not JSON-RPC
        Hazard("json: unterminated", frame("{not json"), "null"),
        Hazard("json: truncated request", frame('{"jsonrpc": "2.0", "id": "h", "method": '), "null"),
        Hazard("json: trailing comma", frame('{"jsonrpc": "2.0", "method": "x",}'), "null"),
        Hazard("json: single quotes", frame("{'jsonrpc': '2.0'}"), "null"),
        Hazard("json: not UTF-8", frame(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}'), "null"),
        Hazard("json: nested 100,000 deep", frame("[" * 100_000), "null"),
        Hazard("json: batch", frame(f"[{good}]"), "null"),
        Hazard("json: empty batch", frame("[]"), "null"),
        Hazard("json: a number", frame("42"), "null"),
        Hazard("json: a string", frame('"hello"'), "null"),
        Hazard("json: null", frame("null"), "null"),
        Hazard("json: no jsonrpc", frame('{"id": "h", "method": "workspace/symbol", "params": {"query": "x"}}'), "id"),
        Hazard("json: jsonrpc 1.0", frame('{"jsonrpc": "1.0", "id": "h", "method": "shutdown"}'), "id"),
        Hazard("json: method is a number", frame('{"jsonrpc": "2.0", "id": "h", "method": 7}'), "id"),
        Hazard("json: neither method nor result", frame('{"jsonrpc": "2.0", "id": "h"}'), "id"),
        Hazard("id: an object", request("workspace/symbol", {"query": "x"}, {"a": 1}), "null"),
        Hazard("id: an array", request("workspace/symbol", {"query": "x"}, [1]), "null"),
        Hazard("id: true", request("workspace/symbol", {"query": "x"}, True), "null"),
        Hazard("id: a float", request("workspace/symbol", {"query": "x"}, 1.5), "null"),
        Hazard("method: unknown request", request("fourfold/nothing", {}), "id"),
        Hazard("method: unknown notification", notification("fourfold/nothing", {}), "none"),
        Hazard("method: empty name", request("", {}), "id"),
        # params
        Hazard("symbol: params null", request("workspace/symbol", None), "id"),
        Hazard("symbol: params a list", request("workspace/symbol", ["x"]), "id"),
        Hazard("symbol: query a number", request("workspace/symbol", {"query": 5}), "id"),
        Hazard("symbol: no query", request("workspace/symbol", {}), "id"),
        Hazard("symbol: lone surrogate", frame('{"jsonrpc": "2.0", "id": "h", "method": "workspace/symbol", '
                                               '"params": {"query": "a\\ud800"}}'), "id"),
        Hazard("symbol: 1 MB query", request("workspace/symbol", {"query": "x" * 1_000_000}), "id"),
        Hazard("search: arguments an object", command({"query": "x"}), "id"),
        Hazard("search: two arguments", command(["x", "y"]), "id"),
        Hazard("search: limit a string", command([{"query": "x", "limit": "many"}]), "id"),
        Hazard("search: limit negative", command([{"query": "x", "limit": -1}]), "id"),
        Hazard("search: limit 10^12", command([{"query": "x", "limit": 10**12}]), "id"),
        Hazard("search: unknown preset", command([{"query": "x", "preset": "fastest"}]), "id"),
        Hazard("search: unknown modality", command([{"query": "x", "modes": ["psychic"]}]), "id"),
        Hazard("search: unknown intent", command([{"query": "x", "intent": "guess"}]), "id"),
        Hazard("search: paths a number", command([{"query": "x", "paths": 3}]), "id"),
        Hazard("search: blank query", command([{"query": "   "}]), "id"),
        Hazard("search: invalid regex", command([{"query": "re:(unclosed"}]), "id"),
        Hazard("search: catastrophic regex", command([{"query": "re:(a+)+$"}]), "id"),
        Hazard("search: surrogate in paths", frame('{"jsonrpc": "2.0", "id": "h", "method": "workspace/executeCommand",'
                                                   ' "params": {"command": "fourfold.search", "arguments": '
                                                   '[{"query": "x", "paths": ["\\udc00"]}]}}'), "id"),
        Hazard("command: unknown id", command([], "fourfold.nothing"), "id"),
        Hazard("command: reindex with junk", command([{"fast": 1}], "fourfold.reindex"), "id"),
        Hazard("definition: bad uri", request("textDocument/definition", {
            "textDocument": {"uri": "not a uri"}, "position": {"line": 0, "character": 0}}), "id"),
        Hazard("definition: negative position", request("textDocument/definition", {
            "textDocument": {"uri": doc}, "position": {"line": -1, "character": -1}}), "id"),
        Hazard("definition: line 10^9", request("textDocument/definition", {
            "textDocument": {"uri": doc}, "position": {"line": 10**9, "character": 0}}), "id"),
        Hazard("references: no context", request("textDocument/references", position), "id"),
        Hazard("call hierarchy: garbage item", request("callHierarchy/incomingCalls", {"item": {"name": 1}}), "id"),
        Hazard("didOpen: 10 MB buffer", notification("textDocument/didOpen", {"textDocument": {
            "uri": doc, "languageId": "python", "version": 1, "text": "x = 1\n" * 1_750_000}}), "none"),
        Hazard("didOpen: lone surrogate", frame('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": '
                                                '{"textDocument": {"uri": "' + doc + '", "languageId": "python", '
                                                '"version": 2, "text": "def f():\\n    return \\"\\ud800\\"\\n"}}}'),
               "none"),
        Hazard("didChange: unopened document", notification("textDocument/didChange", {
            "textDocument": {"uri": (root / "ghost.py").as_uri(), "version": 3},
            "contentChanges": [{"text": "x"}]}), "none"),
        Hazard("didClose: garbage", notification("textDocument/didClose", {"textDocument": 5}), "none"),
        Hazard("cancel: unknown id", notification("$/cancelRequest", {"id": "nobody"}), "none"),
        Hazard("configuration: junk settings", notification("workspace/didChangeConfiguration", {
            "settings": {"fourfold": {"maxFileSize": "huge", "preset": 4}}}), "none"),
    ]
    return rows


class Client:
    """The server process and a thread collecting what it writes; answers its requests with null."""

    def __init__(self, root: Path, index_dir: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "fourfold.lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        self.messages: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.arrived = threading.Condition()
        self.lock = threading.Lock()
        self.root, self.index_dir = root, index_dir
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while (line := stream.readline()) != b"\r\n" or length is None:
                if not line:
                    with self.arrived:
                        self.arrived.notify_all()
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = stream.read(length)
            message = json.loads(body)
            if "method" in message and "id" in message:
                self.send(frame(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": None})))
            with self.arrived:
                self.raw.append(body)
                self.messages.append(message)
                self.arrived.notify_all()

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        with self.lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def wait(self, test: Any, after: int, timeout: float = ANSWER_S) -> dict[str, Any] | None:
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            found[:] = [m for m in self.messages[after:] if test(m)][:1]
            return bool(found) or self.process.poll() is not None

        with self.arrived:
            self.arrived.wait_for(seen, timeout)
        return found[0] if found else None

    def start(self) -> None:
        self.send(request("initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {},
                                         "initializationOptions": {"indexDir": str(self.index_dir),
                                                                   "semanticBackend": "none"}}, "init"))
        if self.wait(lambda m: m.get("id") == "init", 0) is None:
            raise SystemExit("the server did not answer initialize")
        self.send(notification("initialized", {}))
        if self.wait(lambda m: m.get("method") == "fourfold/indexStatus"
                     and m["params"].get("phase") == "indexed", 0) is None:
            raise SystemExit("the server did not index the repository")


@dataclass
class Row:
    hazard: str
    owed: str
    answered: bool
    codes: list[int]
    clean: bool
    recovered: bool
    lost: int
    crashed: bool


def run_hazard(client: Client, hazard: Hazard, number: int, probe_s: float) -> Row:
    after = len(client.messages)
    client.send(hazard.data)
    if hazard.owed == "id":
        answered = client.wait(lambda m: m.get("id") == "h" and "method" not in m, after) is not None
    elif hazard.owed == "null":
        answered = client.wait(lambda m: m.get("id") is None and "error" in m, after) is not None
    else:
        answered = True
    recovered, lost = False, 0
    for attempt in range(PROBES):
        probe_id = f"probe-{number}-{attempt}"
        client.send(request("workspace/symbol", {"query": "parse_config"}, probe_id))
        answer = client.wait(lambda m, p=probe_id: m.get("id") == p, after, probe_s)
        if answer is not None and [s["name"] for s in answer.get("result") or []][:1] == ["parse_config"]:
            recovered = True
            break
        lost += 1
        if client.process.poll() is not None:
            break
    replies = client.messages[after:]
    return Row(
        hazard=hazard.name, owed=hazard.owed, answered=answered,
        codes=sorted({m["error"]["code"] for m in replies if "error" in m}),
        clean=not any(marker in body for body in client.raw[after:] for marker in FRAME_MARKERS),
        recovered=recovered, lost=lost, crashed=client.process.poll() is not None,
    )


def lifecycle(client: Client) -> list[Row]:
    """The end of a session: shutdown, a request after it (owed InvalidRequest), exit with stdin open."""
    rows = []
    after = len(client.messages)
    client.send(request("shutdown", None, "bye"))
    ok = client.wait(lambda m: m.get("id") == "bye", after) is not None
    client.send(request("workspace/symbol", {"query": "parse_config"}, "late"))
    late = client.wait(lambda m: m.get("id") == "late", after)
    rows.append(Row("request after shutdown", "id", late is not None and "error" in late,
                    [late["error"]["code"]] if late and "error" in late else [], True, ok, 0, False))
    client.send(notification("exit", None))
    try:
        code: int | None = client.process.wait(timeout=ANSWER_S)
    except subprocess.TimeoutExpired:
        code = None
        client.process.kill()
    rows.append(Row("exit with stdin still open", "none", code == 0, [], True, code == 0, 0, False))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--only", action="append", help="run only hazards whose name contains this text (repeatable)")
    parser.add_argument("--probe-s", type=float, default=ANSWER_S / PROBES,
                        help="wait this long for each probe's answer before sending the next")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fourfold-lsp-faults-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        (root / "config.py").write_text("def parse_config(path):\n    return path\n", encoding="utf-8")
        client = Client(root, Path(tmp) / "index")
        try:
            client.start()
            rows = [run_hazard(client, hazard, number, args.probe_s) for number, hazard in enumerate(hazards(root))
                    if not args.only or any(part in hazard.name for part in args.only)]
            if client.process.poll() is None:
                rows += lifecycle(client)
        finally:
            if client.process.poll() is None:
                client.process.kill()
            client.process.wait()
    print("| hazard | owed | answered | codes | clean | recovered | lost |\n|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row.hazard} | {row.owed} | {'yes' if row.answered else 'NO'} | "
              f"{','.join(map(str, row.codes)) or '-'} | {'yes' if row.clean else 'NO'} | "
              f"{'yes' if row.recovered else 'NO'} | {row.lost} |")
    total = len(rows)
    print(f"\n{total} hazards: {sum(r.answered for r in rows)} answered as owed, {sum(r.clean for r in rows)} clean, "
          f"{sum(r.recovered for r in rows)} recovered ({sum(r.lost for r in rows)} probes swallowed), "
          f"{sum(r.crashed for r in rows)} crashed")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(row) for row in rows], indent=2), encoding="utf-8")
    return 0 if all(r.answered and r.clean and r.recovered for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
