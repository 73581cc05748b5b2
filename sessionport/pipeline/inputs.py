"""What the inputs of a run name, resolved to the files to read.

One function, :func:`resolve`, turns what a user typed into
:class:`Source` s in a deterministic order:

- ``-`` or nothing: stdin;
- a path to a file, or ``file://`` + path;
- a directory: walked recursively, sorted, files matching the globs
  (Claude Code subagent files are left out: their parent reads them; of an
  agent home, hidden or not, only its session folders are walked);
- a local pattern with ``*``, ``?`` or ``[`` that names no existing file;
- a URL (``s3://``, ``gs://``, ``https://``, ``memory://`` ... through
  fsspec), or a URL pattern (``s3://bucket/sessions/**/*.jsonl``), also
  chained (``zip://**/*.jsonl::export.zip``: members of an archive);
- ``@ID-PREFIX`` (one session found by ``sessionport ls``) or ``@all``.

Each source carries the ``relative`` path its output takes under ``-o DIR``.
Whether the run is a *batch* (several sources, or one input that may name
many: a directory, a pattern, ``@all``) is decided here too, so that every
caller treats the same inputs the same way.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from sessionport.plain import Frozen
from typing import Sequence

from sessionport.errors import UsageError
from sessionport.io import is_stdin, is_url

# What a directory walk picks up when no --glob is given.
DEFAULT_GLOBS = ("*.jsonl", "*.json", "*.ndjson", "*.jsonl.zst", "*.jsonl.gz", "*.json.gz", "*.jsonl.bz2", "*.jsonl.xz", "*.zip")
PATTERN_CHARS = "*?["
# Characters of a first prompt shown when an @ID prefix is ambiguous.
CANDIDATE_PROMPT = 60


class Source(Frozen):
    """One input: ``spec`` to open, ``relative`` to mirror under an output directory."""

    __slots__ = ("spec", "relative")
    spec: str
    relative: str

    def __init__(self, spec: str, relative: str) -> None:
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "relative", relative)


class Inputs(Frozen):
    """The sources of a run, and whether they make a batch."""

    __slots__ = ("sources", "batch")
    sources: tuple[Source, ...]
    batch: bool

    def __init__(self, sources: tuple[Source, ...], batch: bool) -> None:
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "batch", batch)

    @property
    def specs(self) -> list[str]:
        return [s.spec for s in self.sources]

    def __len__(self) -> int:
        return len(self.sources)


def resolve(specs: Sequence[str | None], globs: Sequence[str] = (), *, home: str | None = None) -> Inputs:
    """Every input of a run as sources (stdin when there is none)."""
    globs = tuple(globs) or DEFAULT_GLOBS
    sources: list[Source] = []
    names_many = False
    if not specs and _terminal_stdin():
        raise UsageError(
            "no input given, and stdin is a terminal: give a path (a file, a directory, @ID), "
            "or pipe a transcript in (`-` reads what is typed)"
        )
    given = list(specs) or [None]
    for spec in given:
        if is_stdin(spec):
            sources.append(Source("-", "stdin"))
            continue
        assert spec is not None
        if is_url(spec):
            if _is_url_pattern(spec):
                sources.extend(_url_pattern(spec))
                names_many = True
            else:
                sources.append(Source(spec, _url_name(spec)))
        elif spec.startswith("@") and not os.path.exists(spec):
            found, many = _reference(spec, home)
            sources.extend(found)
            names_many = names_many or many
        elif os.path.isdir(spec):
            walked = walk(spec, globs)
            if not walked:
                raise UsageError(f"{spec}: no files matching {', '.join(globs)} in this directory; use --glob")
            sources.extend(walked)
            names_many = True
        elif _is_pattern(spec) and not os.path.exists(spec):
            sources.extend(_local_pattern(spec))
            names_many = True
        else:
            sources.append(Source(spec, os.path.basename(spec)))
    return Inputs(tuple(sources), len(sources) > 1 or names_many)


def _terminal_stdin() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def is_batch(specs: Sequence[str | None]) -> bool:
    """Whether these inputs make a batch, told without resolving them:
    several inputs, or one that may name many (a directory, a pattern,
    ``@all``).  ``@ID-PREFIX`` names one session."""
    return len(specs) > 1 or any(spec is not None and names_many(spec) for spec in specs)


def names_many(spec: str) -> bool:
    if is_stdin(spec):
        return False
    if is_url(spec):
        return _is_url_pattern(spec)
    if spec.startswith("@") and not os.path.exists(spec):
        return spec == "@all"
    return os.path.isdir(spec) or (_is_pattern(spec) and not os.path.exists(spec))


def _is_pattern(spec: str) -> bool:
    return any(c in spec for c in PATTERN_CHARS)


def _is_url_pattern(spec: str) -> bool:
    # An HTTP URL names one resource (a "?" starts its query); other file
    # systems (s3, gs, memory, zip ...) list and match.
    first = spec.split("::", 1)[0]
    return not first.lower().startswith(("http://", "https://")) and _is_pattern(first)


def _companion(path: str, has_session_sibling: bool | None = None, in_export: bool | None = None) -> bool:
    """Files read as part of another file (Claude Code subagent transcripts
    and Gemini CLI sub-agent logs are included by their parent session) or
    holding no session (the
    sidecar files of an unpacked ChatGPT export, the other files of a Claude
    Code session's folder, a Gemini CLI prompt log, a Qwen Code session's runtime sidecar, the files of a Codex
    home beside its sessions, the other JSON files of a Cline task), so a directory walk skips them.  ``has_session_sibling``:
    whether the file's folder holds a session file, when the caller knows
    (a walk lists each folder once; asking per file made a folder of
    6,000 agent files take 40 s); ``in_export`` the same for a ChatGPT
    export's folder."""
    parts = path.replace(os.sep, "/").split("/")
    name = parts[-1]
    agent_file = name.startswith("agent-") and name.endswith((".jsonl", ".meta.json"))
    if agent_file and (
        len(parts) >= 2 and parts[-2] == "subagents"
        or (has_session_sibling if has_session_sibling is not None else _has_session_sibling(path))
    ):
        return True
    from sessionport.formats.claude_code.subagents import in_session_folder

    if in_session_folder(path):
        return True  # the subagents, workflow runs and tool results of a Claude Code session
    if len(parts) >= 3 and parts[-3] == "chats":
        from sessionport.formats.gemini_cli.layout import is_subagent_log

        if is_subagent_log(path):
            return True  # a Gemini CLI sub-agent's log, read after its parent's
    if name in ("history.jsonl", "auth.json", "version.json"):
        from sessionport.formats.codex.home import is_home_file

        if is_home_file(path):
            return True  # Codex's log of the prompts (each also in a rollout), login, update check
    if name.endswith(".json"):
        from sessionport.formats.chatgpt.export_folder import is_export_sidecar
        from sessionport.formats.gemini_cli.layout import is_prompt_log
        from sessionport.formats.providers.cline import is_task_sidecar
        from sessionport.formats.qwen_code.layout import is_runtime_sidecar

        # user.json, export_manifest.json... of a ChatGPT export; a Gemini
        # CLI project's prompt log beside its chats; ui_messages.json... of
        # a Cline task; a running Qwen Code session's process sidecar
        return is_export_sidecar(path, in_export) or is_prompt_log(path) or is_task_sidecar(path) or is_runtime_sidecar(path)
    return False


