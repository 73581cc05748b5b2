"""Did a command pass or fail?  Read from its command line and its output.

A command is a *test* when its command line names a test runner, type
checker or linter (:mod:`.shell_words` reads it as the shell would), or
when its output holds a test-runner summary.  Only
tests become ``test_passed`` / ``test_failed``; any other command stays a
``run_command`` whatever its output says (``grep error`` is not a failed
test).  The outcome comes from, in order: an exit code (Codex writes it
into the output, session-json entries may carry it), the tool's error flag,
failure keywords, pass keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from sessionport.agentscope.shell_words import command_runs_tests
from sessionport.agentscope.tools import RUN_COMMAND, TEST_FAILED, TEST_PASSED

_TEST_OUTPUT = re.compile(
    r"^(PASS|FAIL)\s+\S|\b\d+ (passed|failed)\b|^Tests?:\s+\d|^Ran \d+ tests? in|^test result: |"
    r"^(ok|FAIL|---\s+FAIL:)\s+\S+\s+[\d.]+s|\bTest Suites?:",
    re.M,
)
_NO_FAILURE = re.compile(r"\b(0|no|zero) (failed|failures?|errors?)\b|\berrors?: 0\b|\bfailed: 0\b", re.I)
_FAILURE = re.compile(
    r"\b(FAIL|FAILED|FAILURE|failed|failures?|ERROR|errors?|Error|Traceback|AssertionError|panicked)\b"
)
_PASS = re.compile(r"\b(PASS|PASSED|passed|success|successful|succeeded|OK|all tests pass)\b")
_EXIT_CODE = re.compile(
    r"(?:^Exit code:\s*|Process exited with code\s+|exit(?:ed with)? (?:code|status)\s*:?\s*)(-?\d+)", re.I | re.M
)
HEAD_WINDOW = 2048
TAIL_WINDOW = 4096


@dataclass
class CommandResult:
    """A command's output as the trace shows it, and what it says about the run."""

    output: str | None
    exit_code: int | None = None
    duration_ms: float | None = None


def unwrap_output(text: str | None) -> CommandResult:
    """Codex stores some outputs as JSON in a string: ``{"output", "metadata":{exit_code, duration_seconds}}``."""
    if not text:
        return CommandResult(text or None)
    stripped = text.lstrip()
    if stripped.startswith('{"output"'):
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
            code = meta.get("exit_code")
            seconds = meta.get("duration_seconds")
            return CommandResult(
                value["output"],
                code if isinstance(code, int) and not isinstance(code, bool) else None,
                seconds * 1000 if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None,
            )
    result = CommandResult(text)
    match = _EXIT_CODE.search(text[:HEAD_WINDOW]) or _EXIT_CODE.search(text[-HEAD_WINDOW:])
    if match:
        result.exit_code = int(match.group(1))
    return result


def _window(text: str) -> str:
    if len(text) <= HEAD_WINDOW + TAIL_WINDOW:
        return text
    return text[:HEAD_WINDOW] + "\n" + text[-TAIL_WINDOW:]


def is_test(command: str | None, output: str | None) -> bool:
    """A test, type check or lint run: named so by the command line, or, for a
    command line that names no runner, by a test-runner summary in its output.

    The command line is split as the shell splits it (quotes, ``&&``, ``|``,
    ``;``), so a runner's name inside a quoted search pattern is not a run.
    Output counts only when some program in the line could have printed a
    test summary: what ``rg``/``cat``/``ls`` print is the files they read.
    """
    verdict = command_runs_tests(command) if command else None
    if verdict is not None:
        return verdict
    return bool(output and _TEST_OUTPUT.search(_window(output)))


def command_outcome(command: str | None, result: CommandResult, is_error: bool | None) -> str:
    """``test_passed``, ``test_failed`` or ``run_command``."""
    output = result.output or ""
    if not is_test(command, output):
        return RUN_COMMAND
    if result.exit_code is not None:
        return TEST_PASSED if result.exit_code == 0 else TEST_FAILED
    if is_error:
        return TEST_FAILED
    window = _NO_FAILURE.sub(" ", _window(output))
    if _FAILURE.search(window):
        return TEST_FAILED
    if _PASS.search(window):
        return TEST_PASSED
    return RUN_COMMAND
