"""A second attack on the command line, as real processes where it can be:
the pieces of one big rollout read by workers (a failing piece, a signal),
click's own usage errors quoting what was typed, and the other paths of the
run named in its messages."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import FIXTURES, run_cli
from sessionport.pipeline import chunks

ROLLOUT = FIXTURES / "codex" / "rollout-envelope.jsonl"
CLAUDE = FIXTURES / "claude-code" / "session.jsonl"
PORTABLE_SESSION = FIXTURES / "portable-jsonl" / "session.jsonl"
ESCAPES = "\x1b]0;PWNED\x07\x1b[2J\u202e"


def _bad_rollout(tmp_path, at: int = 3):
    lines = ROLLOUT.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "rollout-bad.jsonl"
    bad.write_bytes(b"".join(lines[:at]) + b"{not json\n" + b"".join(lines[at:]))
    return bad


# -- pieces (--jobs on one big rollout) ---------------------------------------

def test_a_failing_piece_ends_the_workers_before_their_folder_goes(tmp_path, monkeypatch):
    """A piece's error leaves workers reading ahead: they end while their
    temporary folder is still there, and then it goes (a worker starting a
    piece while the folder was being removed left its file behind and put
    the removal's "Directory not empty" in place of the piece's error)."""
    import tempfile

    from sessionport.errors import DataError
    from sessionport.pipeline import batch
    from sessionport.pipeline.run import Reading, Sink, run

    bad = _bad_rollout(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv(chunks.MIN_SIZE_ENV, "1")
    monkeypatch.setenv(chunks.CHUNK_SIZE_ENV, "1")
    monkeypatch.setenv(chunks.WARM_UP_ENV, "0")
    seen = []
    real = batch._end_workers

    def ending(pool):
        seen.append(os.listdir(scratch))
        real(pool)

    monkeypatch.setattr(batch, "_end_workers", ending)
    with pytest.raises(DataError):
        run([str(bad)], reading=Reading(strict=True), sink=Sink("markdown", str(tmp_path / "out.md")), jobs=2)
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0].startswith("sessionport-split-"), seen
    assert os.listdir(scratch) == [] and not (tmp_path / "out.md").exists()


@pytest.mark.parametrize("to", ["portable-jsonl", "markdown"])
def test_a_failing_piece_gives_its_own_error_and_leaves_no_temporary_file(to, tmp_path):
    bad = _bad_rollout(tmp_path, at=5)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch), chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "1", chunks.WARM_UP_ENV: "0"}
    for _ in range(3):
        result = run_cli("convert", bad, "--to", to, "--jobs", "4", "-o", tmp_path / "out", env=env)
        assert result.returncode == 1, result.stderr
        (line,) = result.stderr.decode().splitlines()
        assert "line 6: expected a JSON object" in line and "--skip-bad" in line
        assert os.listdir(scratch) == [] and not (tmp_path / "out").exists()


# -- click's own usage errors --------------------------------------------------

@pytest.mark.parametrize(
    "args",
    [["ls", ESCAPES], [f"--x{ESCAPES}"], ["convert", f"--x{ESCAPES}"], ["chain", "-i", str(CLAUDE), "redact", f"--x{ESCAPES}"],
     ["inspect", str(CLAUDE), "--usage", ESCAPES, "extra"]],
    ids=["extra-argument", "group-option", "command-option", "chain-option", "inspect-extra"],
)
def test_a_usage_error_shows_what_was_typed_as_visible_escapes(args, tmp_path):
    """``sessionport ls *`` in a folder holding a file named with terminal
    codes: click's message quoted the name raw (window title, clear screen)."""
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert b"\x1b" not in result.stderr and "\u202e".encode() not in result.stderr, result.stderr
    assert b"\\x1b]0;PWNED\\x07" in result.stderr


# -- split ---------------------------------------------------------------------

def test_split_names_many_sessions_of_one_title_in_linear_time():
    """The next free ``-N`` was searched from 1 for every session: 32,000
    sessions of one title and id (a 3 MB stream) took over two minutes in
    names alone."""
    import time

    from sessionport.pipeline.split import session_file_name

    taken, tried = set(), {}
    started = time.perf_counter()
    names = [session_file_name({"title": "t", "sessionId": "same"}, ".jsonl", taken, n, tried) for n in range(30_000)]
    assert time.perf_counter() - started < 5
    assert names[:3] == ["t-same.jsonl", "t-same-2.jsonl", "t-same-3.jsonl"] and names[-1] == "t-same-30000.jsonl"
    assert len(set(names)) == 30_000
    # a title that is another's stem with a number still gets a name of its own
    assert session_file_name({"title": "t same 5"}, ".jsonl", taken, 1, tried) == "t-same-5-2.jsonl"


