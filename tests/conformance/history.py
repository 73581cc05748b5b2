"""The conversation history an app sent, from the mock's request log.

The turn request is the one whose history ends with the resume prompt; its
messages are flattened into items ``{kind, role, text, name, input, id,
is_error, flag}`` with kind one of ``user``, ``assistant``, ``thinking``,
``call``, ``result``, ``image``, ``system``.  ``flag`` marks what the app
adds itself: ``prompt`` (the final "continue"), ``injected`` (context the app
writes into user turns), ``synthetic`` (placeholders it writes to close an
unfinished transcript).

Codex may compact the resumed history before the turn: then the turn request
holds only a summary, and ``compacted`` is set; the compaction request still
holds the whole rebuilt history, which is what ``items`` then reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .harness import PROMPT

CLAUDE_SYNTHETIC = {"No response requested.", "Continue from where you left off.", "Tool loaded."}
CODEX_CONTEXT = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<turn_aborted>",
    "<personality",
    "<apps_instructions>",
    "<model_switch>",
)


@dataclass
class History:
    found: bool
    items: list[dict] = field(default_factory=list)
    compacted: bool = False
    request_kinds: list = field(default_factory=list)
    model: str = ""
    tools: list[str] = field(default_factory=list)


def flat(content) -> str:
    """A tool result's payload as text (text parts joined by newlines)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif part.get("type") in ("image", "input_image") or "inlineData" in part:
                    parts.append("[image]")
                elif part.get("type") == "tool_reference":
                    parts.append(f"[tool_reference: {part.get('tool_name')}]")
                else:
                    parts.append(json.dumps(part, ensure_ascii=False))
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def _claude(body: dict) -> list[dict]:
    items = []
    for message in body.get("messages") or []:
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                text = block.get("text") or ""
                item = {"kind": role if role in ("user", "assistant") else "system", "text": text}
                if role == "user" and text.lstrip().startswith("<system-reminder>"):
                    item["flag"] = "injected"
                elif text.strip() in CLAUDE_SYNTHETIC:
                    item["flag"] = "synthetic"
                items.append(item)
            elif kind in ("thinking", "redacted_thinking"):
                items.append({"kind": "thinking", "text": block.get("thinking") or ""})
            elif kind in ("image", "document"):
                items.append({"kind": "image", "role": role})
            elif kind in ("tool_use", "server_tool_use"):
                items.append({"kind": "call", "name": block.get("name"), "input": block.get("input"), "id": block.get("id")})
            elif kind == "tool_result" or (kind or "").endswith("_tool_result"):
                items.append({"kind": "result", "id": block.get("tool_use_id"), "text": flat(block.get("content")), "is_error": bool(block.get("is_error"))})
    return items


def _codex(body: dict) -> list[dict]:
    items = []
    for entry in body.get("input") or []:
        kind = entry.get("type")
        if kind == "message":
            role = entry.get("role")
            for part in entry.get("content") or []:
                if part.get("type") in ("input_text", "output_text", "text"):
                    text = part.get("text") or ""
                    if role in ("developer", "system"):
                        items.append({"kind": "system", "text": text, "flag": "injected"})
                        continue
                    item = {"kind": role, "text": text}
                    if role == "user" and text.lstrip().startswith(CODEX_CONTEXT):
                        item["flag"] = "injected"
                    items.append(item)
                elif part.get("type") == "input_image":
                    items.append({"kind": "image", "role": role})
        elif kind == "reasoning":
            text = "\n".join(s.get("text", "") for s in entry.get("summary") or []) or "\n".join(s.get("text", "") for s in entry.get("content") or [])
            items.append({"kind": "thinking", "text": text})
        elif kind == "function_call":
            try:
                arguments = json.loads(entry.get("arguments") or "null")
            except ValueError:
                arguments = {"raw": entry.get("arguments")}
            items.append({"kind": "call", "name": entry.get("name"), "input": arguments, "id": entry.get("call_id")})
        elif kind == "custom_tool_call":
            items.append({"kind": "call", "name": entry.get("name"), "input": {"input": entry.get("input")}, "id": entry.get("call_id")})
        elif kind == "local_shell_call":
            items.append({"kind": "call", "name": "local_shell", "input": entry.get("action"), "id": entry.get("call_id") or entry.get("id")})
        elif kind == "web_search_call":
            items.append({"kind": "call", "name": "web_search", "input": entry.get("action"), "id": entry.get("id")})
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            output = entry.get("output")
            if isinstance(output, dict):
                output = output.get("content") if "content" in output else json.dumps(output)
            items.append({"kind": "result", "id": entry.get("call_id"), "text": flat(output), "is_error": None})
        elif kind in ("compaction", "compaction_summary", "compaction_trigger"):
            items.append({"kind": "system", "text": f"[{kind}]", "flag": "injected"})
        else:
            items.append({"kind": "system", "text": json.dumps(entry)[:200], "flag": "other"})
    return items


