"""A fake model API on 127.0.0.1 that answers one turn of each app.

Only ever started inside the sandbox's network namespace (see ``sandbox.py``).
It speaks just enough of each wire protocol for the app to finish the
resumed turn, and appends every request (method, path, headers, parsed JSON
body) to a log: the body of the turn request is the history the app rebuilt.

- Anthropic Messages (Claude Code): ``POST /v1/messages`` as SSE when
  ``stream`` is true, else JSON; ``/v1/messages/count_tokens``.
- OpenAI Responses (Codex): ``POST /v1/responses`` as SSE.  A request whose
  input ends with ``compaction_trigger`` gets the single ``compaction`` item
  Codex requires; the WebSocket upgrade (``GET /v1/responses``) is refused
  with 426 so that Codex falls back to HTTP.
- Gemini (Gemini CLI): ``:streamGenerateContent`` as SSE, ``:generateContent``
  as JSON (helper calls in JSON mode get the fields the router reads),
  ``:countTokens``.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "Resumed (mock model reply)."
_USAGE_RESPONSES = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 3,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 13,
}


class _Log:
    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.count = 0

    def add(self, entry: dict) -> int:
        with self.lock:
            self.count += 1
            entry["seq"] = self.count
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
            return self.count


def _decode(raw: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    if encoding == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    return raw


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_file: _Log

    def log_message(self, *args) -> None:  # keep the app's stderr readable
        pass

    # -- plumbing -------------------------------------------------------
    def _read_body(self) -> tuple[object, str | None]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = b""
        if length:
            raw = self.rfile.read(length)
        elif self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                raw += self.rfile.read(size)
                self.rfile.readline()
        try:
            raw = _decode(raw, (self.headers.get("Content-Encoding") or "").lower())
            return (json.loads(raw) if raw else None), None
        except Exception as exc:  # logged, the app still gets an answer
            return None, f"{type(exc).__name__}: {exc}"

    def _json(self, obj: object, code: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_mock")
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[dict], named: bool = True) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            head = f"event: {event['type']}\n" if named and "type" in event else ""
            self.wfile.write((head + "data: " + json.dumps(event) + "\n\n").encode())
            self.wfile.flush()
        self.close_connection = True

    def _handle(self) -> None:
        body, problem = self._read_body()
        entry = {"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": body}
        if problem:
            entry["body_error"] = problem
        seq = self.log_file.add(entry)
        path = self.path.split("?")[0]
        body = body if isinstance(body, dict) else {}
        try:
            if path.endswith("/messages/count_tokens"):
                self._json({"input_tokens": 10})
            elif path.endswith("/messages"):
                self._anthropic(body)
            elif path.endswith("/responses") and self.command == "GET":
                self._json({"error": {"message": "mock: no websockets"}}, 426)
            elif path.endswith("/responses"):
                self._responses(body, seq)
            elif path.endswith("/models") and self.command == "GET":
                self._json({"object": "list", "data": [], "models": []})
            elif "/models/" in path and ":" in path:
                self._gemini(path, body)
            else:
                self._json({"error": {"message": "mock: no such endpoint", "type": "not_found"}}, 404)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    # -- Anthropic Messages ----------------------------------------------
    def _anthropic(self, body: dict) -> None:
        model = body.get("model") or "claude-mock"
        usage = {"input_tokens": 10, "output_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": "msg_mock", "type": "message", "role": "assistant", "model": model, "stop_sequence": None}
        if not body.get("stream"):
            self._json({**message, "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn", "usage": usage})
            return
        self._sse(
            [
                {"type": "message_start", "message": {**message, "content": [], "stop_reason": None, "usage": usage}},
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
                {"type": "content_block_stop", "index": 0},
                {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 3}},
                {"type": "message_stop"},
            ]
        )

    # -- OpenAI Responses ------------------------------------------------
    def _responses(self, body: dict, seq: int) -> None:
        base = {"id": f"resp_mock{seq}", "object": "response", "created_at": int(time.time()), "model": body.get("model") or "gpt-mock", "status": "in_progress", "output": []}
        items = body.get("input") or []
        if items and isinstance(items[-1], dict) and items[-1].get("type") == "compaction_trigger":
            item = {"type": "compaction", "id": f"cmp_mock{seq}", "encrypted_content": "MOCK"}
            added = {"type": "compaction", "id": item["id"]}
            deltas: list[dict] = []
        else:
            item = {"type": "message", "id": f"msg_mock{seq}", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
            added = {**item, "status": "in_progress", "content": []}
            deltas = [{"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": REPLY}]
        self._sse(
            [
                {"type": "response.created", "response": base},
                {"type": "response.output_item.added", "output_index": 0, "item": added},
                *deltas,
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {"type": "response.completed", "response": {**base, "status": "completed", "output": [item], "usage": _USAGE_RESPONSES}},
            ]
        )

    # -- Gemini ----------------------------------------------------------
    def _gemini(self, path: str, body: dict) -> None:
        payload = {
            "candidates": [{"content": {"role": "model", "parts": [{"text": REPLY}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "totalTokenCount": 13},
            "modelVersion": "gemini-mock",
        }
        if ":countTokens" in path:
            self._json({"totalTokens": 10})
        elif ":streamGenerateContent" in path:
            self._sse([payload], named=False)
        elif ":generateContent" in path:
            config = body.get("generationConfig") or body.get("config") or {}
            if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema") or config.get("responseSchema"):
                # JSON-mode helpers (model router, next-speaker check): a neutral answer
                answer = {"reasoning": "mock", "next_speaker": "user", "model_choice": "flash", "complexity_reasoning": "mock", "complexity_score": 1}
                payload["candidates"][0]["content"]["parts"] = [{"text": json.dumps(answer)}]
            self._json(payload)
        elif ":embedContent" in path or ":batchEmbedContents" in path:
            self._json({"embeddings": [{"values": [0.0]}]})
        else:
            self._json({"error": {"code": 404, "message": "mock: unknown", "status": "NOT_FOUND"}}, 404)


def serve(port: int, log_path: str) -> ThreadingHTTPServer:
    """Start the mock on 127.0.0.1:``port`` in a daemon thread."""
    handler = type("BoundHandler", (Handler,), {"log_file": _Log(log_path)})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
