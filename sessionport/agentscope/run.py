"""One AgentScope run from one session's events.

A run's header (status, trust score, counts, duration) is known only after
the session's last event, yet it comes before the actions in the document.
So finished actions go to a spooled temporary file (memory up to
:data:`SPOOL_MEMORY`, disk beyond) and are copied out after the header.  Tool calls wait for their results in a bounded queue so
actions keep the order of the calls: when more than :data:`MAX_PENDING`
calls are unanswered, the oldest is written without a result.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, BinaryIO


from sessionport import jsonout
from sessionport.agentscope.cost import format_cost, usage_cost
from sessionport.agentscope.actions import DEFAULT_MAX_OUTPUT, UNKNOWN, Built, one_line, summary_action, tool_action
from sessionport.agentscope.time import format_duration, iso, parse_timestamp, run_stamp, span_ms
from sessionport.agentscope.tools import EDIT_FILE, RUN_COMMAND, TEST_FAILED, TEST_PASSED
from sessionport.io import spool_file

SPOOL_MEMORY = 8 << 20
MAX_PENDING = 512
TRUST = {"passed": 85, "warning": 60, "failed": 35}
AGENT_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini-cli": "Gemini CLI",
    "gemini": "Gemini",
    "chatgpt-export": "ChatGPT",
    "openai-chat": "OpenAI Chat Completions",
    "openai-responses": "OpenAI Responses",
    "anthropic-messages": "Anthropic Messages",
}
DEFAULT_AGENT = "Agent Session"


def current_git_branch() -> str | None:
    """The branch checked out in the current directory, or None (no git, no repo, detached)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    branch = done.stdout.strip()
    return branch if done.returncode == 0 and branch and branch != "HEAD" else None


@dataclass
class RunOptions:
    agent: str | None = None
    branch: str | None = None
    max_output: int = DEFAULT_MAX_OUTPUT
    final_summary: bool = True
    git_branch: Any = None  # callable returning the fallback branch, looked up once


@dataclass
class _Slot:
    use: dict
    result: dict | None = None
    done: bool = False
    summary: bool = False


def _branch_from(metadata: dict) -> str | None:
    for key in ("branch", "gitBranch", "git_branch"):
        value = metadata.get(key)
        if isinstance(value, str) and value.strip() and value != "HEAD":
            return value
    git = metadata.get("git")
    if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"].strip():
        return git["branch"]
    return None


