"""Writing one provider request document incrementally.

``{"model": ..., "system": ..., "messages": [`` goes out when the first
message is ready, each message is written as soon as its turn is complete,
and keys only known at the end (a model first named late) follow the array:
JSON object key order does not matter to the APIs.  Memory holds one turn.
"""

from __future__ import annotations

from typing import BinaryIO

import orjson


class RequestDocument:
    def __init__(self, out: BinaryIO, array_key: str) -> None:
        self.out = out
        self.array_key = array_key
        self.opened = False
        self.items = 0
        self.head_keys: set[str] = set()

    def open(self, head: dict) -> None:
        if self.opened:
            return
        body = orjson.dumps({k: v for k, v in head.items() if v is not None})
        key = orjson.dumps(self.array_key)
        self.out.write(body[:-1] + (b"," if len(body) > 2 else b"") + key + b":[")
        self.head_keys = {k for k, v in head.items() if v is not None}
        self.opened = True

    def item(self, value: dict) -> None:
        if not self.opened:
            self.open({})
        self.out.write((b"\n" if self.items == 0 else b",\n") + orjson.dumps(value))
        self.items += 1

    def close(self, tail: dict | None = None) -> None:
        if not self.opened:
            self.open({})
        self.out.write(b"\n]" if self.items else b"]")
        for key, value in (tail or {}).items():
            if value is not None and key not in self.head_keys:
                self.out.write(b"," + orjson.dumps(key) + b":" + orjson.dumps(value))
        self.out.write(b"}\n")
