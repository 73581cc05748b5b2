"""A fake model API that drives a whole session: tool calls, results, errors.

Where ``mock_api`` answers one turn with a text, this one plays a script, so
that the app writes a session file with the features its newest version
records: thinking/reasoning, a text, shell commands (one that fails), a file
read and an edit, a web search, a sub-agent (Claude Code's ``Agent``/
``Task``, Codex's ``spawn_agent``), then a second turn.  The step of the
script is the number of tool results already in the request, so every
request is answered from its own content.  The first prompt holds
``FIRST_PROMPT``, the second ``SECOND_PROMPT``; a sub-agent's task holds
``SUBAGENT``.  Helper calls (titles, summaries, routers) get a neutral text.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer

try:
    from . import mock_api
except ImportError:  # run as a sibling script inside the sandbox
    import mock_api

FIRST_PROMPT = "SCRIPTED-TURN-ONE: follow the steps"
SECOND_PROMPT = "SCRIPTED-TURN-TWO: one more question"
SUBAGENT = "SCRIPTED-SUBAGENT"
FINAL = "All steps done."
SECOND = "Second turn answered."
NOTES = "notes.txt"  # the file the script reads and edits, "alpha line\nsecond line\n"
FAILING = "echo failing >&2; exit 3"
QUERY = "sessionport transcript format"
PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-alpha line\n+beta line\n*** End Patch\n"


def _texts(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


class ScriptedHandler(mock_api.Handler):
    workdir: str

    # -- Anthropic Messages (Claude Code) -----------------------------------
    def _claude_script(self, body: dict, step: int, second: bool) -> tuple[list[dict], str]:
        names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        think = {"type": "thinking", "thinking": f"Following the script, step {step}.", "signature": "c2lnbmF0dXJl"}
        if second:
            return [think, {"type": "text", "text": SECOND}], "end_turn"
        notes = f"{self.workdir}/{NOTES}"
        script = [
            [think, {"type": "text", "text": "Running a command first."},
             {"type": "tool_use", "id": "toolu_script_1", "name": "Bash", "input": {"command": "echo hello", "description": "Print a greeting"}}],
            [{"type": "tool_use", "id": "toolu_script_2", "name": "Read", "input": {"file_path": notes}}],
            [{"type": "text", "text": "Now an edit."},
             {"type": "tool_use", "id": "toolu_script_3", "name": "Edit", "input": {"file_path": notes, "old_string": "alpha", "new_string": "beta"}}],
            [{"type": "tool_use", "id": "toolu_script_4", "name": "Bash", "input": {"command": FAILING, "description": "A failing command"}}],
            [{"type": "tool_use", "id": "toolu_script_5", "name": "Agent" if "Agent" in names else "Task",
              "input": {"description": "Sub task", "prompt": f"{SUBAGENT}: run echo sub", "subagent_type": "general-purpose"}}],
            [{"type": "tool_use", "id": "toolu_script_6", "name": "WebSearch", "input": {"query": QUERY}}],
        ]
        if step < len(script):
            return script[step], "tool_use"
        return [{"type": "text", "text": FINAL}], "end_turn"

    def _anthropic(self, body: dict) -> None:
        messages = body.get("messages") or []
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        first = _texts(messages[0].get("content")) if messages else ""
        last = _texts(messages[-1].get("content")) if messages else ""
        step = sum(
            1
            for m in messages
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result" and str(b.get("tool_use_id", "")).startswith("toolu_script")
        )
        usage = {"input_tokens": 100 + step, "output_tokens": 20, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 30}
        tool_names = {t.get("name") for t in tools}
        if any(str(t.get("type", "")).startswith("web_search") for t in tools):
            # the WebSearch tool's own request, with the server tool
            blocks = [
                {"type": "server_tool_use", "id": "srvtoolu_script_1", "name": "web_search", "input": {"query": QUERY}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_script_1",
                 "content": [{"type": "web_search_result", "url": "https://example.invalid/", "title": "Example", "encrypted_content": "ZW5j", "page_age": None}]},
                {"type": "text", "text": "Sessionport reads transcripts."},
            ]
            stop = "end_turn"
        elif SUBAGENT in first and "Bash" in tool_names:
            if step == 0:
                blocks = [{"type": "tool_use", "id": "toolu_script_sub", "name": "Bash", "input": {"command": "echo sub", "description": "Sub echo"}}]
                stop = "tool_use"
            else:
                blocks, stop = [{"type": "text", "text": "Sub-agent done."}], "end_turn"
        elif "Bash" in tool_names and FIRST_PROMPT in json.dumps(messages):
            blocks, stop = self._claude_script(body, step, SECOND_PROMPT in last)
        else:
            blocks, stop = [{"type": "text", "text": "Mock helper reply"}], "end_turn"
        message = {"id": f"msg_script_{self.log_file.count}", "type": "message", "role": "assistant", "model": body.get("model") or "claude-mock", "stop_sequence": None}
        if not body.get("stream"):
            self._json({**message, "content": blocks, "stop_reason": stop, "usage": usage})
            return
        events = [{"type": "message_start", "message": {**message, "content": [], "stop_reason": None, "usage": usage}}]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                events += [{"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                           {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}}]
            elif block["type"] == "thinking":
                events += [{"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
                           {"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}},
                           {"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": block["signature"]}}]
            elif block["type"] in ("tool_use", "server_tool_use"):
                events += [{"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                           {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}]
            else:
                events.append({"type": "content_block_start", "index": index, "content_block": block})
            events.append({"type": "content_block_stop", "index": index})
        events += [{"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 20}}, {"type": "message_stop"}]
        self._sse(events)

    # -- OpenAI Responses (Codex) --------------------------------------------
    def _responses(self, body: dict, seq: int) -> None:
        items = body.get("input") or []
        if items and isinstance(items[-1], dict) and items[-1].get("type") == "compaction_trigger":
            super()._responses(body, seq)
            return
        tools: dict = {}
        for tool in body.get("tools") or []:
            if isinstance(tool, dict):
                tools[tool.get("name") or tool.get("type")] = tool
                for inner in tool.get("tools") or [] if tool.get("type") == "namespace" else []:
                    tools.setdefault(inner.get("name"), {**inner, "namespace": tool.get("name")})
        shell = next((n for n in ("exec_command", "shell_command", "shell") if n in tools), "shell")

        def command(cmd: str) -> str:
            if shell == "exec_command":
                return json.dumps({"cmd": cmd, "workdir": self.workdir})
            if shell == "shell_command":
                return json.dumps({"command": cmd, "workdir": self.workdir})
            return json.dumps({"command": ["bash", "-lc", cmd], "workdir": self.workdir})

        def call(name: str, arguments: str, call_id: str, namespace: str | None = None) -> dict:
            item = {"type": "function_call", "id": f"fc_{call_id}", "name": name, "arguments": arguments, "call_id": call_id, "status": "completed"}
            if namespace:
                item["namespace"] = namespace
            return item

        def message(text: str, phase: str) -> dict:
            return {"type": "message", "id": f"msg_script_{seq}_{phase}", "role": "assistant", "status": "completed", "phase": phase,
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}

        outputs = [i for i in items if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output") and str(i.get("call_id", "")).startswith("call_script")]
        step = len(outputs)
        users = [i for i in items if isinstance(i, dict) and i.get("type") == "message" and i.get("role") == "user"]
        last = json.dumps(users[-1]) if users else ""
        reasoning = {"type": "reasoning", "id": f"rs_script_{seq}", "summary": [{"type": "summary_text", "text": f"**Following the script**\n\nStep {step}."}],
                     "content": None, "encrypted_content": f"gAAAAscripted{seq}"}
        spawn = tools.get("spawn_agent")
        if SUBAGENT in last:
            output = [reasoning, message("Sub-agent done.", "final_answer")]
        elif FIRST_PROMPT not in json.dumps(items):
            output = [message("Mock helper reply", "final_answer")]
        elif SECOND_PROMPT in last:
            output = [reasoning, message(SECOND, "final_answer")]
        elif step == 0:
            output = [reasoning, message("Running a command first.", "commentary"), call(shell, command("echo hello"), "call_script_1")]
        elif step == 1:
            output = [reasoning, call(shell, command(f"cat {NOTES}"), "call_script_2")]
        elif step == 2:
            patch = tools.get("apply_patch")
            if patch and patch.get("type") == "custom":
                output = [{"type": "custom_tool_call", "id": "ctc_script_3", "status": "completed", "call_id": "call_script_3", "name": "apply_patch", "input": PATCH}]
            else:
                output = [call(shell, command(f"apply_patch <<'EOF'\n{PATCH}EOF"), "call_script_3")]
        elif step == 3:
            output = [call(shell, command(FAILING), "call_script_4")]
        elif step == 4 and spawn:
            output = [reasoning, call("spawn_agent", json.dumps({"message": f"{SUBAGENT}: say hi", "agent_type": "default"}), "call_script_5", spawn.get("namespace"))]
        else:
            output = [{"type": "web_search_call", "id": f"ws_script_{seq}", "status": "completed", "action": {"type": "search", "query": QUERY}},
                      reasoning, message(FINAL, "final_answer")]
        usage = {"input_tokens": 1000 + step, "input_tokens_details": {"cached_tokens": 200}, "output_tokens": 50,
                 "output_tokens_details": {"reasoning_tokens": 12}, "total_tokens": 1050 + step}
        base = {"id": f"resp_script_{seq}", "object": "response", "created_at": int(time.time()), "model": body.get("model") or "gpt-mock", "status": "in_progress", "output": []}
        events: list[dict] = [{"type": "response.created", "response": base}]
        for index, item in enumerate(output):
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            if item["type"] == "message":
                events.append({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index, "content_index": 0, "delta": item["content"][0]["text"]})
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": {**base, "status": "completed", "output": output, "usage": usage}})
        self._sse(events)

    # -- Gemini (Gemini CLI) ---------------------------------------------------
    def _gemini_parts(self, body: dict) -> list[dict]:
        contents = body.get("contents") or []
        step = json.dumps(contents).count('"functionResponse"')
        last = contents[-1] if contents else {}
        last_text = " ".join(p.get("text", "") for p in last.get("parts", []) if isinstance(p, dict))
        declared = {}
        for tool in body.get("tools") or []:
            for decl in tool.get("functionDeclarations") or []:
                declared[decl.get("name")] = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
        path_key = "absolute_path" if "absolute_path" in (declared.get("read_file", {}).get("properties") or {}) else "file_path"
        think = {"text": f"**Following the script** step {step}", "thought": True}
        if SECOND_PROMPT in last_text:
            return [think, {"text": SECOND}]
        notes = f"{self.workdir}/{NOTES}"
        script = [
            [think, {"text": "Running a command first."}, {"functionCall": {"name": "run_shell_command", "args": {"command": "echo hello", "description": "Print"}}, "thoughtSignature": "c2ln"}],
            [{"functionCall": {"name": "read_file", "args": {path_key: notes}}}],
            [{"functionCall": {"name": "replace", "args": {"file_path": notes, "old_string": "alpha", "new_string": "beta", "instruction": "rename"}}}],
            [{"functionCall": {"name": "run_shell_command", "args": {"command": FAILING, "description": "Fail"}}}],
            [{"functionCall": {"name": "google_web_search", "args": {"query": QUERY}}}],
            [{"functionCall": {"name": "read_file", "args": {path_key: f"{self.workdir}/missing.txt"}}}],
        ]
        return script[step] if step < len(script) else [{"text": FINAL}]

    def _gemini(self, path: str, body: dict) -> None:
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        search = any("googleSearch" in t or "google_search" in t for t in tools)
        main = FIRST_PROMPT in json.dumps(body.get("contents") or [])
        if ":countTokens" in path or not (search or (main and ":streamGenerateContent" in path)):
            super()._gemini(path, body)
            return
        candidate: dict = {"content": {"role": "model", "parts": self._gemini_parts(body) if not search else [{"text": "Sessionport reads transcripts."}]}, "finishReason": "STOP", "index": 0}
        if search:
            candidate["groundingMetadata"] = {"webSearchQueries": [QUERY], "groundingChunks": [{"web": {"uri": "https://example.invalid/", "title": "example.invalid"}}],
                                              "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 30, "text": "Sessionport reads transcripts."}, "groundingChunkIndices": [0]}]}
        payload = {"candidates": [candidate], "modelVersion": "gemini-mock",
                   "usageMetadata": {"promptTokenCount": 500, "candidatesTokenCount": 40, "totalTokenCount": 560, "cachedContentTokenCount": 100, "thoughtsTokenCount": 20}}
        if ":streamGenerateContent" in path:
            self._sse([payload], named=False)
        else:
            self._json(payload)


def serve(port: int, log_path: str, workdir: str) -> ThreadingHTTPServer:
    """Start the scripted API on 127.0.0.1:``port`` in a daemon thread."""
    handler = type("BoundScriptedHandler", (ScriptedHandler,), {"log_file": mock_api._Log(log_path), "workdir": workdir})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
