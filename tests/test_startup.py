"""What a start that does nothing yet must not pay for: ``--version``,
``--help`` and shell completion import no format, build no format's options
and compile no regular expression of sessionport's own; the command table
that lets ``--help`` list commands without importing them matches the
commands."""

from __future__ import annotations

import subprocess
import sys

import click
import orjson
import pytest

from conftest import FIXTURES, ROOT

# Runs the real entry point, then reports which sessionport modules were
# imported and where sessionport code compiled a regular expression.
DRIVER = r"""
import atexit, json, re, sys, traceback
compiled = []
_compile = re.compile
def spy(pattern, flags=0):
    caller = traceback.extract_stack()[-2]
    if "/sessionport/" in caller.filename:
        compiled.append(f"{caller.filename.rsplit('/sessionport/', 1)[-1]}:{caller.lineno}")
    return _compile(pattern, flags)
re.compile = spy
def report():
    mods = sorted(m for m in sys.modules if m.startswith("sessionport"))
    sys.stderr.write("\nREPORT " + json.dumps({"modules": mods, "compiled": compiled}) + "\n")
atexit.register(report)
sys.argv = ["sessionport", *sys.argv[1:]]
from sessionport.cli import main
main()
"""

HEAVY = ("sessionport.formats.", "sessionport.render.", "sessionport.agentscope.", "sessionport.redaction",
         "sessionport.stages.")


def started(*args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    import os

    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, env=full_env, cwd=ROOT, timeout=60)
    line = proc.stderr.rsplit(b"\nREPORT ", 1)[1]
    return proc, orjson.loads(line)


def completion(words: str) -> dict:
    return {"_SESSIONPORT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1)}


@pytest.mark.parametrize(
    "args, env",
    [
        (("--version",), None),
        (("--help",), None),
        ((), completion("sessionport c")),
        ((), completion("sessionport convert fix")),
        ((), completion("sessionport convert x --to m")),
        ((), completion("sessionport inspect fix")),
        ((), completion("sessionport validate fix")),
        ((), completion("sessionport to markdown fix")),
        ((), completion("sessionport convert x --from c")),
        ((), completion("sessionport convert --t")),
        ((), completion("sessionport convert x --to markdown --")),
        ((), completion("sessionport to markdown --f")),
        ((), completion("sessionport inspect --k")),
        ((), completion("sessionport split --")),
        ((), completion("sessionport chain -i x --s")),
    ],
    ids=["version", "help", "complete-command", "complete-input", "complete-format", "complete-inspect",
         "complete-validate", "complete-to", "complete-from", "complete-option", "complete-option-after-to",
         "complete-option-of-to", "complete-option-of-inspect", "complete-option-of-split", "complete-option-of-chain"],
)
def test_start_up_imports_no_format_and_compiles_no_pattern(args, env):
    proc, report = started(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    # the validate command's own checker is no format
    heavy = [m for m in report["modules"] if m.startswith(HEAVY) and m != "sessionport.agentscope.validate_trace"]
    assert heavy == [], f"imported at start-up: {heavy}"
    assert report["compiled"] == [], f"compiled at start-up: {report['compiled']}"


def test_completing_an_option_name_still_offers_the_formats_options():
    proc, _ = started(env=completion("sessionport convert --trace-m"))
    assert proc.stdout.split() == [b"plain,--trace-max-output"]


@pytest.mark.parametrize("words", ["sessionport convert --", "sessionport to markdown --", "sessionport filter --", "sessionport inspect --"])
def test_option_names_from_the_table_are_those_of_the_loaded_formats(words):
    # The same completion with the formats imported (value completion's and
    # the table's shortcuts both off): the table must offer exactly the same.
    from_table, report = started(env=completion(words))
    assert not [m for m in report["modules"] if m.startswith("sessionport.formats.")]
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; from sessionport.registry import get_registry; get_registry().load_all(); "
         "sys.argv = ['sessionport']; from sessionport.cli import cli; cli.main(prog_name='sessionport')"],
        capture_output=True, cwd=ROOT, timeout=60, env={**__import__("os").environ, **completion(words)})
    assert from_table.returncode == loaded.returncode == 0, loaded.stderr
    assert from_table.stdout.split() == loaded.stdout.split()
    assert b"plain,--keep-images" in from_table.stdout  # a format's own option (claude-code's reader)


def test_the_option_table_matches_the_formats():
    from sessionport import option_table
    from sessionport.registry import FORMATS_GROUP, _entry_points

    written = (ROOT / "sessionport" / "option_table_data.py").read_text()
    assert written == option_table.source_of(option_table.table_of(_entry_points(FORMATS_GROUP))), (
        "sessionport/option_table_data.py is stale: run python -m sessionport.option_table > sessionport/option_table_data.py"
    )


