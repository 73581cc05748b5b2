"""The risk of one action: ``low``, ``medium`` or ``high``, with the reason.

The rules (also in docs/formats/agentscope-trace.md):

- reads, searches, web fetches, plans and summaries: low;
- edits: medium; high when a file lies outside the session's working
  directory (an absolute path elsewhere, ``~``, or ``..`` climbing out);
- commands: high when destructive or far-reaching (:data:`HIGH_RULES`),
  medium when they change state (:data:`MEDIUM_RULES`), else low;
  a failed test is at least medium;
- sub-agents and MCP tools that are not reads: medium (their effects are
  not visible in this run); MCP tools that delete or drop: high.
"""

from __future__ import annotations

import os
import posixpath
import re

from sessionport.agentscope.tools import EDIT_FILE, GENERATE_SUMMARY, READ_FILE, TEST_FAILED, ToolFacts, name_words

LOW, MEDIUM, HIGH = "low", "medium", "high"
RISKS = (LOW, MEDIUM, HIGH)
_ORDER = {LOW: 0, MEDIUM: 1, HIGH: 2}

HIGH_RULES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (label, re.compile(pattern, flags))
    for label, pattern, flags in (
        ("recursive delete (rm -r)", r"\brm\s+(-[^\s]*[rR]|--recursive\b|(-[^\s]+\s+)+-[^\s]*[rR])", 0),
        ("find -delete", r"\bfind\b.*\s-delete\b", 0),
        ("force push", r"\bgit\s+push\b[^;&|]*(\s--force(-with-lease)?\b|\s-f\b|\s\+[\w/.-]+)", 0),
        ("discarding work (git reset --hard / clean -f / checkout -- .)",
         r"\bgit\s+(reset\s+[^;&|]*--hard|clean\s+[^;&|]*-[a-z]*f|checkout\s+(--\s+)?\.(\s|$)|restore\s+\.(\s|$)|branch\s+-D\b)", 0),
        ("dropping database objects (DROP / TRUNCATE)", r"\b(DROP\s+(TABLE|DATABASE|SCHEMA|INDEX|VIEW)|TRUNCATE\s+(TABLE\s+)?\w)", re.I),
        ("piping a download into a shell", r"\b(curl|wget|iwr|irm)\b[^|;]*\|\s*(sudo\s+)?(ba|z|k|da|fi)?sh\b|\b(curl|wget)\b[^|;]*\|\s*(sudo\s+)?(python\d?|perl|ruby|node)\b", 0),
        ("superuser (sudo)", r"(^|[;&|]\s*|\s)sudo\s", 0),
        ("disk or device writes (mkfs / dd / > /dev/)", r"\bmkfs\b|\bdd\b[^;&|]*\bof=/dev/|>\s*/dev/(sd|nvme|disk|hd)", 0),
        ("recursive permission change on a root or home path", r"\bch(mod|own)\s+(-[^\s]*R|--recursive)[^;&|]*\s(/|~)", 0),
        ("shutdown or reboot", r"(^|[;&|]\s*)(sudo\s+)?(shutdown|reboot|halt|poweroff)\b", 0),
        ("destroying infrastructure", r"\b(terraform\s+(destroy|apply)|kubectl\s+delete|helm\s+(uninstall|delete)|"
         r"docker\s+(system\s+prune|volume\s+rm|rm\s+-f)|aws\s+s3\s+(rm|rb)\b|gcloud\s+[^;&|]*\bdelete\b|gh\s+repo\s+delete)", 0),
        ("publishing a package", r"\b(npm|yarn|pnpm|cargo)\s+publish\b|\btwine\s+upload\b|\bgem\s+push\b", 0),
        ("fork bomb", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}", 0),
    )
)

MEDIUM_RULES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (label, re.compile(pattern))
    for label, pattern in (
        ("changes git history or the working tree", r"\bgit\s+(commit|push|merge|rebase|cherry-pick|revert|reset|checkout|switch|stash|tag|am|apply|rm|mv|restore|clean)\b"),
        ("installs or removes packages", r"\b(pip3?|uv|poetry|npm|yarn|pnpm|bun|cargo|go|gem|brew|apt(-get)?|dnf|yum|apk|conda|composer)\s+(install|i|add|remove|uninstall|ci|get|upgrade|update)\b"),
        ("deletes, moves or changes files", r"\b(rm|rmdir|mv|unlink|truncate|chmod|chown|ln)\s|\bsed\s+(-[^\s]*i|--in-place)|\bperl\s+-[^\s]*i"),
        ("writes to a file", r"(^|[^0-9&>=-])>>?\s*(?!/dev/null|&)[\w~./$\"'-]|\btee\s"),
        ("stops processes", r"\b(kill|pkill|killall)\b"),
        ("runs containers or deployments", r"\b(docker|podman|kubectl|helm|terraform)\s+\w"),
        ("sends data to a server", r"\bcurl\b[^;&|]*(-X\s*(POST|PUT|PATCH|DELETE)|--data|-d\s|-F\s)"),
    )
)


def max_risk(a: str, b: str) -> str:
    return a if _ORDER[a] >= _ORDER[b] else b


def command_risk(command: str | None) -> tuple[str, str | None]:
    if not command:
        return LOW, None
    for label, rule in HIGH_RULES:
        if rule.search(command):
            return HIGH, label
    for label, rule in MEDIUM_RULES:
        if rule.search(command):
            return MEDIUM, label
    return LOW, None


def outside_cwd(path: str, cwd: str | None) -> bool:
    """Whether an edited path lies outside the session's working directory."""
    if path.startswith("~"):
        return True
    if re.match(r"^[A-Za-z]:[\\/]", path) or path.startswith("\\"):
        if not cwd:
            return False
        return not path.lower().replace("\\", "/").startswith(cwd.lower().replace("\\", "/").rstrip("/") + "/")
    if path.startswith("/"):
        if not cwd or not cwd.startswith("/"):
            return False
        base = posixpath.normpath(cwd)
        return os.path.commonpath([base, posixpath.normpath(path)]) != base
    return posixpath.normpath(path).startswith("..")


def action_risk(action_type: str, facts: ToolFacts, cwd: str | None) -> tuple[str, str | None]:
    """(risk, reason) for an action; reason is None for the default of its type."""
    if action_type in (READ_FILE, GENERATE_SUMMARY):
        return LOW, None
    if action_type == EDIT_FILE:
        outside = [f for f in facts.files or ([facts.file] if facts.file else []) if outside_cwd(f, cwd)]
        if outside:
            return HIGH, f"edits outside the session's working directory: {', '.join(outside[:5])}"
        if facts.mcp and name_words(facts.name) & {"delete", "drop", "remove", "destroy"}:
            return HIGH, "an MCP tool that deletes"
        return MEDIUM, None
    risk, reason = command_risk(facts.command)
    if facts.mcp or facts.kind == "agent":
        words = name_words(facts.name)
        if facts.mcp and words & {"delete", "drop", "remove", "destroy", "purge"}:
            return HIGH, "an MCP tool that deletes"
        risk, reason = max_risk(risk, MEDIUM), reason or ("a sub-agent acts outside this timeline" if facts.kind == "agent" else "an external (MCP) tool")
    if action_type == TEST_FAILED and risk == LOW:
        return MEDIUM, "a failing test"
    return risk, reason
