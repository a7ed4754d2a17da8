"""A local stand-in for Voyage's POST /v1/embeddings, scripted per request, for the real voyageai client.

It answers like the API: the client asks for `encoding_format: "base64"`, so embeddings come back as
base64 of little-endian float32 (float) or uint8 (ubinary, dims/8 bytes). Vectors are a deterministic
function of the text, so a document's sign bits equal the signs of the same text's query vector.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

# Actions a script can queue: "ok", "hang" (answer only after release), "garbage" (invalid JSON),
# or an HTTP status code answered with {"detail": ...}.
Action = str | int


def text_vector(text: str, dims: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    return vector / np.linalg.norm(vector)


@dataclass
class FakeVoyage:
    """Records every request (body and Authorization header) and plays a script of actions."""

    script: list[Action] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    detail: str = "scripted failure"
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def next_action(self) -> Action:
        return self.script.pop(0) if self.script else "ok"

    def answer_vector(self, text: str, dims: int = 1024) -> np.ndarray:
        """The float vector this server returns for `text`."""
        return text_vector(text, dims)

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        dims = int(body.get("output_dimension") or 1024)
        data = []
        for index, text in enumerate(body["input"]):
            vector = text_vector(text, dims)
            if body.get("output_dtype") == "ubinary":
                raw = np.packbits(vector > 0).astype(np.uint8)
            else:
                raw = vector.astype("<f4")
            if body.get("encoding_format") == "base64":
                embedding: Any = base64.b64encode(raw.tobytes()).decode()
            else:
                embedding = raw.tolist()
            data.append({"object": "embedding", "embedding": embedding, "index": index})
        tokens = sum(len(text) // 4 + 1 for text in body["input"])
        return {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": tokens}}


def _handler(fake: FakeVoyage) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append(body)
            fake.authorizations.append(self.headers.get("Authorization", ""))
            action = fake.next_action()
            if action == "hang":
                fake.release.wait(10)
                return
            if action == "garbage":
                self._send(200, b"{this is not json")
            elif isinstance(action, int):
                self._send(action, json.dumps({"detail": fake.detail}).encode())
            elif self.path != "/v1/embeddings":
                self._send(404, json.dumps({"detail": f"no route {self.path}"}).encode())
            else:
                self._send(200, json.dumps(fake.answer(body)).encode())

        def _send(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output clean."""

    return Handler


@contextmanager
def serve(fake: FakeVoyage) -> Iterator[FakeVoyage]:
    """Run the fake on 127.0.0.1 with an ephemeral port for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield fake
    finally:
        fake.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
