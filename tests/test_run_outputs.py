"""Where a run writes: the output-path guard, what -o means for several
inputs, @ID references, empty inputs in a batch, the default trace name."""

from __future__ import annotations

import os
import zipfile

import orjson
import pytest
from click.testing import CliRunner

from conftest import FIXTURES, corpus_path, run_cli
from sessionport.cli import cli

CLAUDE = FIXTURES / "claude-code" / "session.jsonl"
CLAUDE_ID = "5a1c2e3f-0000-4000-8000-000000000001"
PORTABLE = FIXTURES / "portable-jsonl" / "session.jsonl"
SEED = FIXTURES / "session-json" / "agent-session.json"


def _files(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# --- the guard -------------------------------------------------------------


def test_a_batch_never_writes_onto_another_input(tmp_path):
    """a.json -> a.jsonl would destroy the input a.jsonl: the guard knows every
    input of the run, so that target keeps the input's own suffix instead
    (a.json.jsonl), and a target with no free name at all is refused."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(CLAUDE.read_bytes())
    (folder / "a.json").write_bytes((FIXTURES / "portable" / "session.json").read_bytes())
    before = (folder / "a.jsonl").read_bytes()
    result = run_cli("convert", folder, "--to", "portable-jsonl", "-o", folder, "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert (folder / "a.jsonl").read_bytes() == before
    assert sorted(os.listdir(folder)) == ["a.json", "a.json.jsonl", "a.jsonl", "a.jsonl.jsonl"]
    # now both names a.json could take are inputs of the run
    (folder / "a.jsonl.jsonl").unlink()
    kept = {name: (folder / name).read_bytes() for name in os.listdir(folder)}
    again = run_cli("convert", folder, "--to", "portable-jsonl", "-o", folder, "--jobs", "1")
    err = again.stderr.decode()
    assert again.returncode == 1, err
    assert "would overwrite the input" in err and "1 failed" in err
    for name, data in kept.items():
        assert (folder / name).read_bytes() == data, f"{name} was overwritten"


def test_an_output_resolving_onto_an_input_through_a_link_is_refused(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_bytes(PORTABLE.read_bytes())
    link = tmp_path / "link.jsonl"
    link.symlink_to(source)
    result = run_cli("convert", source, "--to", "portable-jsonl", "-o", link)
    assert result.returncode == 2 and b"onto the input" in result.stderr
    assert source.read_bytes() == PORTABLE.read_bytes()


def test_url_keys_with_dot_dot_are_refused_not_written_outside(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    data = CLAUDE.read_bytes()
    memory.pipe("/guard-bucket/sessions/ok.jsonl", data)
    memory.pipe("/guard-bucket/sessions/x/../../../../ESCAPED.jsonl", data)
    out = tmp_path / "a" / "b" / "out"
    out.mkdir(parents=True)
    try:
        result = CliRunner().invoke(cli, ["convert", "memory://guard-bucket/sessions/**", "--to", "markdown", "-o", str(out), "--jobs", "1"])
    finally:
        memory.rm("/guard-bucket", recursive=True)
    assert result.exit_code == 1, result.output
    assert "outside" in result.output and "1 of 2 input(s) converted, 1 failed" in result.output
    assert _files(tmp_path) == ["a/b/out/ok.md"]


def test_zip_members_are_inputs_and_their_paths_stay_inside_the_directory(tmp_path):
    pytest.importorskip("fsspec")
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("s/one.jsonl", CLAUDE.read_bytes())
        z.writestr("../../evil.jsonl", CLAUDE.read_bytes())
    out = tmp_path / "out"
    result = run_cli("convert", f"zip://**/*.jsonl::{archive}", "--to", "markdown", "-o", out, "--jobs", "1", cwd=tmp_path)
    err = result.stderr.decode()
    assert "internal error" not in err and "Is a directory" not in err
    written = _files(tmp_path)
    assert "out/s/one.md" in written, err
    assert all(w.startswith("out/") or w == "a.zip" for w in written), written


def test_a_linked_folder_inside_the_output_cannot_lead_outside(tmp_path):
    tree = tmp_path / "in" / "sub"
    tree.mkdir(parents=True)
    (tree / "x.jsonl").write_bytes(PORTABLE.read_bytes())
    (tmp_path / "in" / "y.jsonl").write_bytes(PORTABLE.read_bytes())
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "sub").symlink_to(elsewhere)
    result = run_cli("convert", tmp_path / "in", "--to", "markdown", "-o", out, "--jobs", "1")
    assert result.returncode == 1 and b"outside" in result.stderr
    assert list(elsewhere.iterdir()) == []
    assert (out / "y.md").is_file()


# --- what -o means for several inputs ---------------------------------------


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "sessions"
    root.mkdir()
    lines = PORTABLE.read_bytes().splitlines(keepends=True)
    for n in range(3):
        session = orjson.loads(lines[0])
        session["sessionId"] = f"s-{n}"
        (root / f"{n}.jsonl").write_bytes(orjson.dumps(session) + b"\n" + b"".join(lines[1:]))
    return root


def test_o_with_the_format_extension_is_one_file_holding_every_session(folder, tmp_path):
    page = tmp_path / "all.md"
    result = run_cli("convert", folder, "--to", "markdown", "-o", page, "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert page.is_file()
    text = page.read_text()
    assert text.count("Fix the failing cart test") >= 3
    assert b"3 of 3 input(s) converted" in result.stderr
    stream = run_cli("convert", folder, "--to", "markdown", "--jobs", "1")
    assert stream.stdout == page.read_bytes(), "the same combined stream as on stdout"


def test_o_ending_in_a_slash_or_an_existing_directory_is_one_file_per_input(folder, tmp_path):
    for target in (f"{tmp_path / 'new.md'}/", tmp_path / "existing"):
        if not str(target).endswith("/"):
            os.mkdir(target)
        result = run_cli("convert", folder, "--to", "markdown", "-o", target)
        assert result.returncode == 0, result.stderr
        assert _files(tmp_path / str(target).rstrip("/")) == ["0.md", "1.md", "2.md"]


def test_a_quoted_local_pattern_is_resolved_like_a_directory(folder, tmp_path):
    """A pattern the shell did not expand (quoted, or from a config file)."""
    out = tmp_path / "out"
    result = run_cli("convert", f"{folder}/[01].jsonl", "--to", "markdown", "-o", out)
    assert result.returncode == 0, result.stderr
    assert _files(out) == ["0.md", "1.md"]
    none = run_cli("convert", f"{folder}/*.nothing", "--to", "markdown")
    assert none.returncode == 2 and b"no files match this pattern" in none.stderr


def test_one_input_into_a_directory_takes_the_input_name(tmp_path):
    archive = tmp_path / "archive"
    result = run_cli("convert", PORTABLE, "--to", "markdown", "-o", f"{archive}/")
    assert result.returncode == 0, result.stderr
    assert _files(archive) == ["session.md"]
    again = run_cli("convert", CLAUDE, "--to", "html", "-o", archive)
    assert again.returncode == 0, again.stderr
    assert _files(archive) == ["session.html", "session.md"]
    piped = run_cli("convert", "-", "--to", "markdown", "-o", archive, input=PORTABLE.read_bytes())
    assert piped.returncode == 2 and b"give -o a file path" in piped.stderr


def test_o_with_another_format_extension_is_not_taken_for_a_directory(folder, tmp_path):
    result = run_cli("convert", folder, "--to", "html", "-o", tmp_path / "notes.md")
    assert result.returncode == 2
    assert b"notes.md/" in result.stderr and b".html" in result.stderr
    assert not (tmp_path / "notes.md").exists()
    plain = run_cli("convert", folder, "--to", "html", "-o", tmp_path / "pages")
    assert plain.returncode == 0 and _files(tmp_path / "pages") == ["0.html", "1.html", "2.html"]


def test_a_one_session_format_refuses_one_file_for_several_inputs(folder, tmp_path):
    result = run_cli("convert", folder, "--to", "codex", "-o", tmp_path / "all.jsonl")
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "holds one session" in err and "all/" in err
    assert not (tmp_path / "all.jsonl").exists()


def test_empty_and_summary_only_inputs_write_nothing_and_are_counted(folder, tmp_path):
    (folder / "empty.jsonl").write_bytes(b"")
    # what Claude Code leaves when a session held only its summary line
    (folder / "summary.jsonl").write_bytes(b'{"type":"summary","summary":"Cart test fix","leafUuid":"0b6f7d1e-0000-4000-8000-00000000000a"}\n')
    out = tmp_path / "out"
    result = run_cli("convert", folder, "--to", "markdown", "--front-matter", "-o", out)
    assert result.returncode == 0, result.stderr
    assert _files(out) == ["0.md", "1.md", "2.md"]
    assert b"3 of 5 input(s) converted, 2 empty (nothing written)" in result.stderr
    combined = run_cli("convert", folder, "--to", "portable-jsonl")
    assert combined.returncode == 0
    assert sum(b'"type":"session"' in line for line in combined.stdout.splitlines()) == 3
    assert b"2 empty (nothing written)" in combined.stderr


def test_summary_only_corpus_file_in_a_batch(folder, tmp_path):
    summary = corpus_path("claude-code", "12_cc_summary-only_4e27c414.jsonl")
    out = tmp_path / "out"
    result = run_cli("convert", summary, folder / "0.jsonl", "--to", "html", "-o", out)
    assert result.returncode == 0, result.stderr
    assert _files(out) == ["0.html"]
    assert b"1 of 2 input(s) converted, 1 empty" in result.stderr


# --- @ID references ----------------------------------------------------------


def _home(tmp_path, ids):
    project = tmp_path / "home" / ".claude" / "projects" / "-src-shop"
    project.mkdir(parents=True)
    for session_id in ids:
        (project / f"{session_id}.jsonl").write_bytes(CLAUDE.read_bytes().replace(CLAUDE_ID.encode(), session_id.encode()))
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}


def test_an_id_prefix_naming_one_session_makes_o_a_file(tmp_path):
    env = _home(tmp_path, [CLAUDE_ID, "77aa0000-0000-4000-8000-000000000002"])
    page = tmp_path / "share.html"
    result = run_cli("chain", "-i", "@5a1c", "redact", "to", "html", "-o", page, env=env)
    assert result.returncode == 0, result.stderr
    assert page.is_file() and b"<html" in page.read_bytes()[:400].lower()
    trace = tmp_path / ".agentscope" / "run.trace.json"
    trace.parent.mkdir()
    done = run_cli("convert", "@5a1c2e3f", "--to", "agentscope-trace", "-o", trace, env=env)
    assert done.returncode == 0 and trace.is_file(), done.stderr
    assert run_cli("validate", trace).returncode == 0


def test_an_ambiguous_id_prefix_lists_the_candidates(tmp_path):
    other = "5a1c9999-0000-4000-8000-000000000002"
    env = _home(tmp_path, [CLAUDE_ID, other])
    result = run_cli("convert", "@5a1c", "--to", "markdown", "-o", tmp_path / "x.md", env=env)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "2 sessions have an id starting with '5a1c'" in err
    for line_id in (CLAUDE_ID, other):
        (line,) = [line for line in err.splitlines() if line_id in line]
        assert "claude-code" in line and "2026-04-01T10:00:00" in line and "List the files here, please." in line, line
    assert not (tmp_path / "x.md").exists()
    full = run_cli("convert", f"@{other}", "--to", "portable-jsonl", env=env)
    assert full.returncode == 0 and other.encode() in full.stdout


def test_at_all_is_a_batch(tmp_path):
    env = _home(tmp_path, [CLAUDE_ID, "77aa0000-0000-4000-8000-000000000002"])
    out = tmp_path / "out"
    result = run_cli("convert", "@all", "--to", "markdown", "-o", out, env=env)
    assert result.returncode == 0, result.stderr
    assert len(_files(out)) == 2


# --- import-session's default name ------------------------------------------


def test_import_session_never_overwrites_a_trace_of_the_same_second(tmp_path):
    logs = []
    for n in range(3):
        log = tmp_path / f"log{n}.json"
        # three different logs started in the same second
        log.write_text(orjson.dumps({"title": f"LOG NUMBER {n}", "agent": "x", "startedAt": "2026-06-04T18:41:00Z", "events": [{"tool": "Bash", "input": {"command": "ls"}, "output": "ok"}]}).decode())
        logs.append(log)
    printed = []
    for log in logs:
        result = run_cli("import-session", log, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        printed.append(result.stdout.decode().strip())
    traces = sorted((tmp_path / ".agentscope").iterdir())
    kept = {orjson.loads(t.read_bytes())["runs"][0]["title"] for t in traces}
    assert kept == {"LOG NUMBER 0", "LOG NUMBER 1", "LOG NUMBER 2"}
    names = [os.path.basename(p.removeprefix("AgentScope trace written to ")) for p in printed]
    assert names == ["run-session-2026-06-04-184100.trace.json", "run-session-2026-06-04-184100-2.trace.json", "run-session-2026-06-04-184100-3.trace.json"]
    assert all(os.path.isabs(p.removeprefix("AgentScope trace written to ")) for p in printed)


def test_an_http_url_with_a_query_is_one_input_named_after_its_path():
    from sessionport.pipeline.inputs import resolve

    resolved = resolve(["https://example.com/logs/a.jsonl?token=x&v=[1]"])
    assert not resolved.batch
    assert [s.relative for s in resolved.sources] == ["a.jsonl"]


def test_o_makes_the_missing_folders_of_a_file_target(tmp_path):
    from conftest import FIXTURES, run_cli

    target = tmp_path / "new" / "deeper" / "session.md"
    done = run_cli("convert", FIXTURES / "claude-code" / "session.jsonl", "--to", "markdown", "-o", target)
    assert done.returncode == 0, done.stderr
    assert target.read_text().startswith(("<a id=", "#", "---"))
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".part")]


# --- the partial file ------------------------------------------------------


@pytest.mark.parametrize("stage", ["created", "written"])
def test_an_interrupt_at_any_moment_leaves_no_partial_file(stage, tmp_path, monkeypatch):
    """Ctrl-C can land the moment the partial file beside -o appears (the
    signal tests of the split meet it there), before anything was written
    to it, or while the data is written: either way the partial file is
    removed and the file at -o keeps what it held."""
    import sessionport.io as sio

    target = tmp_path / "out.jsonl"
    target.write_text("previous")
    real_open = sio.os.open

    def open_then_interrupt(path, *args, **kwargs):
        fd = real_open(path, *args, **kwargs)
        if stage == "created" and str(path).endswith(".part"):
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(sio.os, "open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        with sio.open_output(str(target)) as out:
            out.write(b"half a line")
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"], "no partial file left"
    assert target.read_text() == "previous"