def test_split_of_many_sessions_of_one_title_writes_each(tmp_path):
    stream = tmp_path / "many.jsonl"
    with open(stream, "w") as f:
        for _ in range(1500):
            f.write('{"type":"session","schema":"sessionport/v1","source":"claude-code","sessionId":"same","title":"t"}\n'
                    '{"type":"message","role":"user","text":"hi"}\n')
    result = run_cli("split", stream, "--to", "portable-jsonl", "-o", tmp_path / "out", "-q")
    assert result.returncode == 0, result.stderr
    names = os.listdir(tmp_path / "out")
    assert len(names) == 1500 and "t-same-1500.jsonl" in names


# -- many calls waiting for their results ---------------------------------------

def _waiting_calls(path, n: int) -> None:
    """``n`` calls answered in reverse order, then ``n`` calls of one tool
    answered by results without an id naming another tool."""
    import json

    with open(path, "w") as f:
        f.write('{"type":"session","schema":"sessionport/v1","source":"claude-code","sessionId":"s1","title":"t","createdAt":"2025-01-01T00:00:00Z"}\n')
        for i in range(n):
            f.write(json.dumps({"type": "message", "role": "tool", "text": "x", "toolName": "Bash", "toolCallId": f"c{i}", "toolInput": {"command": "ls"}, "meta": {"kind": "tool_use"}}) + "\n")
        for i in reversed(range(n)):
            f.write(json.dumps({"type": "message", "role": "tool", "text": "r", "toolCallId": f"c{i}", "meta": {"kind": "tool_result"}}) + "\n")
        f.write('{"type":"message","role":"user","text":"next"}\n')
        for i in range(n):
            f.write(json.dumps({"type": "message", "role": "tool", "text": "x", "toolName": "Y", "toolCallId": f"y{i}", "toolInput": {}, "meta": {"kind": "tool_use"}}) + "\n")
        for i in range(n):
            f.write(json.dumps({"type": "message", "role": "tool", "text": "r", "toolName": "X", "meta": {"kind": "tool_result"}}) + "\n")


@pytest.mark.parametrize("to", ["gemini", "gemini-cli", "openai-chat", "anthropic-messages", "openai-responses"])
def test_many_calls_waiting_for_results_are_written_in_linear_time(to, tmp_path):
    """Each result searched a list of the calls still waiting (and each call
    the calls of its turn): 30,000 such calls (6 MB) took 30 s to several
    minutes to write; now a few seconds."""
    import time

    source = tmp_path / "calls.jsonl"
    _waiting_calls(source, 30_000)
    started = time.monotonic()
    result = run_cli("convert", source, "--to", to, "-o", tmp_path / "out", "-q")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 20, "quadratic in the calls waiting"
    written = (tmp_path / "out").read_bytes()
    assert written.count(b'"c29999"') >= 2 and b'"y29999"' in written, "the last call is written with its result"


# -- file:// patterns -------------------------------------------------------------

