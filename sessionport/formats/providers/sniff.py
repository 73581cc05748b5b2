"""Telling provider message lists apart from their first bytes.

A bare ``[{"role": "user", "content": "hi"}]`` is valid Anthropic, OpenAI
chat and Responses input alike, so the three importers share one judgement:
each counts the markers only its API uses (``tool_use`` blocks, ``tool_calls``,
``function_call_output`` items...) and the format with most markers wins.
Documents of other formats that also hold roles (Gemini ``parts``, ChatGPT
``mapping``, the portable format, JSONL logs of Claude Code and Codex) score 0.
Recorded API traffic (``{"interactions": [{"uri", "request_body", ...}]}``)
goes to the API of its last request.
"""

from __future__ import annotations

from sessionport.jsondoc import head_tokens
from sessionport.jsonl import first_json_line
from sessionport.lazy import lazy

ANTHROPIC, CHAT, RESPONSES = "anthropic-messages", "openai-chat", "openai-responses"

_TYPE = lazy(rb'"type"\s*:\s*"([a-z_]+)"')
_ROLE = lazy(rb'"role"\s*:\s*"([a-z]+)"')
_KEY = lazy(rb'"([A-Za-z_]+)"\s*:')
_URI = lazy(rb'"uri"\s*:\s*"([^"]{1,300})"')

_ANTHROPIC_TYPES = frozenset(
    b"tool_use tool_result thinking redacted_thinking document server_tool_use web_search_tool_result search_result".split()
)
_RESPONSES_TYPES = frozenset(
    b"function_call function_call_output reasoning input_text output_text summary_text message "
    b"custom_tool_call custom_tool_call_output input_image input_file web_search_call computer_call".split()
)
# ``condenseParent``…: the condense and truncation flags Roo Code puts on
# the messages of its Anthropic-style history (a task of text blocks only
# has no other marker).
_ANTHROPIC_KEYS = frozenset(
    b"tool_use_id modelInfo signature cache_control is_error stop_reason "
    b"condenseId condenseParent isSummary truncationId truncationParent isTruncationMarker".split()
)
_CHAT_KEYS = frozenset(b"tool_calls tool_call_id function_call image_url input_audio refusal choices finish_reason".split())
_RESPONSES_KEYS = frozenset(b"call_id encrypted_content instructions previous_response_id".split())
_CONTENTLESS_KEYS = frozenset(b"tool_calls function_call tool_call_id call_id parts encrypted_content".split())
_CHAT_ROLES = frozenset((b"tool", b"function"))
# Keys of formats that also carry roles but are not provider message lists.
_FOREIGN_KEYS = frozenset(
    b"parts mapping parentUuid projectHash payload sessionId leafUuid contents candidates".split()
)


def _body(head: bytes) -> bytes:
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")


def _is_jsonl(head: bytes) -> bool:
    """Two or more complete top-level objects, one per line."""
    first = first_json_line(head)
    if not isinstance(first, dict):
        return False
    rest = head.split(b"\n", 1)[1] if b"\n" in head else b""
    return rest.lstrip(b" \t\r\n").startswith(b"{")


_LIST_KEYS = frozenset(("messages", "input", "output", "choices"))


def top_level_array_key(body: bytes) -> str | None:
    """The first of ``messages``/``input``/``output``/``choices`` holding an
    array directly under a top-level object, read with ijson from a head
    that may be cut anywhere."""
    for prefix, event, _ in head_tokens(body):
        if event == "start_array" and prefix in _LIST_KEYS:
            return prefix
    return None


def conversation_lines(head: bytes, keys: tuple[str, ...] = ("messages", "input")) -> bool:
    """JSON Lines with one conversation per line (fine-tuning and eval
    datasets: ``{"messages": [...]}`` or ``{"input": [...]}`` per line)."""
    first = first_json_line(_body(head))
    return isinstance(first, dict) and any(isinstance(first.get(k), list) for k in keys) and _is_jsonl(_body(head))


def cassette_api(head: bytes) -> str | None:
    """The API of the last recorded request in ``head``, for recorded traffic."""
    if b'"interactions"' not in head or b'"request_body"' not in head:
        return None
    uris = _URI.findall(head)
    for uri in reversed(uris):
        if b"/chat/completions" in uri:
            return CHAT
        if b"/responses" in uri:
            return RESPONSES
        if b"anthropic.com" in uri or b"/v1/messages" in uri:
            return ANTHROPIC
    return "other" if uris else None