def _has_session_sibling(path: str) -> bool:
    try:
        return _holds_session_file(os.listdir(os.path.dirname(path)))
    except OSError:
        return False


def _holds_session_file(names: Sequence[str]) -> bool:
    return any(n.endswith(".jsonl") and not n.startswith("agent-") for n in names)


def walk(directory: str, globs: Sequence[str] = DEFAULT_GLOBS) -> list[Source]:
    """The session files under ``directory``, sorted, hidden ones left out
    but for agent homes (``.claude``, ``.codex``...), of which only the
    session folders are walked (:mod:`sessionport.pipeline.homes`)."""
    from sessionport.formats.chatgpt.export_folder import document_folders
    from sessionport.pipeline.homes import HIDDEN_HOMES, session_folders

    found = []
    for root, dirs, files in os.walk(directory):
        listed = [*files, *dirs]  # what os.listdir gives, before hidden folders are left out
        folder = os.path.basename(os.path.abspath(root))
        home = session_folders(folder, dirs, files)
        if home is not None:
            dirs[:] = sorted(home)
            continue  # the app's own state beside its sessions: settings, prompt history, logins
        if root != directory and folder.startswith("."):
            dirs[:] = []
            continue  # named as a home but none: a project's own settings (.claude/settings.json, commands/)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") or d in HIDDEN_HOMES)
        documents = document_folders(dirs, listed)  # a ChatGPT export's canvas documents (2026)
        if documents:
            dirs[:] = [d for d in dirs if d not in documents]
        sibling = export = None  # whether this folder holds a session file, is a ChatGPT export's: looked at once
        for name in sorted(files):
            if name.startswith(".") or not any(fnmatch.fnmatch(name, g) for g in globs):
                continue
            path = os.path.join(root, name)
            if sibling is None and name.startswith("agent-"):
                sibling = _holds_session_file(listed)
            if export is None and name.endswith(".json"):
                from sessionport.formats.chatgpt.export_folder import is_export_folder

                export = is_export_folder(listed)
            if _companion(path, sibling, export):
                continue
            if os.path.exists(path) and not os.path.isfile(path):
                continue  # a named pipe (opening it would wait for a writer) or a device
            found.append(Source(path, os.path.relpath(path, directory)))
    return found