def test_a_file_url_pattern_names_its_files_and_the_report_never_replaces_one(tmp_path):
    """``file:///dir/*.jsonl`` matched nothing (the prefix was globbed as a
    folder name), so the --json-report check saw no input, and the report of
    that failure replaced the very file the pattern names."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(CLAUDE, folder / "a.jsonl")
    before = (folder / "a.jsonl").read_bytes()
    pattern = f"file://{folder}/*.jsonl"
    refused = run_cli("convert", pattern, "--to", "markdown", "-o", f"{tmp_path}/out/", "--json-report", folder / "a.jsonl")
    assert refused.returncode == 2 and b"refusing to write the report onto an input" in refused.stderr, refused.stderr
    assert (folder / "a.jsonl").read_bytes() == before
    converted = run_cli("convert", pattern, "--to", "markdown", "-o", f"{tmp_path}/out/", "-q")
    assert converted.returncode == 0, converted.stderr
    assert os.listdir(tmp_path / "out") == ["a.md"]


def test_split_force_never_writes_through_a_link_to_outside_its_folder(tmp_path):
    """A link planted in the output folder under a session's (predictable)
    file name: --force wrote the session over the link's target, outside
    the folder."""
    probe = run_cli("split", CLAUDE, "--to", "markdown", "-o", tmp_path / "probe", "-q")
    assert probe.returncode == 0, probe.stderr
    (name,) = os.listdir(tmp_path / "probe")
    victim = tmp_path / "victim.md"
    victim.write_text("keep me")
    folder = tmp_path / "out"
    folder.mkdir()
    os.symlink(victim, folder / name)
    result = run_cli("split", CLAUDE, "--to", "markdown", "-o", folder, "--force")
    assert result.returncode == 2 and b"resolves outside" in result.stderr, result.stderr
    assert victim.read_text() == "keep me" and os.path.islink(folder / name)
    # a link to a file inside the folder is written through, as -o writes a link's target
    (folder / name).unlink()
    (folder / "kept.md").write_text("old")
    os.symlink("kept.md", folder / name)
    inside = run_cli("split", CLAUDE, "--to", "markdown", "-o", folder, "--force", "-q")
    assert inside.returncode == 0, inside.stderr
    assert (folder / "kept.md").read_bytes() == (tmp_path / "probe" / name).read_bytes()


def test_import_session_shows_the_path_it_wrote_with_terminal_codes_escaped(tmp_path):
    target = tmp_path / f"trace{ESCAPES}.json"
    result = run_cli("import-session", FIXTURES / "session-json" / "agent-session.json", "-o", target)
    assert result.returncode == 0, result.stderr
    assert target.is_file()
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout and "\u202e".encode() not in result.stdout
    assert b"AgentScope trace written to " in result.stdout and b"\\x1b]0;PWNED\\x07" in result.stdout


# -- invalid UTF-8 and a lone surrogate in one line ------------------------------

@pytest.mark.parametrize("fixture", ["claude-code/session.jsonl", "codex/rollout-envelope.jsonl", "portable-jsonl/session.jsonl"])
def test_a_bad_byte_and_a_cut_emoji_in_one_line_cost_their_characters_not_the_record(fixture, tmp_path):
    """Each alone was replaced with U+FFFD; both in one line made the record
    unreadable (exit 1, the record lost)."""
    lines = (FIXTURES / fixture).read_bytes().split(b"\n")
    at = next(n for n, line in enumerate(lines) if b'"text":"' in line)
    lines[at] = lines[at].replace(b'"text":"', b'"text":"\xff\\ud83d', 1)
    damaged = tmp_path / os.path.basename(fixture)
    damaged.write_bytes(b"\n".join(lines))
    clean = run_cli("convert", FIXTURES / fixture, "--to", "portable-jsonl")
    result = run_cli("convert", damaged, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"invalid UTF-8 replaced" in result.stderr and b"lone UTF-16 surrogate" in result.stderr
    assert result.stdout.count(b"\n") == clean.stdout.count(b"\n"), "every event is kept"
    assert "\ufffd\ufffd".encode() in result.stdout


# -- stdin redirected from the file -o names -----------------------------------------

@pytest.mark.parametrize(
    "args",
    [["convert", "-", "--to", "claude-code", "-o", "OUT"], ["convert", "--to", "markdown", "-o", "OUT"], ["redact", "-o", "OUT"],
     ["chain", "redact", "to", "claude-code", "-o", "OUT"], ["to", "markdown", "-o", "OUT"], ["import-session", "-", "-o", "OUT"],
     ["convert", "-", "--to", "markdown", "-o", "x.md", "--json-report", "OUT"]],
    ids=["convert", "convert-default-stdin", "redact", "chain", "to", "import-session", "json-report"],
)
def test_an_output_onto_the_file_stdin_reads_is_refused(args, tmp_path):
    """``sessionport convert - -o s.jsonl < s.jsonl`` replaced the session
    with its conversion (a Markdown page, say), exit 0: the file stdin reads
    is an input too, though no argument names it."""
    import subprocess
    import sys

    from conftest import ROOT

    session = tmp_path / "s.jsonl"
    shutil.copy(CLAUDE if args[0] != "import-session" else FIXTURES / "session-json" / "agent-session.jsonl", session)
    before = session.read_bytes()
    command = [str(session) if a == "OUT" else str(tmp_path / a) if a == "x.md" else a for a in args]
    with open(session, "rb") as stdin:
        result = subprocess.run([sys.executable, "-m", "sessionport", *command], stdin=stdin, capture_output=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    assert b"refusing to write the" in result.stderr and b"onto" in result.stderr
    assert session.read_bytes() == before
    # through a pipe, or into another file, it is written as before
    with open(session, "rb") as stdin:
        other = subprocess.run([sys.executable, "-m", "sessionport", *[str(tmp_path / "t.out") if a == str(session) else a for a in command]],
                               stdin=stdin, capture_output=True, cwd=ROOT, timeout=120)
    assert other.returncode == 0, other.stderr


# -- the scratch files of a combined batch -------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a pipe to stall the writer")
def test_a_stalled_combined_batch_holds_a_few_inputs_in_scratch_files_not_all(tmp_path):
    """The workers of a batch into one stream converted every input ahead
    of the writer: with the output stalled (a slow pipe, a slow disk), the
    scratch folder grew to a copy of the whole batch (on a tmpfs, in
    memory)."""
    import subprocess
    import sys
    import time

    from conftest import ROOT

    session = PORTABLE_SESSION.read_text()
    lines = session.splitlines(keepends=True)
    folder = tmp_path / "in"
    folder.mkdir()
    for n in range(60):
        body = "".join(line.replace("5f0c1e2a-0000-4000-8000-000000000001", f"5f0c1e2a-0000-4000-8000-{n:06d}{k:06d}") for k in range(30) for line in lines)
        (folder / f"s{n:02d}.jsonl").write_text(body)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    env.pop("SESSIONPORT_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "sessionport", "convert", str(folder), "--to", "html", "--jobs", "2", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    try:
        most = 0
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:  # nobody reads stdout: the writer stalls once the pipe is full
            held = [name for folder_name in os.listdir(scratch) if folder_name.startswith("sessionport-batch-")
                    for name in os.listdir(scratch / folder_name)] if scratch.exists() else []
            most = max(most, len(held))
            time.sleep(0.2)
    finally:
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.count(b'<section class="session"') == 60 * 30
    assert 0 < most <= 2 * 2 + 2, f"{most} inputs' events waited in scratch files"
    assert os.listdir(scratch) == []


def test_pieces_copied_to_the_output_hold_a_bounded_part_of_the_input_in_scratch(tmp_path, monkeypatch):
    """Copied pieces were a quarter of the input per worker each, and twice
    as many as the workers read ahead: a 100 GB rollout on two cores kept
    about 60 GB in $TMPDIR (a tmpfs: memory).  Pieces are now at most
    MAX_COPIED_CHUNK, and those read ahead hold about AHEAD_BUDGET."""
    import subprocess
    import sys
    import tempfile

    from conftest import ROOT
    from sessionport.pipeline.run import Reading, Sink, run

    rollout = tmp_path / "rollout-generated.jsonl"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "codex", "3MB", str(rollout)], check=True)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv(chunks.MIN_SIZE_ENV, "1")
    monkeypatch.delenv(chunks.CHUNK_SIZE_ENV, raising=False)
    monkeypatch.setattr(chunks, "MIN_CHUNK", 1)
    monkeypatch.setattr(chunks, "MAX_COPIED_CHUNK", 64 << 10)
    monkeypatch.setattr(chunks, "AHEAD_BUDGET", 128 << 10)
    held, copied = [], []
    real = chunks._copy

    def copy(path, out):
        held.append(sum(len(os.listdir(scratch / d)) for d in os.listdir(scratch)))
        copied.append(os.path.getsize(path))
        real(path, out)

    monkeypatch.setattr(chunks, "_copy", copy)
    run([str(rollout)], reading=Reading(quiet=True), sink=Sink("portable-jsonl", str(tmp_path / "out.jsonl")), jobs=2)
    one = run_cli("convert", rollout, "--to", "portable-jsonl", "--jobs", "1")
    assert (tmp_path / "out.jsonl").read_bytes() == one.stdout
    assert len(copied) >= 40, "pieces of at most 64 KiB"
    assert max(held) <= 2 + 1, f"at most two pieces ahead of the one copied: {max(held)}"
    assert os.listdir(scratch) == []


# -- ls reads the beginning of each file ---------------------------------------------

def test_ls_reads_only_the_beginning_of_a_file_without_a_prompt(tmp_path, monkeypatch):
    """A Claude Code file of records that yield no event (snapshots) was
    read to its end by `ls` (and by every @ID look-up): 50 MB in 1.6 s, so a
    few big ones took minutes.  It now reads HEAD_BYTES of each file."""
    import json

    from sessionport.pipeline import discover

    folder = tmp_path / "home" / ".claude" / "projects" / "p"
    folder.mkdir(parents=True)
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    snapshot = json.dumps({"type": "file-history-snapshot", "messageId": "m", "snapshot": {"messageId": "m", "trackedFileBackups": {}, "timestamp": "2025-01-01T00:00:00Z"}, "isSnapshotUpdate": False}).encode() + b"\n"
    (folder / "late.jsonl").write_bytes(snapshot * 2000 + b"".join(lines))
    (folder / "early.jsonl").write_bytes(b"".join(lines) + snapshot * 2000)
    monkeypatch.setattr(discover, "HEAD_BYTES", len(snapshot) * 1000)
    found = {os.path.basename(f.path): f for f in discover.discover(home=str(tmp_path / "home"))}
    assert found["early.jsonl"].prompt and found["early.jsonl"].sessionId
    assert found["late.jsonl"].prompt is None, "past the head: not read"
    assert found["late.jsonl"].size == (folder / "late.jsonl").stat().st_size
    listed = run_cli("ls", "--json", env={"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": ""})
    assert listed.returncode == 0, listed.stderr
    assert {os.path.basename(entry["path"]) for entry in json.loads(listed.stdout)} == {"early.jsonl", "late.jsonl"}


def test_a_folder_of_many_agent_files_is_walked_in_linear_time(tmp_path):
    """Each agent-*.jsonl file listed its whole folder again to learn whether
    a session file is beside it: 6,000 of them took 40 s to walk."""
    import time

    folder = tmp_path / "project"
    folder.mkdir()
    for n in range(6000):
        (folder / f"agent-{n:05d}.jsonl").touch()
    started = time.monotonic()
    result = run_cli("inspect", folder, "-q")
    assert time.monotonic() - started < 30, "quadratic in the folder's files"
    assert result.returncode == 0, result.stderr
    # beside a session file they are the session's, left out of the walk
    shutil.copy(CLAUDE, folder / "session.jsonl")
    from sessionport.pipeline.inputs import walk

    assert [s.relative for s in walk(str(folder))] == ["session.jsonl"]


def test_a_folder_of_many_json_files_is_walked_in_linear_time(tmp_path):
    """Each .json file listed its folder again (and matched every name) to
    learn whether it sits in an unpacked ChatGPT export: 6,000 took 50 s."""
    import time

    from sessionport.pipeline.inputs import walk

    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(6000):
        (folder / f"x{n:05d}.json").touch()
    started = time.monotonic()
    assert len(walk(str(folder))) == 6000
    assert time.monotonic() - started < 10, "quadratic in the folder's files"
    export = tmp_path / "export"
    export.mkdir()
    for name in ("conversations-000.json", "conversations-001.json", "user.json", "export_manifest.json", "notes.json"):
        (export / name).write_text("[]")
    assert [s.relative for s in walk(str(export))] == ["conversations-000.json", "conversations-001.json"]


# -- one image named by many messages of a ChatGPT export -------------------------------

def _export_naming_one_image(path, messages: int, image: bytes) -> None:
    import json
    import zipfile

    conversation = json.loads((FIXTURES / "chatgpt-export" / "conversations.json").read_text())[0]
    node = next(n for n in conversation["mapping"].values()
                if n.get("message") and isinstance(n["message"].get("content"), dict) and n["message"]["content"].get("content_type") == "multimodal_text")
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["n0"]}}
    for i in range(messages):
        message = json.loads(json.dumps(node["message"]))
        message["id"] = f"n{i}"
        mapping[f"n{i}"] = {"id": f"n{i}", "message": message, "parent": "root" if i == 0 else f"n{i - 1}", "children": [f"n{i + 1}"] if i < messages - 1 else []}
    conversation.update(mapping=mapping, current_node=f"n{messages - 1}")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps([conversation]))
        archive.writestr("file-abc-chart.png", image)
        archive.writestr("user.json", "{}")


def test_an_image_named_by_every_message_of_an_export_is_carried_a_bounded_number_of_times(tmp_path):
    """Messages name an export's image by pointer: a 4 MB export whose 300
    messages all name one 4 MB image wrote 1.2 GB of images (--images DIR)
    and 1.7 GB of portable-jsonl; a longer one, any size."""
    from sessionport.formats.chatgpt.assets import MAX_CARRIED

    image = b"\x89PNG\r\n\x1a\n" + os.urandom(50_000)
    export = tmp_path / "export.zip"
    _export_naming_one_image(export, 40, image)
    images = tmp_path / "img"
    result = run_cli("convert", export, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "out.md")
    assert result.returncode == 0, result.stderr
    assert len(os.listdir(images)) == MAX_CARRIED
    assert all((images / name).read_bytes() == image for name in os.listdir(images))
    assert f"{40 - MAX_CARRIED} image reference(s) kept as placeholders".encode() in result.stderr
    page = (tmp_path / "out.md").read_text()
    assert page.count("image-00") == MAX_CARRIED, "the images carried are linked, the others stay placeholders"
    stream = run_cli("convert", export, "--keep-images", "--to", "portable-jsonl", "-q")
    assert stream.returncode == 0 and stream.stdout.count(b'"media":') == MAX_CARRIED


def test_agent_files_beside_sessions_are_read_once_per_folder_not_once_per_session(tmp_path, monkeypatch):
    """Claude Code 2.0.x keeps agent-*.jsonl beside the sessions: finding a
    session's agents read the head of every agent file of the folder, for
    each session, so a batch over a project folder of 150 sessions and 3,000
    agent files took 14 s (now about 1 s)."""
    import json

    from sessionport.formats.claude_code import subagents

    folder = tmp_path / "project"
    folder.mkdir()
    ids = [f"00000000-0000-4000-8000-{n:012d}" for n in range(30)]
    for n, session_id in enumerate(ids):
        (folder / f"{session_id}.jsonl").write_text(json.dumps({"type": "user", "sessionId": session_id}) + "\n")
        (folder / f"agent-{n:04d}.jsonl").write_text(json.dumps({"sessionId": session_id, "type": "user", "message": {"role": "user", "content": "do the thing"}}, separators=(",", ":")) + "\n")
    reads = []
    real = subagents._session_id_of
    monkeypatch.setattr(subagents, "_session_id_of", lambda path: reads.append(path) or real(path))
    for n, session_id in enumerate(ids):
        found = subagents.find_subagents(str(folder / f"{session_id}.jsonl"), session_id)
        assert found.files == [str(folder / f"agent-{n:04d}.jsonl")]
    assert len(reads) == len(ids), "each agent file's head is read once"
    # a new agent file is seen (the folder changed)
    (folder / "agent-9999.jsonl").write_text(json.dumps({"sessionId": ids[0], "type": "user", "message": {"role": "user", "content": "more"}}, separators=(",", ":")) + "\n")
    os.utime(folder, ns=(os.stat(folder).st_atime_ns, os.stat(folder).st_mtime_ns + 1_000_000))
    assert len(subagents.find_subagents(str(folder / f"{ids[0]}.jsonl"), ids[0]).files) == 2


# -- redact: a key cut off before its END line ---------------------------------------------

@pytest.mark.parametrize("head", ["-----BEGIN RSA PRIVATE KEY-----\n", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 14\n"], ids=["pem", "putty"])
def test_a_private_key_without_its_end_line_is_redacted_in_bounded_memory(head, tmp_path):
    """The body of a key cut before its END line was matched by an
    alternation repeated per character: a 4 MB body took 500 MB (a line near
    the 64 MiB limit, about 8 GB).  One character class takes the same body."""
    import json
    import subprocess
    import sys

    from conftest import ROOT

    body = "MIIEow" + "A" * 4_000_000
    source = tmp_path / "key.jsonl"
    source.write_text(
        '{"type":"session","schema":"sessionport/v1","source":"x","sessionId":"s"}\n'
        + json.dumps({"type": "message", "role": "user", "text": head + body}) + "\n"
    )
    out = tmp_path / "out.jsonl"
    code = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', 'redact', {str(source)!r}, '-o', {str(out)!r}, '-q'], capture_output=True)\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    rc, peak_mb = map(int, probe.stdout.split())
    assert rc == 0
    assert peak_mb < 200, f"{peak_mb} MB for a 4 MB key body"
    written = out.read_text()
    assert "AAAAAAAAAA" not in written and "[REDACTED:" in written


# -- a worker killed (the out-of-memory killer, kill -9) ----------------------------------

@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("mode", ["pieces", "batch"])
def test_a_worker_killed_is_a_clear_error_not_an_internal_one(mode, tmp_path):
    """A worker the system killed (out of memory) broke the pool, which was
    reported as "internal error ... BrokenProcessPool ... This is a bug"."""
    import signal
    import subprocess
    import sys

    from conftest import ROOT, child_pids, wait_for

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), **{chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "8k"})
    env.pop("SESSIONPORT_DEBUG", None)
    rollout = tmp_path / "rollout-generated.jsonl"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "codex", "3MB", str(rollout)], check=True)
    if mode == "pieces":
        args = [str(rollout), "--to", "markdown", "-o", str(tmp_path / "out.md")]
    else:
        folder = tmp_path / "in"
        folder.mkdir()
        for n in range(40):
            shutil.copy(rollout, folder / f"rollout-{n:02d}.jsonl")
        env[chunks.MIN_SIZE_ENV] = "1G"
        args = [str(folder), "--to", "html", "-o", str(tmp_path / "all.html")]
    proc = subprocess.Popen([sys.executable, "-m", "sessionport", "convert", *args, "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    wait_for(lambda: len(child_pids(proc.pid)) >= 2, "the workers")
    os.kill(child_pids(proc.pid)[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert b"a worker process ended abruptly" in err and b"internal error" not in err and b"Traceback" not in err, err
    assert not any(name.endswith(".part") for name in os.listdir(tmp_path))
    assert os.listdir(scratch) == []


@pytest.mark.parametrize(
    "args",
    [["convert", str(CLAUDE), "--to", "markdown", "-o", ""], ["convert", str(CLAUDE), str(CLAUDE), "--to", "markdown", "-o", ""],
     ["split", str(CLAUDE), "--to", "markdown", "-o", ""], ["redact", str(CLAUDE), "-o", ""],
     ["convert", str(CLAUDE), "--to", "markdown", "--json-report", ""], ["import-session", str(FIXTURES / "session-json" / "agent-session.json"), "-o", ""]],
    ids=["convert", "batch", "split", "redact", "json-report", "import-session"],
)
def test_an_empty_output_path_is_a_usage_error_naming_the_option(args, tmp_path):
    """-o "$OUT" with OUT unset: "error: /tmp/..e541330c4976.part: No such
    file or directory" (exit 1), or a batch written to stdout."""
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert b"the path is empty" in result.stderr and (b"'-o'" in result.stderr or b"'--json-report'" in result.stderr)
    assert result.stdout == b"" and os.listdir(tmp_path) == []


