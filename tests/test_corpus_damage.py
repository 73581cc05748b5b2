"""Real Claude Code and Codex files, damaged the ways real files get damaged:
every run exits 0, or exits 1 naming the file — never a traceback, never the
last-resort handler."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from conftest import corpus_files, requires_corpus
from sessionport.cli import cli

FILES = [p for p in corpus_files("claude-code", "*.jsonl") + corpus_files("codex", "*.jsonl") if p.stat().st_size > 0 and "subagents" not in p.parts]


def torn(data: bytes) -> bytes:
    return data[: len(data) * 2 // 3]


def nul_padded(data: bytes) -> bytes:
    return data + b"\x00" * 65536


def invalid_utf8(data: bytes) -> bytes:
    out = bytearray(data)
    for i in range(len(out) // 7, len(out), max(1, len(out) // 5)):
        out[i] = 0xFF
    return bytes(out)


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def garbage_line(data: bytes) -> bytes:
    lines = data.split(b"\n")
    middle = len(lines) // 2
    return b"\n".join(lines[:middle] + [b"\x8b\x1f garbage {{{ not json"] + lines[middle:])


def byte_flips(data: bytes) -> bytes:
    rng = random.Random(len(data))
    out = bytearray(data)
    for _ in range(20):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


DAMAGE = [torn, nul_padded, invalid_utf8, crlf, garbage_line, byte_flips]


@requires_corpus
@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__ for d in DAMAGE])
@pytest.mark.parametrize("path", FILES, ids=[p.name[:40] for p in FILES])
def test_damaged_real_file(path, damage, tmp_path):
    target = tmp_path / path.name
    target.write_bytes(damage(path.read_bytes()))
    result = CliRunner().invoke(cli, ["convert", str(target), "--to", "portable-jsonl"])
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    if result.exit_code == 1:
        errors = [line for line in result.stderr.splitlines() if line.startswith("sessionport: error:")]
        assert len(errors) == 1 and str(target) in errors[0], result.stderr
        assert "line" in errors[0] or "at " in errors[0], "the error says where"
    if damage in (crlf, nul_padded, torn):
        assert result.exit_code == 0, f"{damage.__name__} must be read up to the damage: {result.stderr}"
