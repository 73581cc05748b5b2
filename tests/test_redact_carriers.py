"""Credential carriers the evaluation sets left: Wi-Fi passphrases
(wpa_supplicant.conf, hostapd.conf, nmcli), recovery and backup codes,
Dropbox long-lived tokens after the word "dropbox", password options as two
items of an argument list, and Helm ``--set NAME==VALUE``.  Each with the
ordinary text of the same shape that must stay as it is."""

from __future__ import annotations

import orjson
import pytest

from sessionport.redaction import Redactor

PSK_HEX = "4b1ec4b6c3f0a83b9b1b8d2d7d0c1f8b6e3f9a2c4d5e6f708192a3b4c5d6e7f8"
DROPBOX = "abcdefghijkAAAAAAAAAA" + "abcdefghij" * 4 + "abc"  # low entropy: only its shape gives it away


def _redact(text: str) -> str:
    return Redactor().redact_text(text)


@pytest.mark.parametrize(
    "text, secret",
    [
        ('network={\n\tssid="HomeNet"\n\tpsk="correct horse battery 42"\n\tkey_mgmt=WPA-PSK\n}\n', "correct horse battery 42"),
        (f"network={{\n    ssid=\"Office\"\n    psk={PSK_HEX}\n}}\n", PSK_HEX),
        ("interface=wlan0\nssid=Lab\nwpa_passphrase=Lab-Wifi-2024!\n", "Lab-Wifi-2024!"),
        ("$ nmcli dev wifi connect HomeNet password Tr0ub4dor3x\n", "Tr0ub4dor3x"),
        ('nmcli con modify HomeNet wifi-sec.psk "s3cret-Wifi-pass"', "s3cret-Wifi-pass"),
    ],
    ids=["psk-quoted", "psk-hex", "hostapd", "nmcli-connect", "nmcli-modify"],
)
def test_wifi_passphrases(text, secret):
    out = _redact(text)
    assert secret not in out and "[REDACTED:password#1]" in out
    assert "ssid" not in text or ("HomeNet" in out or "Office" in out or "Lab" in out)


@pytest.mark.parametrize(
    "text",
    [
        "ctrl_interface=DIR=/var/run/wpa_supplicant\nnetwork={\n  psk=$WIFI_PSK\n}\n",
        "the key type is WPA-PSK (key_mgmt=WPA-PSK), set psk in the file\n",
        "nmcli con show HomeNet\n",
    ],
)
def test_wifi_settings_without_a_passphrase_are_kept(text):
    assert _redact(text) == text


@pytest.mark.parametrize(
    "text, codes",
    [
        ("Your recovery codes:\n  a1b2c-3d4e5\n  f6a7b-8c9d0\n  12345-abcde\nKeep them somewhere safe.", ["a1b2c-3d4e5", "f6a7b-8c9d0", "12345-abcde"]),
        ("backup codes: 1234 5678, 2345 6789", ["1234 5678", "2345 6789"]),
        ("Here are your recovery codes. Store them safely:\n1. 8f3k2-9d8s7\n2. 2k3j4-5h6g7\n", ["8f3k2-9d8s7", "2k3j4-5h6g7"]),
    ],
    ids=["github", "google", "numbered"],
)
def test_recovery_codes_listed_after_their_noun(text, codes):
    out = _redact(text)
    for code in codes:
        assert code not in out
    assert out.count("[REDACTED:recovery-code#") == len(codes)
    assert "Keep them somewhere safe." in out or "Keep" not in text


def test_recovery_codes_in_an_escaped_json_string_in_a_transcript_line():
    line = orjson.dumps({"type": "user", "message": {"role": "user", "content": "Recovery codes:\n  a1b2c-3d4e5\n  f6a7b-8c9d0"}})
    out = Redactor().redact_json_line(line)
    assert b"a1b2c-3d4e5" not in out and b"f6a7b-8c9d0" not in out


@pytest.mark.parametrize(
    "text",
    [
        "The recovery codes: see the settings page.",
        "recovery codes: 10 remaining",
        "Backup codes: none generated yet (run 2fa setup)",
        "recovery codes: regenerated on 2024-05-01",
    ],
)
def test_prose_about_recovery_codes_is_kept(text):
    assert _redact(text) == text


