"""Every shell example of the README and the cookbook, run as a new user runs it.

The fenced ``sh`` blocks are read from the pages (continued lines joined);
each line is run with bash in a workspace holding the files the examples
name, with HOME pointing at a home whose ~/.claude/projects and
~/.codex/sessions hold sessions (made from the project's own fixtures), so
``ls`` and ``@ID`` find them.  Each example has an expectation below: its exit
status and what the text says it makes (a file where it says a file, a
directory where it says one, the output it describes).  An example on a page
with no expectation here fails the test, so a new example gets one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import orjson
import pytest
import zstandard

from conftest import FIXTURES, ROOT

def _id_and_tokens_rows(out: str) -> bool:
    """jq's rows of ``[sessionId, total_tokens]``, one JSON array each."""
    decoder, rows, at = json.JSONDecoder(), [], 0
    text = out.strip()
    while at < len(text):
        row, at = decoder.raw_decode(text, at)
        rows.append(row)
        while at < len(text) and text[at].isspace():
            at += 1
    return bool(rows) and all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and isinstance(r[1], int) for r in rows)


PAGES = ("README.md", "docs/cookbook.md")
CLAUDE_ID = "5f0c1e2a-0000-4000-8000-000000000001"
CODEX_ID = "019a3f00-0000-7000-8000-000000000001"
FIXTURE_CODEX_ID = "019a9f00-0000-7000-8000-000000000001"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def shell_examples(page: str) -> list[str]:
    """The command lines of a page's ``sh`` blocks, comments and blanks left out."""
    text = (ROOT / page).read_text()
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        pending = ""
        for raw in block.splitlines():
            line = raw.strip()
            if not pending and (not line or line.startswith("#")):
                continue
            if line.endswith("\\"):
                pending += line[:-1].rstrip() + " "
                continue
            lines.append(re.sub(r"\s{2,}#.*$", "", pending + line).strip())
            pending = ""
    return lines


# --- the workspace -------------------------------------------------------------

def _codex_rollout(day: datetime) -> bytes:
    """The Codex fixture as a rollout of ``day`` with the id the examples use."""
    data = (FIXTURES / "codex" / "rollout-envelope.jsonl").read_text()
    data = data.replace(FIXTURE_CODEX_ID, CODEX_ID).replace("2025-11-20", day.strftime("%Y-%m-%d"))
    return data.encode()