# -- stdout appended to an input (>> f) ----------------------------------------------------

@pytest.mark.parametrize(
    "args, stdin",
    [(["convert", "IN", "--to", "codex"], False), (["convert", "-", "--to", "portable-jsonl"], True), (["redact", "IN"], False),
     (["chain", "-i", "IN", "redact", "to", "codex"], False), (["to", "markdown"], True)],
    ids=["convert", "stdin", "redact", "chain", "to"],
)
def test_stdout_appended_to_an_input_is_refused_instead_of_reading_its_own_output(args, stdin, tmp_path):
    """``sessionport convert f >> f`` read what it wrote and never reached
    the end: a 3 MB rollout grew to 2 GB in 20 s, until the disk was full."""
    import subprocess
    import sys

    from conftest import ROOT

    session = tmp_path / "rollout.jsonl"
    shutil.copy(ROLLOUT, session)
    before = session.read_bytes()
    command = [str(session) if a == "IN" else a for a in args]
    with open(session, "ab") as out, open(session if stdin else os.devnull, "rb") as source:
        result = subprocess.run([sys.executable, "-m", "sessionport", *command], stdin=source, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    assert result.returncode == 2, result.stderr
    assert b"an input of this run: it would read what it writes" in result.stderr
    assert session.read_bytes() == before
    # stdout a file that is not an input: written as before
    with open(tmp_path / "other.out", "ab") as out, open(session if stdin else os.devnull, "rb") as source:
        fine = subprocess.run([sys.executable, "-m", "sessionport", *command], stdin=source, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    assert fine.returncode == 0, fine.stderr
    assert (tmp_path / "other.out").stat().st_size > 0
