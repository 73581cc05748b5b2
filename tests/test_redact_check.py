"""``redact --check``: a report over every input whose exit code says
whether anything was found; ``--report`` names each finding's place."""

from __future__ import annotations

import orjson

from conftest import run_cli

GH = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"  # fake, assembled at run time
SID = "5f0c2d1e-8a7b-4c3d-9e2f-1a2b3c4d5e6f"


def _claude_line(uuid: str, text: str, cwd: str = "/srv/app") -> bytes:
    record = {"parentUuid": None, "type": "user", "sessionId": SID, "uuid": uuid, "cwd": cwd, "timestamp": "2026-01-05T10:00:00Z", "message": {"role": "user", "content": text}}
    return orjson.dumps(record) + b"\n"


def _tree(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    dirty = tmp_path / "d" / "dirty.jsonl"
    dirty.write_bytes(_claude_line("u1", "hello") + _claude_line("u2", f"push with {GH} please"))
    clean = tmp_path / "d" / "sub" / "clean.jsonl"
    clean.write_bytes(_claude_line("u1", "nothing to see"))
    return dirty, clean


def test_check_over_a_directory_names_input_session_message_and_kind(tmp_path):
    dirty, clean = _tree(tmp_path)
    proc = run_cli("redact", str(tmp_path / "d"), "--check", "--report")
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert proc.stdout == b""
    found = [line for line in err.splitlines() if "found:" in line]
    assert found == [f"sessionport: redact: found: {dirty}, session {SID}, message 2 (text): github-token"], err
    assert "in 1 of 2 input(s)" in err
    assert "failed" not in err and GH not in err


def test_check_exit_code_is_zero_when_nothing_is_found(tmp_path):
    _, clean = _tree(tmp_path)
    proc = run_cli("redact", str(clean), "--check", "--report")
    assert proc.returncode == 0, proc.stderr
    assert b"nothing to redact" in proc.stderr and b"found:" not in proc.stderr


def test_check_reports_an_unreadable_input_and_goes_on(tmp_path):
    dirty, _ = _tree(tmp_path)
    (tmp_path / "d" / "broken.jsonl").write_bytes(b"\x00\x01 not json at all\n")
    proc = run_cli("redact", str(tmp_path / "d"), "--check", "--report")
    err = proc.stderr.decode()
    assert proc.returncode == 1
    assert "broken.jsonl" in err and "Traceback" not in err
    assert f"found: {dirty}" in err