def _pattern_base(pattern: str) -> str:
    """The folder part of a pattern before its first wildcard."""
    head = pattern
    for c in PATTERN_CHARS:
        head = head.split(c, 1)[0]
    return head.rsplit("/", 1)[0] if "/" in head else ""


def _local_pattern(spec: str) -> list[Source]:
    import glob as local_glob  # only a pattern input needs it

    # ``file://`` + pattern is the same pattern: matched as given it named
    # nothing, and a --json-report beside it replaced a file it names.
    pattern = spec[len("file://") :] if spec.startswith("file://") else spec
    paths = sorted(p for p in local_glob.glob(pattern, recursive=True) if os.path.isfile(p))
    if not paths:
        raise UsageError(f"{spec}: no files match this pattern")
    base = _pattern_base(pattern)
    return [Source(p, os.path.relpath(p, base) if base else p) for p in paths]


def _url_name(spec: str) -> str:
    first = spec.split("::", 1)[0]
    if first.lower().startswith(("http://", "https://")):
        from urllib.parse import urlsplit

        path = urlsplit(first).path
    else:
        path = first.split("://", 1)[1]
    return os.path.basename(path.rstrip("/")) or "input"


def _url_pattern(spec: str) -> list[Source]:
    """A URL pattern (``s3://bucket/sessions/**/*.jsonl``) as sorted sources;
    a chained pattern (``zip://*.jsonl::export.zip``) keeps its chain, so
    each member is opened inside the same archive."""
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{spec}: reading URLs needs fsspec: pip install 'sessionport[remote]'") from None
    pattern, _, chain = spec.partition("::")
    protocol, _, pattern_path = pattern.partition("://")
    try:
        fs, _, paths = fsspec.get_fs_token_paths(spec)
    except ValueError as exc:
        hint = "; to match at any depth write '**/' as a whole folder (s3://bucket/**/*.jsonl)" if "**" in pattern_path else ""
        raise UsageError(f"{spec}: not a pattern that can be matched: {exc}{hint}") from None
    except ImportError as exc:
        raise UsageError(f"{spec}: this kind of URL needs another package: {exc}") from None
    except FileNotFoundError:
        raise UsageError(f"{spec}: no such file") from None
    base = _pattern_base(pattern_path).strip("/")
    found = []
    for path in sorted(p for p in paths if not fs.isdir(p)):
        stripped = path.strip("/")
        relative = os.path.relpath(stripped, base) if base else stripped
        member = f"{protocol}://{stripped}::{chain}" if chain else fs.unstrip_protocol(path)
        found.append(Source(member, relative))
    if not found:
        raise UsageError(f"{spec}: no files match this pattern")
    return found


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)


def _reference(spec: str, home: str | None) -> tuple[list[Source], bool]:
    """``@all`` (every session, a batch) or ``@ID-PREFIX`` (exactly one session)."""
    from sessionport.pipeline.discover import discover

    prefix = spec[1:]
    if not prefix:
        raise UsageError("@ needs a session id prefix, or @all")
    if prefix == "all":
        found = list(discover(home))
        if not found:
            raise UsageError("@all: no sessions found on this machine; `sessionport ls` says where it looks")
        return [Source(f.path, f.relative) for f in found], True
    matches = [f for f in discover(home) if (f.sessionId or "").startswith(prefix)]
    exact = [f for f in matches if f.sessionId == prefix]
    if len(exact) == 1:
        matches = exact
    if not matches:
        raise UsageError(f"{spec}: no session on this machine has an id starting with {prefix!r}; `sessionport ls` lists them")
    if len(matches) > 1:
        lines = []
        for f in matches:
            prompt = _printable(f.prompt or "")
            if len(prompt) > CANDIDATE_PROMPT:
                prompt = prompt[: CANDIDATE_PROMPT - 1] + "…"
            lines.append(f"  {f.sessionId}  {f.source}  {f.start or '-'}  {prompt or '-'}")
        raise UsageError(
            f"{spec}: {len(matches)} sessions have an id starting with {prefix!r}; give more of the id "
            "(or @all for every session):\n" + "\n".join(lines)
        )
    return [Source(matches[0].path, matches[0].relative)], False