def test_a_plugin_named_by_no_table_is_loaded_for_its_options():
    from sessionport.registry import Exporter, Option, Registry

    plugin = Exporter("plugged", "a plugin", write=lambda events, out, ctx: None,
                      options=(Option("plugged_flag", ("--plugged-flag",), "a plugin's own flag", is_flag=True),))

    class EntryPoint:
        name, value = "plugged-export", "plugged_package.writer:EXPORTER"

        def load(self):
            return plugin

    registry = Registry()
    registry.declare(EntryPoint())
    assert registry.formats["plugged"].pending  # named, not loaded yet
    _, exporter_opts = registry.option_sets()
    assert [o.flags for o in exporter_opts] == [("--plugged-flag",)]


def test_the_command_table_matches_the_commands():
    from sessionport.cli import COMMANDS, cli

    ctx = click.Context(cli, info_name="sessionport")
    names = cli.list_commands(ctx)
    assert set(COMMANDS) <= set(names)
    for name in names:
        command = cli.get_command(ctx, name)
        entry = COMMANDS.get(name)
        assert entry is not None, f"command {name} is missing from sessionport.cli.COMMANDS"
        assert command.callback.__module__ == entry.module or name in ("filter", "redact")
        if entry.short:
            assert command.short_help == entry.summary
        else:
            assert command.help.split("\n\n")[0].replace("\n", " ") == entry.summary


def test_help_lists_the_same_lines_as_the_loaded_commands():
    from sessionport.cli import cli

    lazy = subprocess.run([sys.executable, "-m", "sessionport", "--help"], capture_output=True, cwd=ROOT).stdout.decode()
    ctx = click.Context(cli, info_name="sessionport", help_option_names=["-h", "--help"])
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)
    assert lazy == cli.get_help(ctx) + "\n"


def _format_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if m.startswith(("sessionport.formats.", "sessionport.agentscope.", "sessionport.render"))]


def _sniff_modules() -> set[str]:
    from sessionport.option_table_data import SNIFFERS

    return {location.split(":")[0] for _, location in SNIFFERS.values() if location}


def test_a_conversion_imports_the_reader_it_reads_with_and_the_writer_it_writes_with_only(tmp_path):
    """Detection runs every importer's sniffer without importing its reader,
    the command's options come from the option table, and only the chosen
    exporter is imported: a Codex rollout written as portable-jsonl loads no
    other format's reader or writer and no render module."""
    out = tmp_path / "out.jsonl"
    proc, report = started("convert", str(FIXTURES / "codex" / "rollout-envelope.jsonl"), "--to", "portable-jsonl", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b'{"type":"session"')
    packages = {m.rsplit(".", 1)[0] for m in _sniff_modules()} | {"sessionport.formats", "sessionport.agentscope"}
    loaded = _format_modules(report["modules"])
    allowed = _sniff_modules() | packages | {"sessionport.formats.portable.jsonl_writer"}
    foreign = [m for m in loaded if m not in allowed and not m.startswith("sessionport.formats.codex.")]
    assert foreign == [], f"a Codex -> portable-jsonl conversion imported {foreign}"
    assert "sessionport.formats.codex.reader" in loaded and "sessionport.formats.codex.writer" not in loaded
    assert not [m for m in report["modules"] if m.startswith("sessionport.render")]


