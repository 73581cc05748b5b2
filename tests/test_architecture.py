"""The layering rules of docs/architecture.md, read from the source, and the
plugin path a third-party format takes (entry points, the real registry)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

from conftest import FIXTURES, ROOT, run_cli

PACKAGE = ROOT / "sessionport"
# Modules at the top of the package that are not the core: the public API
# and the Dask adapter sit above the pipeline.
FACADES = {"sessionport", "sessionport.api", "sessionport.dask", "sessionport.__main__"}
# A module named in a string (lazy imports); three parts at least, so the
# entry-point group names ("sessionport.formats") are not taken for one.
MODULE_PATH = re.compile(r"^sessionport(\.[A-Za-z_][A-Za-z0-9_]*){2,}$")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every sessionport module ``path`` imports, at the top or inside a
    function, plus module paths named in strings (lazy imports)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    package = _module_name(path, root).rsplit(".", 0 if path.name == "__init__.py" else 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "sessionport")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join(base + ([module] if module else []))
            if module.split(".")[0] == "sessionport":
                found.add(module)
                found.update(f"{module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.match(node.value):
            found.add(node.value)
    return found


def _modules() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def _format_package(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) >= 3 and parts[1] == "formats" else None


CORE = {f"sessionport.{p.stem}" for p in PACKAGE.glob("*.py")} - FACADES


def _is_core(module: str) -> bool:
    """The flat modules at the top of the package (a name imported from
    one, ``sessionport.io.open_input``, counts as the module)."""
    return module in CORE or module.rsplit(".", 1)[0] in CORE


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) >= 2 else None


MODULES = _modules()


def test_the_rules_see_every_layer():
    """The scan itself: it finds the format packages, the core and the
    imports it is meant to judge (a broken scan would pass every rule)."""
    packages = {_format_package(m) for m in MODULES} - {None}
    assert {"sessionport.formats.codex", "sessionport.formats.claude_code", "sessionport.formats.providers"} <= packages
    core = {m for m in MODULES if _is_core(m)}
    assert {"sessionport.model", "sessionport.registry", "sessionport.io", "sessionport.jsonl", "sessionport.detect"} <= core
    assert "sessionport.registry" in MODULES["sessionport.formats.codex.reader"]
    assert "sessionport.formats.codex.writer" in MODULES["sessionport.formats.codex"], "lazy parts are named in strings"


def test_a_format_package_imports_only_the_core_and_itself():
    wrong = []
    for module, imported in MODULES.items():
        own = _format_package(module)
        if own is None:
            continue
        for target in imported:
            other = _format_package(target)
            if other is not None and other != own:
                wrong.append(f"{module} imports {target} (another format package)")
            elif other is None and target != "sessionport" and not _is_core(target) and target != "sessionport.formats":
                wrong.append(f"{module} imports {target} (not the core: {_layer(target)})")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_core_imports_no_format_renderer_agentscope_or_cli_module():
    forbidden = {"formats", "render", "agentscope", "cli"}
    wrong = [
        f"{module} imports {target}"
        for module, imported in MODULES.items()
        if _is_core(module)
        for target in imported
        if _layer(target) in forbidden
    ]
    assert not wrong, "\n".join(sorted(wrong))


def test_the_cli_reaches_formats_only_through_the_registry():
    wrong = [
        f"{module} imports {target}"
        for module, imported in MODULES.items()
        if _layer(module) == "cli"
        for target in imported
        if _format_package(target)
    ]
    assert not wrong, "\n".join(sorted(wrong))


def test_the_rules_catch_a_cross_import(tmp_path):
    """A format module importing another format is what the rule exists to
    catch: shown on a copy, so the rule is known to bite."""
    bad = tmp_path / "sessionport" / "formats" / "codex" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from sessionport.formats.claude_code.records import X\nfrom sessionport.cli.app import cli\n")
    imported = _imports(bad, tmp_path)
    assert "sessionport.formats.claude_code.records" in imported and "sessionport.cli.app" in imported


# --- the plugin path -------------------------------------------------------

PLUGIN = '''
"""A third-party format: lines of {"who": ..., "said": ...}."""
import orjson
from sessionport.jsonl import iter_records
from sessionport.model import message_event, session_event
from sessionport.registry import Exporter, Importer


def read(stream, ctx):
    yield session_event("logbook", sessionId="logbook-1")
    for line_no, record in iter_records(stream, ctx):
        yield message_event(record["who"], record["said"])


def write(events, out, ctx):
    for event in events:
        if event.get("type") == "message":
            out.write(f"{event['role']}> {event.get('text', '')}\\n".encode())


IMPORTER = Importer(name="logbook", description="Logbook lines", read=read,
                    sniff=lambda head: 90 if head.startswith(b'{"who"') else 0, patterns=("*.logbook",))
EXPORTER = Exporter(name="logbook-text", description="Logbook as text", write=write, extension=".txt")
'''


def _install_plugin(site: Path, name: str, entries: dict[str, str]) -> None:
    """What ``pip install`` leaves on disk: a dist-info with entry_points.txt."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = ["[sessionport.formats]"] + [f"{k} = {v}" for k, v in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def _env(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_a_third_party_format_registers_through_entry_points(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sessionport_logbook.py").write_text(textwrap.dedent(PLUGIN))
    _install_plugin(site, "sessionport_logbook", {"logbook-import": "sessionport_logbook:IMPORTER", "logbook-export": "sessionport_logbook:EXPORTER"})
    log = tmp_path / "day.logbook"
    log.write_text('{"who": "user", "said": "is the build green?"}\n{"who": "assistant", "said": "yes"}\n')
    listed = run_cli("formats", "--json", env=_env(site))
    assert listed.returncode == 0, listed.stderr
    assert b'"logbook"' in listed.stdout and b'"logbook-text"' in listed.stdout
    detected = run_cli("convert", log, "--to", "logbook-text", env=_env(site))
    assert detected.returncode == 0, detected.stderr
    assert detected.stdout == b"user> is the build green?\nassistant> yes\n"
    markdown = run_cli("convert", log, "--from", "logbook", "--to", "markdown", env=_env(site))
    assert markdown.returncode == 0 and b"is the build green?" in markdown.stdout
    without = run_cli("convert", log, "--to", "logbook-text")
    assert without.returncode == 2, "not installed: not a format"


