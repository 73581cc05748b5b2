"""The Responses API items that are neither messages nor function calls:
hosted tools, MCP, tool search, programs, compaction, configuration.

Each becomes the events its meaning calls for (a call and its result, a
compaction, a system note) so that every format can show or carry it, and
keeps the item itself in ``meta.item`` (its bulky payloads, base64 images,
left out: see :func:`slim`), which the Responses writer writes back as it
was.  The item types and fields are those of the OpenAI Python SDK 3.57
(``openai/types/responses/response_input_item.py`` and
``response_output_item.py``).
"""

from __future__ import annotations

from typing import Any

from sessionport.formats.providers.content import (
    nonempty_str,
    openai_call_event,
    placeholder,
    render_tool_input,
    text_of,
    url_placeholder,
)
from sessionport.model import human_size, message_event

# Call items whose result, when they have one, is inside the item itself:
# no separate output item answers them (the writer writes none).
SELF_ANSWERED = frozenset(
    ("web_search_call", "image_generation_call", "code_interpreter_call", "file_search_call", "mcp_call", "mcp_list_tools")
)
# Call items answered by an output item of their own type.
OUTPUT_OF = {
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
    "program": "program_output",
    "mcp_approval_request": "mcp_approval_response",
}
OUTPUT_TYPES = frozenset(OUTPUT_OF.values())
# The tool name each call type is shown under.
TOOL_NAMES = {
    "program": "program",
    "mcp_list_tools": "mcp_list_tools",
    **{t: t[: -len("_call")] for t in ("web_search_call", "image_generation_call", "code_interpreter_call", "file_search_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call", "tool_search_call")},
}


def slim(item: dict) -> dict:
    """The item as ``meta.item`` keeps it: verbatim, but for a screenshot's
    data URL (a computer call's output), left out as every reader leaves
    media bytes out (see :func:`computer_call_output`)."""
    output = item.get("output")
    if isinstance(output, dict) and isinstance(output.get("image_url"), str) and output["image_url"].startswith("data:"):
        return {**item, "output": {k: v for k, v in output.items() if k != "image_url"}}
    return dict(item)


def _meta(kind: str, item: dict, whole: bool = False, **more: Any) -> dict:
    meta: dict = {"kind": kind, "itemType": item["type"]}
    meta.update(more)
    meta["item"] = dict(item) if whole else slim(item)
    return meta


def _call_meta(item: dict, tool_input: Any, carried: str | None) -> dict:
    """A call's meta: the item without what its ``toolInput`` already holds
    (``carried``: ``"fields"``, the item's own keys; ``"arguments"``, its
    ``arguments``), so that what a stage does to the input (a redaction) is
    what the writer writes back."""
    meta = _meta("tool_use", item)
    if carried == "fields" and isinstance(tool_input, dict):
        meta["item"] = {k: v for k, v in meta["item"].items() if k not in tool_input}
        meta["itemInput"] = carried
    elif carried == "arguments" and isinstance(item.get("arguments"), dict):
        meta["item"] = {k: v for k, v in meta["item"].items() if k != "arguments"}
        meta["itemInput"] = carried
    return meta


def call_id_of(item: dict) -> str | None:
    return nonempty_str(item.get("call_id")) or nonempty_str(item.get("id"))


def call_event(item: dict, tool_input: Any, text: str | None = None, call_id: str | None = None, carried: str | None = None) -> dict:
    """The tool_use event of a hosted call item (``carried``: see :func:`_call_meta`)."""
    itype = item["type"]
    return message_event(
        "tool",
        render_tool_input(tool_input) if text is None else text,
        toolName=TOOL_NAMES.get(itype, itype),
        toolCallId=call_id or call_id_of(item),
        toolInput=tool_input,
        meta=_call_meta(item, tool_input, carried),
    )


def result_event(item: dict, text: str, call_id: str | None, tool_name: str | None = None, is_error: bool | None = None, whole: bool = True) -> dict:
    """The tool_result event of an output item (``whole``: the item kept
    in its meta) or of the result a call item holds."""
    meta = _meta("tool_result", item) if whole else {"kind": "tool_result", "itemType": item["type"]}
    return message_event("tool", text, toolName=tool_name, toolCallId=call_id, isError=is_error, meta=meta)


