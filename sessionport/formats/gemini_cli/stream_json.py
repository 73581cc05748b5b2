"""``gemini -p … --output-format stream-json``: the events Gemini CLI prints.

What a script or CI job saves of a headless run: ``init`` (``session_id``,
``model``), ``message`` (``role`` user or assistant; an assistant answer
comes as ``delta`` chunks, joined here into one message), ``tool_use``
(``tool_name``, ``tool_id``, ``parameters``), ``tool_result`` (``tool_id``,
``status``, ``output``, ``error``), ``error`` and a closing ``result`` with
the run's ``stats``.  A second run printed into the same file (``--resume``)
opens with another ``init``: its messages follow in the same session.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsonl import iter_records
from sessionport.model import end_event, message_event, session_event

SOURCE = "gemini-cli"


def is_stream_json(first: Any) -> bool:
    return isinstance(first, dict) and first.get("type") == "init" and isinstance(first.get("session_id"), str) and "model" in first


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _stamp(record: dict) -> str | None:
    value = record.get("timestamp")
    return value if isinstance(value, str) and value else None


def read_stream_json(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    skipped: Counter = Counter()
    counts: Counter = Counter()
    session_sent = False
    results: list[dict] = []
    sessions: list[str] = []
    pending: list[str] = []  # assistant deltas not yet written
    pending_stamp: str | None = None
    names: dict[str, str] = {}  # tool_id -> tool_name, for the results

    def flush() -> Iterator[dict]:
        nonlocal pending_stamp
        if pending:
            yield message_event("assistant", "".join(pending), timestamp=pending_stamp, meta={"kind": "text"})
            counts["messages"] += 1
            pending.clear()
            pending_stamp = None

    for line_no, record in iter_records(stream, ctx):
        if not isinstance(record, dict):
            ctx.bad_record(f"expected a Gemini CLI stream-json event (a JSON object), found a JSON {type(record).__name__}", line=line_no)
            continue
        etype = record.get("type")
        if etype == "init":
            sid = _str(record.get("session_id")) or None
            if not session_sent:
                session_sent = True
                metadata = {"streamJson": True}
                if isinstance(record.get("model"), str):
                    metadata["model"] = record["model"]
                yield session_event(SOURCE, sessionId=sid, createdAt=_stamp(record), metadata=metadata)
            elif sid:
                sessions.append(sid)
            skipped["init"] += 1
            continue
        if not session_sent:
            session_sent = True
            yield session_event(SOURCE, metadata={"streamJson": True})
        if etype == "message" and record.get("role") == "assistant" and record.get("delta") is True:
            if not pending:
                pending_stamp = _stamp(record)
            pending.append(_str(record.get("content")))
            continue
        yield from flush()
        if etype == "message":
            role = record.get("role")
            role = role if role in ("user", "assistant") else "user"
            counts["messages"] += 1
            yield message_event(role, _str(record.get("content")), timestamp=_stamp(record), meta={"kind": "text"})
        elif etype == "tool_use":
            name = _str(record.get("tool_name")) or "unknown"
            tool_id = _str(record.get("tool_id")) or None
            if tool_id:
                names[tool_id] = name
            params = record.get("parameters")
            tool_input = params if isinstance(params, dict) else {} if params is None else {"value": params}
            counts["messages"] += 1
            yield message_event(
                "tool", _preview(tool_input), timestamp=_stamp(record), toolName=name, toolCallId=tool_id, toolInput=tool_input, meta={"kind": "tool_use"},
            )
        elif etype == "tool_result":
            tool_id = _str(record.get("tool_id")) or None
            error = record.get("error")
            status = record.get("status")
            text = _str(record.get("output"))
            if not text and isinstance(error, dict):
                text = _str(error.get("message"))
            meta: dict = {"kind": "tool_result"}
            if isinstance(status, str):
                meta["status"] = status
            if isinstance(error, dict):
                meta["error"] = error
            counts["messages"] += 1
            yield message_event(
                "tool", text, timestamp=_stamp(record), toolName=names.pop(tool_id, None) if tool_id else None, toolCallId=tool_id,
                isError=True if status == "error" or isinstance(error, dict) else None, meta=meta,
            )
        elif etype == "error":
            counts["messages"] += 1
            meta = {"kind": "text", "severity": record["severity"]} if isinstance(record.get("severity"), str) else {"kind": "text"}
            yield message_event("system", _str(record.get("message")) or "[error]", timestamp=_stamp(record), isError=True, meta=meta)
        elif etype == "result":
            results.append({k: v for k, v in record.items() if k != "type"})
            skipped["result"] += 1
        else:
            name = etype if isinstance(etype, str) else "(no type)"
            skipped[name] += 1
            ctx.unknown(name, line=line_no)
    yield from flush()
    if not session_sent:
        yield session_event(SOURCE, metadata={"streamJson": True})
    metadata: dict = {}
    if results:
        metadata["results"] = results
    if sessions:
        metadata["laterSessions"] = sessions
    yield end_event(
        usage=_usage(results),
        counts=dict(counts) or None,
        skipped=dict(skipped) or None,
        unknown=ctx.report_unknown() or None,
        metadata=metadata or None,
    )


def _preview(tool_input: dict) -> str:
    for key in ("command", "file_path", "query", "pattern", "path", "url"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    import orjson

    return orjson.dumps(tool_input).decode()


def _usage(results: list[dict]) -> dict | None:
    """The runs' ``stats`` summed: ``input_tokens`` (with the cached part),
    ``cached``, ``output_tokens``, ``total_tokens``."""
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    seen = False
    for result in results:
        stats = result.get("stats")
        if not isinstance(stats, dict):
            continue
        for key, name in (("input_tokens", "input_tokens"), ("cached", "cached_input_tokens"), ("output_tokens", "output_tokens"), ("total_tokens", "total_tokens")):
            value = stats.get(key)
            if type(value) is int and value >= 0:
                total[name] += value
                seen = True
    return total if seen else None