def test_dropbox_long_lived_token_after_its_name():
    out = _redact(f"dropbox: {DROPBOX}")
    assert DROPBOX not in out and "[REDACTED:dropbox-token#1]" in out


def test_the_same_shape_with_lower_case_padding_is_not_a_dropbox_token():
    text = "dropbox: " + DROPBOX.replace("AAAAAAAAAA", "aaaaaaaaaa")
    assert "dropbox-token" not in _redact(text)


@pytest.mark.parametrize(
    "text, secret",
    [
        ('{"args": ["login", "--password", "correcthorse", "--username", "bob"]}', "correcthorse"),
        ('{"command": "sshpass", "args": ["sshpass", "-p", "bluesky42", "ssh", "host"]}', "bluesky42"),
        ('["mysql", "-u", "root", "-p", "bluesky42"]', "bluesky42"),
        ('subprocess.run(["tool", "--db-password", "correcthorse"], check=True)', "correcthorse"),
        ('run(["mysql", "-u", "root", "-p", "bluesky42"], check=True)', "bluesky42"),
    ],
    ids=["json-long", "json-sshpass", "json-mysql", "python-long", "python-mysql"],
)
def test_password_options_in_argument_lists(text, secret):
    out = _redact(text)
    assert secret not in out and "[REDACTED:password#1]" in out


def test_password_option_in_a_tool_call_input():
    value = {"name": "run", "input": {"cmd": "psql", "args": ["--host", "db", "--password", "hunter2hunter"]}}
    out = Redactor().redact_value(value)
    assert out["input"]["args"] == ["--host", "db", "--password", "[REDACTED:password#1]"]


@pytest.mark.parametrize(
    "text",
    [
        '{"args": ["mkdir", "-p", "/tmp/build"]}',
        '{"args": ["ssh", "-p", "2222", "host"]}',
        '{"args": ["docker", "run", "-p", "8080:80", "nginx"]}',
        '{"args": ["--no-password", "install"]}',
        '{"args": ["--password", "$DB_PASSWORD"]}',
        '{"args": ["--max-tokens", "1000"]}',
        '{"args": ["--token", "--verbose"]}',
        'subprocess.run(["mkdir", "-p", "build/output"])',
    ],
)
def test_argument_lists_without_a_password_are_kept(text):
    assert _redact(text) == text


def test_helm_set_value_starting_with_an_equals_sign():
    text = "helm upgrade --install smtp ./chart --set secrets.smtp_password==pzQS@~KxF$~ur&^N$g7$"
    out = _redact(text)
    assert "pzQS@~KxF" not in out and "--set secrets.smtp_password=[REDACTED:" in out


@pytest.mark.parametrize("text", ["helm install x --set replicaCount==3", 'if password == "x":', "assert token == expected_token"])
def test_comparisons_are_kept(text):
    assert _redact(text) == text


@pytest.mark.parametrize("password", ["C?\\}p#0n&R!xY", "h[R&xft)yL'2A35zz", "Xk2,9pQ\"r7mW"])
def test_a_header_line_password_holding_a_quote_or_a_backslash_goes_whole(password):
    text = f"> GET /v1/me HTTP/2\n> authorization: Token {password}\n> accept: */*\n"
    out = _redact(text)
    assert out == "> GET /v1/me HTTP/2\n> authorization: Token [REDACTED:authorization#1]\n> accept: */*\n"


@pytest.mark.parametrize("text", ["authorization: Bearer $TOKEN\n", 'authorization: Token "$API_TOKEN"\n', "> authorization: Token <your token here>\n"])
def test_header_lines_with_a_variable_are_kept(text):
    assert _redact(text) == text


@pytest.mark.parametrize("text", ['{"args": ["gh", "auth", "login", "-p", "https", "-h", "github.com"]}', 'run(["gh", "auth", "login", "-p", "ssh"])'])
def test_a_short_option_naming_a_protocol_after_login_is_kept(text):
    assert _redact(text) == text