def _gemini(body: dict) -> list[dict]:
    items = []
    for content in body.get("contents") or []:
        role = "assistant" if content.get("role") == "model" else "user"
        for part in content.get("parts") or []:
            if "functionCall" in part:
                call = part["functionCall"]
                items.append({"kind": "call", "name": call.get("name"), "input": call.get("args"), "id": call.get("id")})
            elif "functionResponse" in part:
                reply = part["functionResponse"]
                response = reply.get("response") or {}
                is_error = isinstance(response, dict) and "error" in response
                if isinstance(response, dict) and set(response) <= {"output"}:
                    text = flat(response.get("output"))
                elif isinstance(response, dict) and set(response) <= {"error"}:
                    text = flat(response.get("error"))
                else:
                    text = json.dumps(response, ensure_ascii=False)
                items.append({"kind": "result", "id": reply.get("id"), "name": reply.get("name"), "text": text, "is_error": is_error})
            elif "inlineData" in part or "fileData" in part:
                items.append({"kind": "image", "role": role})
            elif "text" in part:
                if part.get("thought"):
                    items.append({"kind": "thinking", "text": part["text"]})
                    continue
                item = {"kind": role, "text": part["text"]}
                if role == "user" and part["text"].lstrip().startswith(("<session_context>", "<hook_context>")):
                    item["flag"] = "injected"
                if role == "assistant" and part["text"].startswith("[The previous response was interrupted"):
                    item["flag"] = "synthetic"
                items.append(item)
    return items


def _tool_names(body: dict) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and "functionDeclarations" in tool:
            names += [f.get("name") for f in tool["functionDeclarations"]]
        elif isinstance(tool, dict):
            names.append(tool.get("name") or tool.get("type"))
    return names


def _codex_kind(body: dict):
    try:
        return json.loads(body["client_metadata"]["x-codex-turn-metadata"]).get("request_kind")
    except (KeyError, TypeError, ValueError):
        return None


def read(app: str, requests: list[dict]) -> History:
    parse, wanted = {
        "claude-code": (_claude, lambda p: p.endswith("/v1/messages")),
        "codex": (_codex, lambda p: p.endswith("/responses")),
        "gemini-cli": (_gemini, lambda p: ":streamGenerateContent" in p),
        "qwen-code": (_gemini, lambda p: ":streamGenerateContent" in p or ":generateContent" in p),
    }[app]
    best: tuple[dict, list[dict]] | None = None
    compaction: tuple[dict, list[dict]] | None = None
    kinds = []
    for request in requests:
        body = request.get("body")
        if not isinstance(body, dict) or not wanted(request["path"].split("?")[0]):
            continue
        items = parse(body)
        if app == "codex":
            kind = _codex_kind(body)
            kinds.append(kind)
            if kind == "compaction":
                if compaction is None or len(items) > len(compaction[1]):
                    compaction = (body, items)
                continue
            if kind not in (None, "turn"):
                continue
        users = [x for x in items if x["kind"] == "user"]
        if not users or users[-1]["text"].strip() != PROMPT:
            continue
        users[-1]["flag"] = "prompt"
        if best is None or len(items) > len(best[1]):
            best = (body, items)
    if best is None:
        return History(found=False, request_kinds=kinds)
    history = History(found=True, items=best[1], request_kinds=kinds, model=str(best[0].get("model") or ""), tools=_tool_names(best[0]))
    if compaction is not None:
        history.compacted = True
        items = compaction[1]
        users = [x for x in items if x["kind"] == "user"]
        if users:
            users[-1]["flag"] = "compaction_prompt"
        history.items = items
    return history