def test_inspect_of_a_claude_code_session_imports_no_other_format(tmp_path):
    proc, report = started("inspect", str(FIXTURES / "claude-code" / "session.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert b"messages:" in proc.stdout
    packages = {m.rsplit(".", 1)[0] for m in _sniff_modules()} | {"sessionport.formats", "sessionport.agentscope"}
    foreign = [m for m in _format_modules(report["modules"])
               if m not in _sniff_modules() | packages and not m.startswith("sessionport.formats.claude_code.")]
    assert foreign == [], f"inspect of a Claude Code session imported {foreign}"
    assert "sessionport.formats.claude_code.writer" not in report["modules"]


# Loaded only for what a small conversion never needs: ctypes tunes the
# allocator for big inputs (sessionport.jsonl), msgspec decodes the
# censuses of ``inspect``, the AgentScope parts beyond the session-json
# sniffer serve its own reader and writer.
NOT_FOR_A_SMALL_CONVERSION = ("ctypes", "msgspec", "sessionport.typed_decode", "sessionport.summary")


@pytest.mark.parametrize("fixture", ["codex/rollout-envelope.jsonl", "claude-code/session.jsonl"])
def test_a_small_conversion_loads_nothing_it_does_not_use(tmp_path, fixture):
    driver = DRIVER.replace('m.startswith("sessionport")', 'm.startswith(("sessionport", "ctypes", "msgspec"))')
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-c", driver, "convert", str(FIXTURES / fixture), "--to", "portable-jsonl", "-o", str(out)],
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b'{"type":"session"')
    modules = orjson.loads(proc.stderr.rsplit(b"\nREPORT ", 1)[1])["modules"]
    loaded = [m for m in modules if m.startswith(NOT_FOR_A_SMALL_CONVERSION)]
    agentscope = [m for m in modules if m.startswith("sessionport.agentscope.") and m not in _sniff_modules()]
    assert loaded == [] and agentscope == [], f"a small conversion imported {loaded + agentscope}"


def test_filter_loads_no_detector_of_redact(tmp_path):
    # Every stage command is built from the registry's stages, redact's
    # included: its detectors (RE2, compiled sets) load only for a run
    # that redacts.
    driver = DRIVER.replace('m.startswith("sessionport")', 'm.startswith(("sessionport", "re2"))')
    source = FIXTURES / "portable-jsonl" / "session.jsonl"
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-c", driver, "filter", str(source), "--role", "user", "-o", str(out)],
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b'"role":"user"' in out.read_bytes()
    modules = orjson.loads(proc.stderr.rsplit(b"\nREPORT ", 1)[1])["modules"]
    assert [m for m in modules if m.startswith(("re2", "sessionport.redaction"))] == []
    redacted = subprocess.run([sys.executable, "-c", driver, "redact", str(source), "-o", str(tmp_path / "r.jsonl")],
                              capture_output=True, cwd=ROOT, timeout=60)
    assert redacted.returncode == 0, redacted.stderr
    assert "sessionport.redaction.engine" in orjson.loads(redacted.stderr.rsplit(b"\nREPORT ", 1)[1])["modules"]


def test_a_big_input_still_fixes_the_allocator(tmp_path):
    # Fixed before the first line of 64 KiB or more (what the threshold is
    # fixed for, docs/performance.md); the block readers also once they
    # have read more than 64 KiB, before the block they copy lines out of.
    many = tmp_path / "many.jsonl"
    many.write_bytes(b'{"type":"session","id":"s","source":"x","version":"sessionport/v1"}\n' + b'{"k":"%s"}\n' % (b"v" * 100) * 1000)
    long_line = tmp_path / "long.jsonl"
    long_line.write_bytes(b'{"k":"%s"}\n' % (b"v" * (1 << 17)))
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"k":"v"}\n' * 100)
    probe = ("import io, sys\nfrom sessionport import jsonl\nfrom sessionport.context import ReadContext\n"
             "path, how = sys.argv[1:]\nwith open(path, 'rb') as f:\n"
             "    reader = jsonl.iter_lines if how == 'lines' else jsonl.iter_block_lines if how == 'block' else jsonl.iter_line_blocks\n"
             "    for _ in reader(f, ReadContext()): pass\n"
             "print(jsonl._allocator_tuned, 'ctypes' in sys.modules)")
    for how in ("lines", "block", "blocks"):
        seen = {p.name: subprocess.run([sys.executable, "-c", probe, str(p), how], capture_output=True, text=True, cwd=ROOT, timeout=60).stdout.split()
                for p in (many, long_line, small)}
        many_tuned = str(how != "lines")
        assert seen == {"many.jsonl": [many_tuned] * 2, "long.jsonl": ["True", "True"], "small.jsonl": ["False", "False"]}, how


@pytest.mark.parametrize("fixture", ["codex/rollout-envelope.jsonl", "claude-code/session.jsonl"])
def test_inspect_of_a_small_file_reads_it_without_the_census(tmp_path, fixture):
    # The censuses decode with msgspec, whose import costs a small file's
    # inspect a tenth of its time; below summary.CENSUS_FROM the read is
    # summarized instead (the same summaries: tests/formats/test_census.py).
    driver = DRIVER.replace('m.startswith("sessionport")', 'm.startswith(("sessionport", "msgspec"))')
    proc = subprocess.run([sys.executable, "-c", driver, "inspect", "--json", str(FIXTURES / fixture)],
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(proc.stdout)["sessions"][0]["messages"] > 0
    modules = orjson.loads(proc.stderr.rsplit(b"\nREPORT ", 1)[1])["modules"]
    assert [m for m in modules if m.startswith(("msgspec", "sessionport.typed_decode")) or m.endswith(".census")] == []


def test_inspect_of_a_compressed_small_file_takes_the_census(tmp_path):
    # A compressed file's stored size says little of what it holds.
    import gzip

    packed = tmp_path / "rollout.jsonl.gz"
    packed.write_bytes(gzip.compress((FIXTURES / "codex" / "rollout-envelope.jsonl").read_bytes()))
    driver = DRIVER.replace('m.startswith("sessionport")', 'm.startswith(("sessionport", "msgspec"))')
    proc = subprocess.run([sys.executable, "-c", driver, "inspect", "--json", str(packed)], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    plain = subprocess.run([sys.executable, "-m", "sessionport", "inspect", "--json", str(FIXTURES / "codex" / "rollout-envelope.jsonl")],
                           capture_output=True, cwd=ROOT, timeout=60)
    assert orjson.loads(proc.stdout)["sessions"] == orjson.loads(plain.stdout)["sessions"]
    modules = orjson.loads(proc.stderr.rsplit(b"\nREPORT ", 1)[1])["modules"]
    assert "sessionport.formats.codex.census" in modules
