"""Which programs a shell command line runs, read the way the shell reads it.

A command line is split with :mod:`shlex` (quotes, escapes, and the
operators ``&&``, ``||``, ``|``, ``;``, ``(``, ``)``) into simple commands;
each one's program is found past environment assignments and launchers
(``uv run``, ``npx``, ``python -m``, ``timeout 60``, ...).  A word inside
quotes is an argument, never a program: ``rg "def test_|pytest"`` runs
``rg``, not ``pytest``.  ``bash -lc 'script'`` is read into its script; the
body of a here-document is text, not commands.
"""

from __future__ import annotations

import os
import re
import shlex

# Programs that are a test run, type check or lint by themselves.
RUNNERS = frozenset((
    "pytest", "py.test", "jest", "vitest", "mocha", "rspec", "phpunit", "tox", "nox", "ctest", "tsc", "mypy",
    "pyright", "eslint", "flake8", "pylint", "unittest", "nosetests", "ava", "karma", "playwright",
))
# ``<tool> [run] <task>`` is a test run when the task is one of TASKS.
TASK_TOOLS = frozenset((
    "npm", "yarn", "pnpm", "bun", "deno", "go", "cargo", "make", "mvn", "gradle", "gradlew", "dotnet", "mix",
    "swift", "flutter", "dart", "just",
))
TASKS = frozenset(("test", "tests", "check", "lint", "typecheck", "type-check", "clippy", "verify"))
# ``<tool> <sub>`` that is a test run (``ruff check``).
SUBCOMMAND_RUNNERS = {"ruff": frozenset(("check",))}
# Launchers: ``<launcher> [<sub>] program ...`` runs ``program``.
LAUNCHERS = {
    "uv": "run", "poetry": "run", "pipenv": "run", "hatch": "run", "pdm": "run", "rye": "run",
    "bundle": "exec", "pnpm": "exec",
}
PREFIXES = frozenset(("npx", "bunx", "time", "env", "sudo", "nohup", "exec", "command", "nice", "xvfb-run"))
SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh"))
# Programs whose output is what they read or list, never a test run's report.
READERS = frozenset((
    "rg", "grep", "egrep", "fgrep", "ag", "ack", "cat", "head", "tail", "less", "more", "ls", "find", "fd", "sed",
    "awk", "wc", "echo", "printf", "nl", "bat", "tree", "jq", "sort", "uniq", "cut", "which", "type", "file",
    "stat", "du", "diff",
))
BUILTINS = frozenset(("cd", "pushd", "popd", "export", "set", "true", "false", ":", "unset", "source", "."))
NOT_A_RUN = frozenset(("--version", "--help", "-h", "--collect-only", "--co", "-V"))
OPERATORS = frozenset(("&&", "||", "|", ";", "&", "(", ")", "|&", ";;"))
MAX_DEPTH = 3
MAX_CHARS = 4096


def _without_heredocs(command: str) -> list[str]:
    """The lines of ``command`` without the bodies of its here-documents
    (``cat <<'EOF' ... EOF`` holds text, not commands)."""
    lines: list[str] = []
    ending: str | None = None
    for line in command.split("\n"):
        if ending is not None:
            if line.strip() == ending:
                ending = None
            continue
        lines.append(line)
        found = re.search(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", line)
        if found:
            ending = found.group(2)
    return lines


def _words(command: str) -> list[str] | None:
    # shlex reads a character at a time; a runner is named near the start, and
    # a long heredoc or inline script need not be read to find it.
    cut = len(command) > MAX_CHARS
    text = " ; ".join(_without_heredocs(command[:MAX_CHARS]))
    # A line cut short may end inside quotes: close them to read what came before.
    for ending in ("", '"', "'", "'\"", "\"'") if cut else ("",):
        lexer = shlex.shlex(text + ending, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            return list(lexer)
        except ValueError:  # an unbalanced quote: the line is not shell, or was cut
            continue
    return None


def simple_commands(command: str) -> list[list[str]] | None:
    """``a && b | c`` -> ``[[a...], [b...], [c...]]``; None when it cannot be split."""
    words = _words(command)
    if words is None:
        return None
    commands: list[list[str]] = [[]]
    for word in words:
        if word in OPERATORS or (word and set(word) <= set(";&|()")):
            if commands[-1]:
                commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _program(argv: list[str]) -> list[str]:
    """``argv`` from its program on (assignments and launchers skipped)."""
    i = 0
    while i < len(argv):
        word = argv[i]
        name = os.path.basename(word)
        if "=" in word and not word.startswith("=") and word.split("=", 1)[0].replace("_", "").isalnum():
            i += 1
        elif name in LAUNCHERS and i + 1 < len(argv) and argv[i + 1] == LAUNCHERS[name]:
            i += 2
        elif name in PREFIXES:
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                i += 1
        elif name == "timeout":
            i += 1
            while i < len(argv) and (argv[i].startswith("-") or argv[i][:1].isdigit()):
                i += 1
        elif name.startswith("python") and i + 2 < len(argv) and argv[i + 1] == "-m":
            i += 2
        else:
            return argv[i:]
    return []


def _runs_tests(argv: list[str]) -> bool:
    name = os.path.basename(argv[0])
    rest = argv[1:]
    if name in RUNNERS:
        found = True
    elif name in TASK_TOOLS:
        args = [a for a in rest if not a.startswith("-")]
        if args and args[0] == "run":
            args = args[1:]
        found = bool(args) and args[0].split(":", 1)[0] in TASKS
    elif name in SUBCOMMAND_RUNNERS:
        found = bool(rest) and rest[0] in SUBCOMMAND_RUNNERS[name]
    else:
        found = False
    return found and not NOT_A_RUN & set(rest)


def command_runs_tests(command: str, depth: int = 0) -> bool | None:
    """True: the line runs a test runner; False: it certainly does not (it
    only reads, lists or searches, or asks a runner for its version); None:
    it runs programs whose output may tell (a script, ``make``)."""
    commands = simple_commands(command)
    if commands is None:
        return None
    verdict: bool | None = False
    for argv in commands:
        argv = _program(argv)
        if not argv:
            continue
        name = os.path.basename(argv[0])
        if name in SHELLS and depth < MAX_DEPTH:
            script = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a.startswith("-") and "c" in a), None)
            if script is not None:
                inner = command_runs_tests(script, depth + 1)
                if inner:
                    return True
                if inner is None:
                    verdict = None
                continue
        if _runs_tests(argv):
            return True
        if name in RUNNERS:
            continue  # a runner asked for its version or help
        if name not in READERS and name not in BUILTINS:
            verdict = None
    return verdict