# -- calls ----------------------------------------------------------------
def mcp_list_tools(item: dict) -> list[dict]:
    """The tools a remote MCP server offers, as the model listed them: a
    call (its server) answered by the list, one tool a line."""
    label = item.get("server_label")
    events = [call_event(item, {"server_label": label} if isinstance(label, str) else {}, text=label if isinstance(label, str) else "")]
    lines = []
    for tool in item.get("tools") if isinstance(item.get("tools"), list) else ():
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            about = tool.get("description")
            lines.append(f"{tool['name']}: {about.splitlines()[0]}" if isinstance(about, str) and about.strip() else tool["name"])
    error = item.get("error")
    if isinstance(error, str) and error:
        lines.append(error)
    events.append(result_event(item, "\n".join(lines), call_id_of(item), "mcp_list_tools", True if isinstance(error, str) and error else None, whole=False))
    return events


def mcp_approval_request(item: dict) -> list[dict]:
    """The model asks to call a remote MCP tool: a call of that tool (its
    arguments as input), answered by the ``mcp_approval_response``."""
    event = openai_call_event(item, nonempty_str(item.get("id")), False, None)
    meta = event["meta"]
    event["meta"] = {**meta, **_meta("tool_use", item)}
    return [event]


def tool_search_call(item: dict) -> list[dict]:
    arguments = item.get("arguments")
    return [call_event(item, arguments if isinstance(arguments, dict) else {"value": arguments} if arguments is not None else {}, carried="arguments")]


def program(item: dict) -> list[dict]:
    code = item.get("code")
    return [call_event(item, {"code": code} if isinstance(code, str) else {}, text=code if isinstance(code, str) else "", carried="fields")]


def shell_call(item: dict) -> list[dict]:
    action = item.get("action") if isinstance(item.get("action"), dict) else {}
    commands = action.get("commands")
    text = "\n".join(c for c in commands if isinstance(c, str)) if isinstance(commands, list) else None
    tool_input = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status") and v is not None}
    return [call_event(item, tool_input, text=text, carried="fields")]


def apply_patch_call(item: dict) -> list[dict]:
    operation = item.get("operation") if isinstance(item.get("operation"), dict) else {}
    head = " ".join(t for t in (operation.get("type"), operation.get("path")) if isinstance(t, str))
    diff = operation.get("diff") if isinstance(operation.get("diff"), str) else ""
    tool_input = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status") and v is not None}
    return [call_event(item, tool_input, text="\n".join(t for t in (head, diff) if t), carried="fields")]


def hosted_call(item: dict) -> list[dict]:
    """Any other ``*_call`` item (web search, computer, local shell): its
    fields but the ids and status as the input; its action shown."""
    tool_input = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status") and v is not None and v != []}
    action = tool_input.get("action")
    command = action.get("command") if isinstance(action, dict) else None
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        # a local shell's argv, whole, as it would be typed (a cut one could
        # split a secret where the redactor no longer knows it)
        text = " ".join(command)
    else:
        text = render_tool_input(action if action is not None else tool_input)
    return [call_event(item, tool_input, text=text, carried="fields")]


# -- outputs ----------------------------------------------------------------
def mcp_approval_response(item: dict) -> list[dict]:
    approved = item.get("approve") is True
    reason = item.get("reason")
    text = "approved" if approved else "denied"
    if isinstance(reason, str) and reason:
        text += f": {reason}"
    return [result_event(item, text, nonempty_str(item.get("approval_request_id")), is_error=None if approved else True)]


def tool_search_output(item: dict) -> list[dict]:
    """The tools a search loaded: their names, one a line (the definitions
    in ``meta.item``)."""
    names = []
    for tool in item.get("tools") if isinstance(item.get("tools"), list) else ():
        if isinstance(tool, dict):
            name = tool.get("name") or tool.get("server_label") or tool.get("type")
            if isinstance(name, str):
                names.append(name)
    return [result_event(item, "\n".join(names), nonempty_str(item.get("call_id")), "tool_search")]


def program_output(item: dict) -> list[dict]:
    result = item.get("result")
    status = item.get("status")
    return [result_event(item, result if isinstance(result, str) else text_of(result), nonempty_str(item.get("call_id")), "program",
                         True if status == "incomplete" else None)]


