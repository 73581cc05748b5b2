"""Nothing from a transcript acts on the terminal: control, escape and bidi
characters are shown as visible escapes by inspect, ls, validate, warnings
and errors."""

from __future__ import annotations

import json
import os
import pty

import orjson
import pytest

from conftest import ROOT, run_cli
from sessionport.sanitise import BIDI_CONTROLS, UNSAFE, escape_char, strip_escapes, terminal, terminal_json

ESC = "\x1b"
EVIL = f"{ESC}]0;PWNED-TITLE\x07{ESC}[2J{ESC}]52;c;cm0gLXJmIH4K\x07\r{ESC}[Kspoofed \u202eevil\u202c \x9b31m"
RAW = [b"\x1b", b"\x07", b"\r", "\u202e".encode(), "\u202c".encode(), "\x9b".encode()]


def test_terminal_shows_every_unsafe_character_as_an_escape():
    shown = terminal(EVIL)
    assert not UNSAFE.search(shown) and "\n" not in shown
    assert "\\x1b]0;PWNED-TITLE\\x07" in shown and "\\u202eevil\\u202c" in shown and "\\x9b31m" in shown
    assert terminal("a\nb", newlines=True) == "a\nb" and terminal("a\nb") == "a\\x0ab"
    assert terminal("a\tb") == "a\tb" and terminal("a\tb", tabs=False) == "a\\x09b"


def test_clean_text_is_returned_as_is():
    text = "plain text, ünïcödé, emoji \U0001f600, tabs\tand CJK 漢字"
    assert terminal(text) is text
    assert strip_escapes(text) is text
    data = orjson.dumps({"t": text})
    assert terminal_json(data) is data


def test_every_bidi_control_and_c1_character_is_caught():
    for char in sorted(BIDI_CONTROLS) + ["\u2028", "\u2029", "\x7f"] + [chr(c) for c in range(0x80, 0xA0)] + [chr(c) for c in range(0x20) if c not in (9, 10)]:
        assert terminal(char) == escape_char(char), repr(char)
        assert orjson.loads(terminal_json(orjson.dumps(char))) == char
        assert char.encode("utf-8") not in terminal_json(orjson.dumps(char)) or char in "\t\n"


def test_strip_escapes_removes_sequences_whole():
    assert strip_escapes(f"{ESC}[38;5;231mAWS{ESC}[0m = {ESC}]8;;http://x{ESC}\\link{ESC}]8;;{ESC}\\") == "AWS = link"
    assert strip_escapes(EVIL) == "spoofed evil "


def _on_tty(args, env):
    pid, fd = pty.fork()
    if pid == 0:  # the child: run the program on the pseudo-terminal
        os.chdir(ROOT)
        os.execvpe(args[0], args, env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out


@pytest.fixture
def evil_home(tmp_path):
    project = tmp_path / ".claude" / "projects" / "-tmp-x"
    project.mkdir(parents=True)
    record = {
        "parentUuid": None, "type": "user", "sessionId": "abc123", "uuid": "u1", "cwd": "/tmp/x" + EVIL,
        "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "prompt " + EVIL},
    }
    (project / "abc123.jsonl").write_text(json.dumps(record) + "\n")
    return tmp_path


@pytest.mark.parametrize("command", [["inspect", "{file}"], ["inspect", "--json", "{file}"], ["ls"], ["ls", "--json"]])
def test_inspect_and_ls_on_a_terminal_print_no_raw_control_or_bidi_character(evil_home, command):
    import sys

    path = str(evil_home / ".claude" / "projects" / "-tmp-x" / "abc123.jsonl")
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "SESSIONPORT_DEBUG")}
    env["HOME"] = str(evil_home)
    out = _on_tty([sys.executable, "-m", "sessionport", *(a.format(file=path) for a in command)], env)
    assert b"spoofed" in out or b"abc123" in out, out[:300]
    for raw in RAW:
        if raw == b"\r":
            out = out.replace(b"\r\n", b"\n")  # the terminal's own line ends
        assert raw not in out, f"{raw!r} reached the terminal in {command}"


def test_json_output_still_holds_the_same_values(evil_home):
    path = evil_home / ".claude" / "projects" / "-tmp-x" / "abc123.jsonl"
    result = run_cli("inspect", "--json", path)
    assert result.returncode == 0
    document = orjson.loads(result.stdout)
    assert document["sessions"][0]["cwd"] == "/tmp/x" + EVIL


def test_warnings_and_errors_carry_no_raw_escape(tmp_path):
    path = tmp_path / ("bad" + "\x1b]0;T\x07" + ".jsonl")
    path.write_bytes(b'{"type":"session","schema":"sessionport/v1","source":"x"}\n{"type":"message","role":"user","text":"a","meta":"' + EVIL.encode() + b'"}\nnot json ' + EVIL.encode() + b"\n")
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 1
    assert b"expected a JSON object" in result.stderr
    for raw in RAW:
        assert raw not in result.stderr
