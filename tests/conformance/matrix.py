"""Which files each app judges: the import side and the export pairs.

Import side: every corpus file of an app's own format (``codex`` files to
Codex, ...), each resumed as it is.  Export side: every source file (the
apps' corpus files, the provider formats' corpus files, and the project's own
fixtures for ``anthropic-messages``, which the corpus has none of) converted
by sessionport into each app's format and resumed there.  A source that holds
several sessions (a ChatGPT export) is exported one session at a time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from conftest import CORPUS, FIXTURES, ROOT  # noqa: F401  (ROOT: for lab)

APP_NAMES = ("claude-code", "codex", "gemini-cli", "qwen-code")


@dataclass(frozen=True)
class Source:
    format: str  # sessionport's input format
    path: Path
    session: str | None = None  # one session of a multi-session file

    @property
    def label(self) -> str:
        try:
            name = str(self.path.relative_to(CORPUS))
        except ValueError:
            name = "fixtures/" + str(self.path.relative_to(FIXTURES))
        return name + (f"#{self.session}" if self.session else "")


def _corpus(sub: str, pattern: str) -> list[Path]:
    folder = CORPUS / sub
    return sorted(p for p in folder.glob(pattern) if p.is_file()) if folder.is_dir() else []


def app_files() -> dict[str, list[Source]]:
    """Each app's own corpus files (the Claude Code subagent file is read
    with its parent, never alone)."""
    claude = _corpus("claude-code", "*.jsonl") + _corpus("claude-code", "*/*.jsonl")
    return {
        "claude-code": [Source("claude-code", p) for p in claude],
        "codex": [Source("codex", p) for p in _corpus("codex", "*.jsonl")],
        "gemini-cli": [Source("gemini-cli", p) for p in _corpus("gemini", "vct_*")],
    }


def own_format_files(app: str) -> list[Source]:
    """The files whose export to their own app is compared, replay against
    replay, with what the app rebuilds from the original: the app's corpus
    files and the project's fixtures of its format."""
    fixtures = {"codex": ("codex", ("*.jsonl", "*.json")), "gemini-cli": ("gemini-cli", ("session-*.json", "session-*.jsonl"))}
    sub, patterns = fixtures[app]
    found = sorted({p for pattern in patterns for p in (FIXTURES / sub).glob(pattern) if p.is_file()})
    return [*app_files()[app], *(Source(app, p) for p in found)]


def _sessions(path: Path, fmt: str) -> list[str | None]:
    from sessionport import api

    ids = [e.get("sessionId") for e in api.read(str(path), format=fmt) if e.get("type") == "session"]
    return [None] if len(ids) <= 1 else [i for i in ids if isinstance(i, str)]


def provider_files() -> list[Source]:
    found = [
        *(("openai-chat", p) for p in _corpus("openai", "pydanticai_chat_*.json")),
        *(("openai-responses", p) for p in _corpus("openai", "pydanticai_responses_*.json")),
        *(("gemini", p) for p in _corpus("gemini", "pydanticai_*.json")),
        *(("chatgpt-export", p) for p in _corpus("chatgpt", "*.json")),
        *(("anthropic-messages", p) for p in sorted((FIXTURES / "anthropic-messages").glob("*.json"))),
    ]
    out = []
    for fmt, path in found:
        for session in _sessions(path, fmt):
            out.append(Source(fmt, path, session))
    return out


def export_sources() -> list[Source]:
    own = app_files()
    return [*own["claude-code"], *own["codex"], *own["gemini-cli"], *provider_files()]


def export_options(source: Source, app: str) -> tuple[list[str], dict]:
    """How a source is read for moving it to ``app`` (CLI flags, API options):
    a Claude Code session as the app resumes it (its latest branch), and
    without its subagent transcripts for an app whose format holds one
    session; with its images for Codex (whose writer puts them back)."""
    flags, options = (["--keep-images"], {"keep_images": True}) if app == "codex" else ([], {})
    if source.format != "claude-code":
        return flags, options
    if app == "claude-code":
        return ["--branch", "latest"], {"branch": "latest"}
    return [*flags, "--branch", "latest", "--no-subagents"], {**options, "branch": "latest", "no_subagents": True}


def workers() -> int:
    given = os.environ.get("SESSIONPORT_CONFORMANCE_JOBS")
    return max(1, int(given)) if given else max(2, min(4, (os.cpu_count() or 2) + 1))