def shell_call_output(item: dict) -> list[dict]:
    """Each command's stdout, then its stderr; an error when a command
    exited non-zero or timed out."""
    pieces, failed = [], False
    for entry in item.get("output") if isinstance(item.get("output"), list) else ():
        if not isinstance(entry, dict):
            continue
        pieces.extend(t for t in (entry.get("stdout"), entry.get("stderr")) if isinstance(t, str) and t)
        outcome = entry.get("outcome") if isinstance(entry.get("outcome"), dict) else {}
        if outcome.get("type") == "timeout" or (isinstance(outcome.get("exit_code"), int) and outcome["exit_code"] != 0):
            failed = True
    return [result_event(item, "\n".join(pieces), call_id_of(item), "shell", True if failed else None)]


def apply_patch_call_output(item: dict) -> list[dict]:
    output = item.get("output")
    failed = item.get("status") == "failed"
    return [result_event(item, output if isinstance(output, str) else "failed" if failed else "", call_id_of(item), "apply_patch", True if failed else None)]


def computer_call_output(item: dict, keep_images: bool = False) -> list[dict]:
    """A screenshot: its placeholder; the item kept with its data URL only
    with ``--keep-images`` (then also the event's media)."""
    output = item.get("output") if isinstance(item.get("output"), dict) else {}
    if isinstance(output.get("image_url"), str):
        text = url_placeholder("image", output["image_url"])
    else:
        text = placeholder("image", label=output.get("file_id"))
    meta = _meta("tool_result", item, whole=keep_images, attachment="image")
    return [message_event("tool", text, toolName="computer", toolCallId=call_id_of(item), meta=meta)]


def local_shell_call_output(item: dict) -> list[dict]:
    return [result_event(item, text_of(item.get("output")), call_id_of(item), "local_shell")]


# -- neither --------------------------------------------------------------
def compaction(item: dict) -> list[dict]:
    """The opaque summary ``/responses/compact`` made of the history
    before it: a compaction only the API can read."""
    encrypted = item.get("encrypted_content")
    size = len(encrypted) if isinstance(encrypted, str) else 0
    meta = _meta("compaction", item)
    if isinstance(item.get("id"), str):
        meta["itemId"] = item["id"]
    return [message_event("system", f"[compaction: encrypted summary, {human_size(size)}]", meta=meta)]


def compaction_trigger(item: dict) -> list[dict]:
    return [message_event("system", "[compaction requested]", meta=_meta("compaction", item))]


def additional_tools(item: dict) -> list[dict]:
    """Tool definitions offered to the model mid-conversation (a developer
    item): a system note naming them."""
    names = [t.get("name") or t.get("server_label") or t.get("type") for t in item.get("tools") or () if isinstance(t, dict)] if isinstance(item.get("tools"), list) else []
    text = "[tools offered: " + ", ".join(n for n in names if isinstance(n, str)) + "]"
    return [message_event("system", text, meta=_meta("text", item, sourceRole="developer"))]


def configuration_update(item: dict) -> list[dict]:
    """Settings for the responses that follow (reasoning effort, text
    format): a system note."""
    settings = []
    reasoning = item.get("reasoning") if isinstance(item.get("reasoning"), dict) else {}
    if isinstance(reasoning.get("effort"), str):
        settings.append(f"reasoning effort {reasoning['effort']}")
    text = item.get("text") if isinstance(item.get("text"), dict) else {}
    fmt = text.get("format") if isinstance(text.get("format"), dict) else {}
    if isinstance(fmt.get("type"), str):
        settings.append(f"text format {fmt['type']}")
    return [message_event("system", "[configuration update" + (": " + ", ".join(settings) if settings else "") + "]", meta=_meta("text", item))]


READERS = {
    "mcp_list_tools": mcp_list_tools,
    "mcp_approval_request": mcp_approval_request,
    "mcp_approval_response": mcp_approval_response,
    "tool_search_call": tool_search_call,
    "tool_search_output": tool_search_output,
    "program": program,
    "program_output": program_output,
    "shell_call": shell_call,
    "shell_call_output": shell_call_output,
    "apply_patch_call": apply_patch_call,
    "apply_patch_call_output": apply_patch_call_output,
    "local_shell_call_output": local_shell_call_output,
    "compaction": compaction,
    "compaction_summary": compaction,  # the name Codex also accepts for it
    "compaction_trigger": compaction_trigger,
    "additional_tools": additional_tools,
    "configuration_update": configuration_update,
}

