"""The arguments of Fourfold's commands, checked before any engine call: a bad one is a JSON-RPC
error that says what to send instead, and the server stays up."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from fourfold.engine import SearchError, SearchRequest

# A UTF-16 surrogate left alone (JSON allows "\ud800"): no file can contain it, and the engine's
# UTF-8 encoders would fail on it with a traceback.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def search_request(values: Mapping[str, Any]) -> SearchRequest:
    for key, value in values.items():
        for text in value if isinstance(value, list) else [value]:
            found = LONE_SURROGATE.search(text) if isinstance(text, str) else None
            if found is not None:
                raise JsonRpcInvalidParams(f"{key!r} is not valid Unicode: a lone surrogate "
                                           f"U+{ord(found.group()):04X} at position {found.start()}")
    try:
        return SearchRequest.from_mapping(values)
    except SearchError as error:
        raise JsonRpcInvalidParams(str(error)) from error


def one_object(args: tuple[Any, ...], command: str, example: str) -> Mapping[str, Any]:
    if len(args) > 1 or (args and not isinstance(args[0], Mapping)):
        raise JsonRpcInvalidParams(f"{command} takes one object argument, e.g. [{example}]")
    return args[0] if args else {}
