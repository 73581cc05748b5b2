"""Detection that looks past a first line no importer knows."""

from __future__ import annotations

import orjson
import pytest

from sessionport.detect import detect, rank
from sessionport.errors import DetectionError
from sessionport.registry import get_registry

from conftest import FIXTURES

REGISTRY = get_registry()
CLAUDE = (FIXTURES / "claude-code" / "session.jsonl").read_bytes()
CODEX = (FIXTURES / "codex" / "rollout-envelope.jsonl").read_bytes()


@pytest.mark.parametrize("sample, name", [(CLAUDE, "claude-code"), (CODEX, "codex")])
def test_lines_of_a_shape_nobody_knows_are_outvoted_by_the_records_after_them(sample, name):
    foreign = b'{"zz":1}\n{"yy":[2]}\n'
    assert detect(foreign + sample, "x.jsonl", REGISTRY).name == name


def test_each_line_set_aside_costs_a_point():
    alone = dict((imp.name, score) for score, imp in rank(CODEX, REGISTRY))
    one = dict((imp.name, score) for score, imp in rank(b'{"zz":1}\n' + CODEX, REGISTRY))
    two = dict((imp.name, score) for score, imp in rank(b'{"zz":1}\n{"yy":2}\n' + CODEX, REGISTRY))
    assert alone["codex"] - 1 == one["codex"] == two["codex"] + 1


def test_a_first_line_some_importer_knows_decides_as_before():
    session_json = (FIXTURES / "session-json" / "agent-session.jsonl").read_bytes()
    assert detect(session_json, "agent-session.jsonl", REGISTRY).name == "session-json"


def test_claude_code_state_records_first_and_records_of_new_types():
    head = [
        {"type": "mode", "mode": "normal", "sessionId": "s"},
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "s"},
    ]
    data = b"".join(orjson.dumps(r) + b"\n" for r in head) + CLAUDE
    assert detect(data, "s.jsonl", REGISTRY).name == "claude-code"
    new = orjson.dumps({"type": "hologram-state", "sessionId": "s", "uuid": "h", "timestamp": "2026-01-01T00:00:00Z"}) + b"\n"
    assert detect(new + CLAUDE, "s.jsonl", REGISTRY).name == "claude-code"
    assert detect(new, "s.jsonl", REGISTRY).name == "claude-code"  # the envelope alone is enough


def test_nothing_known_anywhere_is_still_a_clear_error():
    with pytest.raises(DetectionError, match="could not be recognised"):
        detect(b'{"zz":1}\n{"yy":2}\n{"xx":3}\n', "x.jsonl", REGISTRY)


def test_the_error_for_an_apps_auth_file_shows_its_keys_not_the_credential(tmp_path):
    """A walk of an app's home folder meets its credentials (Codex's
    ``auth.json``, Gemini CLI's ``oauth_creds.json``): the error naming such
    a file quotes its first bytes, but not the start of the secret."""
    from conftest import run_cli

    home = tmp_path / "home"
    home.mkdir()
    (home / "auth.json").write_text('{"OPENAI_API_KEY":"sk-proj-' + "Q" * 40 + '","tokens":null}')
    (home / "oauth_creds.json").write_text('{"access_token":"ya29.' + "Z" * 40 + '","scope":"x"}')
    (home / "notes.json").write_text('{"kind":"grocery list","items":[]}')
    result = run_cli("convert", home, "--to", "markdown", "-o", f"{tmp_path / 'out'}/")
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "auth.json" in err and "oauth_creds.json" in err
    assert "sk-proj" not in err and "ya29" not in err and "QQQ" not in err and "ZZZ" not in err
    assert '"OPENAI_API_KEY":"…' in err and '"access_token":"…' in err
    assert '"kind":"grocery list"' in err  # other values are quoted as before