def _cost(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return f"${value:.2f}"
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


class RunBuilder:
    """Collects one session; :meth:`write` puts its run on ``out``."""

    def __init__(self, session: dict, options: RunOptions) -> None:
        self.session = session
        self.options = options
        self.metadata = session.get("metadata") if isinstance(session.get("metadata"), dict) else {}
        self.cwd = session.get("cwd") if isinstance(session.get("cwd"), str) else None
        self.spool: BinaryIO = spool_file(SPOOL_MEMORY)
        self.count = 0
        self.files: set[str] = set()
        self.commands = 0
        self.failed = self.passed = False
        self.slots: deque[_Slot] = deque()
        self.by_id: dict[str, _Slot] = {}
        self.unnamed: deque[_Slot] = deque()
        self.first: datetime | None = parse_timestamp(session.get("createdAt"))
        self.last: datetime | None = self.first
        self.stamps = 1 if self.first else 0
        self.first_user: str | None = None
        self.model: str | None = None
        self.last_text: dict | None = None
        self.cost_total = 0.0
        self.cost_seen = False
        self.usage_total = 0.0
        self.usage_records = 0
        self.unpriced = False
        self.end: dict | None = None
        # A loose log's summary is its title (AgentScope adds no action for
        # it); a transcript's summary records become actions unless asked not to.
        self.summaries = options.final_summary and session.get("source") != "session-json"

    # -- events ---------------------------------------------------------
    def add(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "end":
            self.end = event
            return
        if kind != "message":
            return
        self._clock(event.get("timestamp"))
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        cost = meta.get("costUSD")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost_total += cost
            self.cost_seen = True
        if isinstance(meta.get("usage"), dict):
            self._price(meta["usage"], meta.get("model"))
        msg_kind = meta.get("kind", "text")
        role = event.get("role")
        if self.model is None and isinstance(meta.get("model"), str):
            self.model = meta["model"]
        if msg_kind == "tool_result":
            self._result(event)
        elif msg_kind == "tool_use" or (event.get("toolName") and msg_kind not in ("text", "thinking")):
            self._use(event)
        elif msg_kind == "summary":
            if self.summaries:
                self.slots.append(_Slot(event, done=True, summary=True))
                self._drain()
        elif role == "user" and msg_kind == "text" and not meta.get("injected") and self.first_user is None:
            if isinstance(event.get("text"), str) and event["text"].strip():
                self.first_user = event["text"]
        elif role == "assistant" and msg_kind == "text" and event.get("text"):
            self.last_text = event

    def _price(self, usage: dict, model: Any) -> None:
        self.usage_records += 1
        dollars = usage_cost(usage, model if isinstance(model, str) else self.model)
        if dollars is None:
            self.unpriced = True
        else:
            self.usage_total += dollars

    def _clock(self, stamp: Any) -> None:
        moment = parse_timestamp(stamp)
        if moment is None:
            return
        self.stamps += 1
        if self.first is None or moment < self.first:
            self.first = moment
        if self.last is None or moment > self.last:
            self.last = moment

    def _use(self, event: dict) -> None:
        slot = _Slot(event)
        self.slots.append(slot)
        call_id = event.get("toolCallId")
        if isinstance(call_id, str) and call_id:
            self.by_id[call_id] = slot
        else:
            self.unnamed.append(slot)
        self.last_text = None
        if len(self.slots) > MAX_PENDING:
            self.slots[0].done = True
            self._drain()

    def _result(self, event: dict) -> None:
        call_id = event.get("toolCallId")
        slot = self.by_id.pop(call_id, None) if isinstance(call_id, str) else None
        if slot is None and not call_id and self.unnamed:
            slot = self.unnamed.popleft()
        if slot is None or slot.done:
            return  # a result without its call (the call was dropped or never logged)
        slot.result, slot.done = event, True
        self._drain()

    def _drain(self) -> None:
        while self.slots and self.slots[0].done:
            slot = self.slots.popleft()
            if slot.summary:
                self._emit(summary_action(slot.use, "Session summary", self.options.max_output))
                continue
            self._forget(slot)
            self._emit(tool_action(slot.use, slot.result, self.cwd, self.options.max_output))

    def _flush_all(self) -> None:
        for slot in self.slots:
            slot.done = True
        self._drain()

    def _forget(self, slot: _Slot) -> None:
        call_id = slot.use.get("toolCallId")
        if isinstance(call_id, str) and self.by_id.get(call_id) is slot:
            del self.by_id[call_id]
        if slot in self.unnamed:
            self.unnamed.remove(slot)

    def _emit(self, built: Built) -> None:
        self.count += 1
        action = built.action
        action["id"] = f"a{self.count}"
        kind = action["type"]
        if kind == EDIT_FILE:
            self.files.update(built.files)
        elif kind in (RUN_COMMAND, TEST_PASSED, TEST_FAILED):
            self.commands += 1
            self.failed = self.failed or kind == TEST_FAILED
            self.passed = self.passed or kind == TEST_PASSED
        self.spool.write((b",\n" if self.count > 1 else b"\n") + jsonout.dumps(action))

    # -- the run --------------------------------------------------------
    def header(self, run_id: str) -> dict:
        status = "failed" if self.failed else "passed" if self.passed else "warning"
        return {
            "id": run_id,
            "title": self._title(),
            "agent": self._agent(),
            "branch": self._branch(),
            "status": status,
            "trustScore": TRUST[status],
            "startedAt": iso(self.first) if self.first else UNKNOWN,
            "duration": self._duration(),
            "cost": self._run_cost(),
            "filesChanged": len(self.files),
            "commands": self.commands,
        }

    def stamp(self) -> str:
        return run_stamp(self.first or datetime.now(timezone.utc))

    def _duration(self) -> str:
        # The duration a log states comes first (AgentScope shows it as
        # written); else the span of the session's timestamps.
        stated = self.metadata.get("durationMs")
        if isinstance(stated, (int, float)) and not isinstance(stated, bool):
            return format_duration(stated) or UNKNOWN
        text = self.metadata.get("duration")
        if isinstance(text, str) and text.strip():
            return text.strip()
        return (format_duration(span_ms(self.first, self.last)) if self.stamps > 1 else None) or UNKNOWN

    def _title(self) -> str:
        title = self.session.get("title")
        if isinstance(title, str) and title.strip():
            return one_line(title, 200)
        if self.first_user:
            return one_line(self.first_user, 120)
        session_id = self.session.get("sessionId")
        return f"Session {session_id}" if isinstance(session_id, str) else "Untitled session"

    def _agent(self) -> str:
        if self.options.agent:
            return self.options.agent
        explicit = self.metadata.get("agent")
        if isinstance(explicit, dict):
            explicit = explicit.get("name")
        if isinstance(explicit, str) and explicit.strip():
            return explicit.strip()
        name = AGENT_NAMES.get(str(self.session.get("source")), DEFAULT_AGENT)
        return f"{name} ({self.model})" if self.model and name != DEFAULT_AGENT else name

    def _branch(self) -> str:
        branch = self.options.branch or _branch_from(self.metadata)
        if branch is None and self.options.git_branch is not None:
            branch = self.options.git_branch()
        return branch or UNKNOWN

    def _run_cost(self) -> str:
        for source in (self.end or {}, self.metadata):
            for key in ("cost", "costUSD", "total_cost_usd"):
                found = _cost(source.get(key))
                if found:
                    return found
        if self.cost_seen:
            return format_cost(self.cost_total)
        # An estimate from token usage: per message when messages carry it
        # (each priced as its own model), else the end event's totals.
        if self.usage_records and not self.unpriced:
            return format_cost(self.usage_total)
        if not self.usage_records and self.end is not None:
            dollars = usage_cost(self.end.get("usage"), self.model)
            if dollars is not None:
                return format_cost(dollars)
        return UNKNOWN

    def finish(self) -> None:
        self._flush_all()
        if self.options.final_summary and self.last_text is not None:
            self._emit(summary_action(self.last_text, "Final response", self.options.max_output))
            self.last_text = None

    def write(self, out: BinaryIO, run_id: str) -> None:
        """Write ``{header..., "actions":[...]}`` (call :meth:`finish` first)."""
        body = jsonout.dumps(self.header(run_id))
        out.write(body[:-1] + b',"actions":[')
        self.spool.seek(0)
        shutil.copyfileobj(self.spool, out)
        out.write(b"\n]}" if self.count else b"]}")
        self.spool.close()