def test_a_broken_plugin_is_reported_and_the_others_still_load(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sessionport_broken.py").write_text("raise RuntimeError('plugin bug')\n")
    _install_plugin(site, "sessionport_broken", {"broken-import": "sessionport_broken:IMPORTER"})
    result = run_cli("formats", "-v", env=_env(site))
    assert result.returncode == 0
    assert b"could not load broken-import" in result.stderr and b"plugin bug" in result.stderr
    assert b"claude-code" in result.stdout


def test_a_format_package_copied_as_a_template_is_a_working_plugin(tmp_path):
    """docs/architecture.md tells a plugin author to copy one formats/<name>/
    package, rename its imports and its format name, and add two entry
    points.  Done here to the Codex package, the copy converts exactly as
    the original does."""
    site = tmp_path / "site"
    copy = site / "sp_rollouts"
    shutil.copytree(PACKAGE / "formats" / "codex", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.glob("*.py"):
        text = path.read_text().replace("sessionport.formats.codex", "sp_rollouts")
        text = text.replace('name="codex",', 'name="rollouts",')
        path.write_text(text)
    _install_plugin(site, "sp_rollouts", {"rollouts-import": "sp_rollouts:IMPORTER", "rollouts-export": "sp_rollouts:EXPORTER"})
    source = FIXTURES / "codex" / "rollout-envelope.jsonl"
    original = run_cli("convert", source, "--from", "codex", "--to", "codex")
    copied = run_cli("convert", source, "--from", "rollouts", "--to", "rollouts", env=_env(site))
    assert original.returncode == copied.returncode == 0, copied.stderr
    assert copied.stdout == original.stdout and copied.stdout


def test_version_and_formats_outside_the_checkout(tmp_path):
    """From another directory, in isolated mode (no PYTHONPATH, no user
    site, the working directory not on the path): what an installed copy
    sees.  (A fresh virtual environment is checked by .ci/run.)"""
    import subprocess

    for args, expected in ((["--version"], "sessionport, version"), (["formats"], "stages: filter, redact")):
        result = subprocess.run([sys.executable, "-I", "-m", "sessionport", *args], capture_output=True, text=True, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert expected in result.stdout


# --- the data path of convert ------------------------------------------------


def test_convert_of_one_input_enters_each_step_once(tmp_path, monkeypatch):
    """CLI -> pipeline -> input resolution -> importer -> stages -> exporter
    -> output: for one input each step is entered exactly once."""
    import dataclasses

    from click.testing import CliRunner

    from sessionport.cli import cli
    from sessionport.pipeline import run as run_module
    from sessionport.pipeline import stream
    from sessionport.registry import get_registry

    calls: list[str] = []

    def spy(name, function):
        def wrapped(*args, **kwargs):
            calls.append(name)
            return function(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(run_module, "run", spy("pipeline.run", run_module.run))
    monkeypatch.setattr(run_module, "resolve", spy("inputs.resolve", run_module.resolve))
    for name in ("read", "apply_stages", "write", "open_input", "detect", "open_output"):
        monkeypatch.setattr(stream, name, spy(f"stream.{name}", getattr(stream, name)))
    registry = get_registry()
    info = registry.formats["portable-jsonl"]
    monkeypatch.setattr(info, "importer", dataclasses.replace(info.importer, read=spy("importer", info.importer.read)))
    markdown = registry.formats["markdown"]
    monkeypatch.setattr(markdown, "exporter", dataclasses.replace(markdown.exporter, write=spy("exporter", markdown.exporter.write)))

    out = tmp_path / "s.md"
    result = CliRunner().invoke(cli, ["convert", str(FIXTURES / "portable-jsonl" / "session.jsonl"), "--to", "markdown", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "# Fix the failing cart test" in out.read_text()
    steps = ["pipeline.run", "inputs.resolve", "stream.read", "stream.apply_stages", "stream.write", "stream.open_output", "exporter", "stream.open_input", "stream.detect", "importer"]
    # Generators run when the exporter pulls: the input is opened, detected
    # and read from inside the write, each once.
    assert calls == steps, calls
