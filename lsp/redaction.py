"""Secrets never reach a log: the Voyage API key is scrubbed from every record at every verbosity.

At -vvv pygls logs whole messages (settings answers, initializationOptions) and our own warnings
may quote a setting; the README promises the key is never logged. One `logging.Filter` on every
handler rewrites each record before it is written: the key's value wherever it appears (learnt from
the environment, from settings, and from any `apiKey` field of an incoming message before that
message is handled), and whatever follows an `apiKey`-like name, in JSON, Python reprs or env form.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading

REDACTED = "[redacted]"
# Shorter values are not treated as secrets: redacting "a" everywhere would garble the log.
MIN_SECRET = 6
# A value after an api-key-like name: "apiKey": "v", voyageApiKey='v', VOYAGE_API_KEY=v, api_key: v.
NAMED = re.compile(r"""(?i)(api[_-]?key["']?\s*[:=]\s*["']?)([^"'\s,;)}\]]+)""")
BEARER = re.compile(r"(?i)(bearer\s+)([A-Za-z0-9._~+/=-]{6,})")
# The same, in a raw JSON message body (the value may hold escapes).
BODY_FIELD = re.compile(rb'(?i)api_?key"\s*:\s*"((?:[^"\\]|\\.)*)"')


class Redactor(logging.Filter):
    """Rewrites each record's message and traceback with every known secret replaced."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._formatter = logging.Formatter()

    def remember(self, value: object) -> None:
        """Treat `value` as a secret from now on (no-op for non-text or very short values)."""
        if isinstance(value, str) and len(value) >= MIN_SECRET:
            with self._lock:
                self._secrets.add(value)

    def remember_environment(self) -> None:
        self.remember(os.environ.get("VOYAGE_API_KEY"))

    def scan(self, body: bytes) -> None:
        """Learn the `apiKey` values of a raw message body before anything logs the message."""
        lowered = body.lower()  # a C-speed pass; most bodies (buffers, searches) stop here
        if b"apikey" not in lowered and b"api_key" not in lowered:
            return
        for found in BODY_FIELD.finditer(body):
            try:
                self.remember(json.loads(b'"' + found.group(1) + b'"'))
            except ValueError:
                self.remember(found.group(1).decode("utf-8", "replace"))

    def redact(self, text: str) -> str:
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
            # Logged reprs and JSON dumps escape some characters: cover the escaped forms too.
            for form in (json.dumps(secret)[1:-1], repr(secret)[1:-1]):
                if form != secret and form in text:
                    text = text.replace(form, REDACTED)
        text = NAMED.sub(lambda m: m.group(1) + REDACTED if m.group(2) != REDACTED else m.group(0), text)
        return BEARER.sub(lambda m: m.group(1) + REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redact(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = self.redact(self._formatter.formatException(record.exc_info))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


# One per process: the server's handlers share it, and what it learns applies to all of them.
REDACTOR = Redactor()