# The keys Cline 3 writes before ``messages`` in a session's messages file.
_CLINE_SESSION_KEYS = frozenset(("version", "updated_at", "agent", "sessionId"))


def cline_session(body: bytes) -> bool:
    """A Cline 3 ``<id>.messages.json``: ``{version, updated_at, agent,
    sessionId, [taskType], origin, messages: [...]}`` (Anthropic-style blocks)."""
    if not body.startswith(b"{") or b'"agent"' not in body[:4096]:
        return False
    keys = set()
    for prefix, event, value in head_tokens(body):
        if prefix == "" and event == "map_key":
            keys.add(value)
        elif event == "start_array" and prefix == "messages":
            return _CLINE_SESSION_KEYS <= keys
    return False


def roo_history(body: bytes) -> bool:
    """Roo Code's versioned history (``api_conversation_history.json`` of
    3.4x, 2026): ``{"version": 2, "messages": [...]}`` of AI SDK messages
    (``tool-call`` / ``tool-result`` parts, ``role: "tool"``)."""
    if not body.startswith(b"{") or b'"version"' not in body[:64]:
        return False
    keys = []
    version = None
    for prefix, event, value in head_tokens(body):
        if prefix == "" and event == "map_key":
            keys.append(value)
        elif prefix == "version" and event == "number":
            version = value
        elif event == "start_array" and prefix == "messages":
            return keys == ["version", "messages"] and version == 2
        elif prefix == "" and event == "end_map":
            return False
    return False


def scores(head: bytes) -> dict[str, int]:
    """A score 0..100 for each of the three formats."""
    result = {ANTHROPIC: 0, CHAT: 0, RESPONSES: 0}
    body = _body(head)
    if not body[:1] in (b"[", b"{") or b"sessionport/v1" in head[:4096]:
        return result
    api = cassette_api(head)
    if api is not None:
        if api in result:
            result[api] = 90
        return result
    if _is_jsonl(body) and not conversation_lines(body):
        return result
    if cline_session(body) or roo_history(body):
        result[ANTHROPIC] = 92
        return result
    keys = set(_KEY.findall(head))
    if keys & _FOREIGN_KEYS:
        return result
    types = set(_TYPE.findall(head))
    roles = set(_ROLE.findall(head))
    if not roles and not (types & _RESPONSES_TYPES):
        return result
    if b"content" not in keys and not keys & _CONTENTLESS_KEYS and not types & _RESPONSES_TYPES:
        # Roles without any content: messages of the portable shape
        # (``role`` and ``text``), not a list these APIs would take.
        return result
    anthropic = len(types & _ANTHROPIC_TYPES) + len(keys & _ANTHROPIC_KEYS)
    chat = len(keys & _CHAT_KEYS) + len(roles & _CHAT_ROLES)
    responses = len(types & _RESPONSES_TYPES) + len(keys & _RESPONSES_KEYS)
    if b'"source"' in head and b"image" in types:
        anthropic += 1
    # The array key decides between Responses (``input``/``output``) and
    # the two message-list APIs (``messages``).
    if body.startswith(b"{"):
        array = top_level_array_key(body)
        if array in ("input", "output"):
            responses += 3
            anthropic = chat = 0
        elif array == "messages":
            anthropic, chat = anthropic + 1, chat + 1
            responses = 0
        elif array == "choices":
            anthropic = responses = 0
        else:
            return result  # an object whose list none of these importers reads
    if b"system" in keys:  # only Anthropic has a system key (the others use a role)
        anthropic += 1
    best = max(anthropic, chat, responses)
    if best == 0:
        # Plain role/content messages: any of the three reads them the
        # same; prefer the most widespread shape.
        result[CHAT], result[ANTHROPIC], result[RESPONSES] = 45, 40, 35
        return result
    for name, count in ((ANTHROPIC, anthropic), (CHAT, chat), (RESPONSES, responses)):
        if count == best:
            result[name] = 80
        elif count:
            result[name] = 30
    # Break ties deterministically: Responses markers are the most specific,
    # then Anthropic's block types.
    if list(result.values()).count(80) > 1:
        for name in (RESPONSES, ANTHROPIC, CHAT):
            if result[name] == 80:
                result[name] = 81
                break
    return result


# The sniffers of the three importers (each its own name in the share).
def anthropic_messages(head: bytes) -> int:
    return scores(head)[ANTHROPIC]


def openai_chat(head: bytes) -> int:
    return scores(head)[CHAT]


def openai_responses(head: bytes) -> int:
    return scores(head)[RESPONSES]