def _claude_session() -> bytes:
    """The Claude Code fixture, started in /src/shop, with a token in a prompt."""
    out = []
    for line in (FIXTURES / "claude-code" / "session.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        if record.get("sessionId"):
            record["sessionId"] = CLAUDE_ID
        if record.get("cwd"):
            record["cwd"] = "/src/shop"
        message = record.get("message")
        if record.get("type") == "user" and isinstance(message, dict) and isinstance(message.get("content"), str):
            message["content"] += f" The token is {SECRET}."
        out.append(orjson.dumps(record))
    return b"\n".join(out) + b"\n"


def _chatgpt_zip(path: Path) -> None:
    conversations = json.loads((FIXTURES / "chatgpt-export" / "conversations.json").read_text())
    conversations[1]["title"] = "Tax return questions"  # for the cookbook's --title '(?i)tax'
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", json.dumps(conversations))


def _big_stream(path: Path, messages: int = 40_000) -> None:
    lines = (FIXTURES / "portable-jsonl" / "session.jsonl").read_bytes().splitlines()
    body = [l for l in lines if b'"type":"message"' in l]
    with path.open("wb") as out:
        out.write(lines[0] + b"\n")
        for i in range(messages):
            out.write(body[i % len(body)] + b"\n")
        out.write(lines[-1] + b"\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("examples")
    home, work = root / "home", root / "work"
    work.mkdir()
    recent = datetime.now(timezone.utc) - timedelta(days=1)
    project = home / ".claude" / "projects" / "-src-shop"
    project.mkdir(parents=True)
    claude = _claude_session()
    (project / "5f0c1e2a.jsonl").write_bytes(claude)
    day = home / ".codex" / "sessions" / recent.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    rollout = _codex_rollout(recent)
    (day / f"rollout-{recent.strftime('%Y-%m-%dT%H-%M-%S')}-{CODEX_ID}.jsonl").write_bytes(rollout)
    (work / "session.jsonl").write_bytes(claude)
    (work / "rollout-2025-10-17.jsonl").write_bytes(rollout)
    (work / "rollout.jsonl").write_bytes(rollout)
    (work / "rollout-2025-10-17T22-40-02-0199f41d.jsonl").write_bytes(rollout)
    for name in ("rollout-2025-10-17.jsonl.zst", "rollout.jsonl.zst"):
        (work / name).write_bytes(zstandard.ZstdCompressor().compress(rollout))
    _chatgpt_zip(work / "chatgpt-export.zip")
    _big_stream(work / "big.jsonl")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": "",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    env.pop("SESSIONPORT_DEBUG", None)
    return work, env


# --- what each example must do --------------------------------------------------

@dataclass
class Expect:
    code: int = 0
    files: tuple[str, ...] = ()          # paths that must be regular files afterwards
    dirs: tuple[str, ...] = ()           # paths that must be directories holding files
    stdout: Callable[[str], bool] | None = None
    quiet: bool = False                  # nothing on stderr
    says: str | None = None              # words that stdout or stderr must hold
    after: tuple[str, ...] = ()          # examples that must have run first (same page)
    skip: str | None = None
    xfail: str | None = None


def markdown(text: str) -> bool:
    """A Markdown page of sessionport's: a heading per session, an end line."""
    return bool(re.search(r"^# \S", text, re.M)) and "*End of session:" in text


def tsv_rows(text: str) -> bool:
    rows = [l.split("\t") for l in text.splitlines() if l.strip()]
    return bool(rows) and all(len(r) >= 5 for r in rows)


PIPELINE = "waits for the output rule: an @ID that names one session is one input, so -o is a file"
OUTPUT_FILE = "waits for the output rule: -o ending in the format's extension is one file holding the combined stream"

EXPECT: dict[str, Expect] = {
    # README
    "pip install . && sessionport convert fixtures/claude-code/session.jsonl --to markdown": Expect(skip="installs the package"),
    "pip install '.[test]' && pytest": Expect(skip="installs the package and runs this suite"),
    "sessionport convert ~/.claude/projects/-src-shop/5f0c1e2a.jsonl --to markdown -o session.md": Expect(files=("session.md",)),
    "sessionport convert rollout-2025-10-17.jsonl.zst --to html -o session.html": Expect(files=("session.html",)),
    "sessionport inspect rollout-2025-10-17.jsonl": Expect(stdout=lambda out: "messages" in out and "codex" in out),
    "cat session.jsonl | sessionport filter --role tool | sessionport to markdown": Expect(stdout=lambda out: markdown(out) and "**Tool call:** `Bash`" in out and "List the files" not in out),
    "sessionport convert session.jsonl --to portable-jsonl | jq -r 'select(.role==\"user\") | .text'": Expect(
        stdout=lambda out: out.strip().startswith("List the files here, please.")),
    "sessionport convert big.jsonl --to portable-jsonl | head -1": Expect(
        stdout=lambda out: out.count("\n") == 1 and '"type":"session"' in out, quiet=True),
    "sessionport chain -i session.jsonl filter --role user redact to markdown -o prompts.md": Expect(files=("prompts.md",)),
    "sessionport formats": Expect(stdout=lambda out: "claude-code" in out and "agentscope-trace" in out),
    "sessionport ls --source codex --since 7d": Expect(stdout=lambda out: out.startswith("codex\t" + CODEX_ID) and out.count("\n") == 1),
    "sessionport inspect @019a3f": Expect(stdout=lambda out: "codex" in out),
    "sessionport chain -i @019a3f redact to html -o share.html": Expect(files=("share.html",)),
    "sessionport convert ~/.codex/sessions --to markdown -o archive/ --jobs 4": Expect(dirs=("archive",)),
    # cookbook
    "sessionport ls": Expect(stdout=lambda out: tsv_rows(out) and out.count("\n") == 2),
    "sessionport ls --cwd shop --json | jq -r '.[] | \"\\(.sessionId) \\(.prompt)\"'": Expect(
        stdout=lambda out: out.startswith(f"{CLAUDE_ID} List the files here, please.")),
    "sessionport inspect @5f0c1e2a": Expect(stdout=lambda out: "claude-code" in out and "tokens" in out.lower()),
    "sessionport inspect --usage @5f0c1e2a": Expect(stdout=lambda out: "claude-code" in out and "total_tokens=" in out and "messages:" not in out),
    "sessionport chain -i @5f0c1e2a redact filter --no-injected to html -o share.html": Expect(files=("share.html",)),
    "sessionport redact @5f0c1e2a --check --report": Expect(code=1, says="github-token"),
    "sessionport ls --cwd shop --json | jq -r '.[].path' | xargs sessionport convert --to markdown -o archive/": Expect(
        dirs=("archive",)),
    "sessionport convert ~/.codex/sessions --to markdown --front-matter -o vault/codex/ --jobs 4": Expect(dirs=("vault/codex",)),
    "sessionport convert rollout-2025-10-17T22-40-02-0199f41d.jsonl --to openai-chat -o chat.json": Expect(files=("chat.json",)),
    "sessionport convert rollout.jsonl.zst --to anthropic-messages -o messages.json": Expect(files=("messages.json",)),
    "sessionport convert ~/.claude/projects/-src-shop/5f0c1e2a.jsonl --to codex -o rollout.jsonl": Expect(files=("rollout.jsonl",)),
    "sessionport filter ~/.codex/sessions --kind tool_result --grep 'FAIL|failed|Error' --with-results --to markdown -o failures.md": Expect(
        files=("failures.md",)),
    "sessionport split chatgpt-export.zip --to markdown -o chats/": Expect(dirs=("chats",)),
    "sessionport convert chatgpt-export.zip --title '(?i)tax' --to portable -o tax.json": Expect(files=("tax.json",)),
    "sessionport convert session.jsonl --to portable-jsonl | jq -r 'select(.type==\"message\" and .meta.kind==\"tool_use\") | [.toolName, (.toolInput|tostring)] | @tsv'": Expect(
        stdout=lambda out: out.startswith("Bash\t{")),
    "sessionport filter session.jsonl --role user | jq -r 'select(.type==\"message\") | .text'": Expect(
        stdout=lambda out: out.startswith("List the files here, please.") and "null" not in out),
    "sessionport inspect ~/.codex/sessions --json | jq .usage": Expect(stdout=lambda out: isinstance(json.loads(out), dict) and "input_tokens" in out),
    "sessionport inspect --usage ~/.codex/sessions --json | jq '.sessions[] | [.sessionId, .usage.total_tokens]'": Expect(stdout=lambda out: _id_and_tokens_rows(out)),
    "sessionport filter rollout.jsonl --head 10 | sessionport to markdown": Expect(stdout=markdown),
    "sessionport convert @5f0c1e2a --to agentscope-trace -o .agentscope/run.trace.json": Expect(
        files=(".agentscope/run.trace.json",)),
    "sessionport validate .agentscope/run.trace.json": Expect(
        stdout=lambda out: "valid agentscope-trace" in out,
        after=("sessionport convert @5f0c1e2a --to agentscope-trace -o .agentscope/run.trace.json",)),
}


def _cases():
    for page in PAGES:
        for line in shell_examples(page):
            expect = EXPECT.get(line)
            marks = []
            if expect is not None and expect.skip:
                marks.append(pytest.mark.skip(reason=expect.skip))
            if expect is not None and expect.xfail:
                marks.append(pytest.mark.xfail(strict=True, reason=expect.xfail))
            yield pytest.param(page, line, marks=marks, id=f"{page}: {line[:70]}")


def _run(line: str, work: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=work, env=env, capture_output=True, timeout=120)


def _clean(work: Path, expect: Expect) -> None:
    for path in (*expect.files, *expect.dirs):
        target = work / path
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()


@pytest.mark.parametrize("page, line", list(_cases()))
def test_example(page, line, workspace):
    work, env = workspace
    expect = EXPECT.get(line)
    assert expect is not None, f"{page} has an example with no expectation in tests/test_doc_examples.py: {line}"
    for earlier in expect.after:
        _run(earlier, work, env)
    _clean(work, expect)
    done = _run(line, work, env)
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert done.returncode == expect.code, f"exit {done.returncode}, expected {expect.code}: {stderr}"
    for path in expect.files:
        assert (work / path).is_file(), f"{path} is not a file ({'a directory' if (work / path).is_dir() else 'missing'})"
        assert (work / path).stat().st_size > 0
    for path in expect.dirs:
        assert (work / path).is_dir() and any(p.is_file() for p in (work / path).rglob("*")), f"{path} is not a directory of files"
    if expect.stdout is not None:
        out = done.stdout.decode("utf-8", "replace")
        assert expect.stdout(out), f"unexpected output:\n{out[:2000]}"
    if expect.quiet:
        assert stderr == "", stderr
    if expect.says is not None:
        assert expect.says in done.stdout.decode("utf-8", "replace") + stderr, stderr


def test_every_expectation_is_still_an_example():
    lines = {line for page in PAGES for line in shell_examples(page)}
    assert set(EXPECT) <= lines, f"expectations for examples no page has: {sorted(set(EXPECT) - lines)}"


def test_the_readmes_python_example_runs(workspace, tmp_path):
    work, env = workspace
    code = re.search(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M).group(1)
    done = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    page = (work / "prompts.md").read_text()
    assert "List the files here, please." in page and "Bash" not in page
