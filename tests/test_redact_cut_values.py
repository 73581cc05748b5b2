"""Values of secret names the usual grammar would cut short or miss:
unquoted values holding a quote, a comma or a semicolon (generated
passwords do), a quote the line never closes, and HCL blocks labelled
with a secret name whose ``default`` holds it; code, lists of
assignments, placeholders and quoted values keep their shape."""

from __future__ import annotations

import orjson
import pytest

from sessionport.redaction import Redactor

CUT = [
    ('API_TOKEN=eiNNCi"ia3an#9', 'eiNNCi"ia3an#9'),
    ('API_TOKEN=eiNNCi"ia3an#9 is the staging one', 'eiNNCi"ia3an#9'),
    ("SECRET_KEY=ab'c9dkkeoQ2x", "ab'c9dkkeoQ2x"),
    ('token: Zq8"kLm2pW9x', 'Zq8"kLm2pW9x'),
    ('api_key=k3J"9dL2mQ0pzX,', 'k3J"9dL2mQ0pzX'),
    ("DB_PASS=ab3;Kd9,xQ2", "ab3;Kd9,xQ2"),
    ("password=Tr0ub4dor;3xK and then", "Tr0ub4dor;3xK"),
    ("auth_token=Ab1'Cd2'Ef3", "Ab1'Cd2'Ef3"),
    ("set PGPASSWORD=Hq7`mZ2wr9Lx", "Hq7`mZ2wr9Lx"),
]


@pytest.mark.parametrize("text,secret", CUT)
def test_the_whole_value_goes(text, secret):
    out = Redactor().redact_text(text)
    assert "[REDACTED:" in out
    for piece in [p for p in secret.replace('"', " ").replace("'", " ").replace("`", " ").replace(",", " ").replace(";", " ").split() if len(p) >= 3]:
        assert piece not in out, (text, out)


@pytest.mark.parametrize("text,secret", CUT[:4])
def test_inside_claude_code_jsonl(text, secret):
    line = orjson.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": f"use {text}\nthanks"}]}})
    redactor = Redactor()
    record = orjson.loads(line)
    out = redactor.redact_value(record)
    body = out["message"]["content"][0]["text"]
    assert secret not in body and "[REDACTED:" in body
    assert body.startswith("use ") and body.endswith("\nthanks")


@pytest.mark.parametrize(
    "text,kept",
    [
        ('export TOKEN=abcDEF123xyz"; ls', '"; ls'),  # the quote closes the command's string
        ("token=abc123XYZ9,user=bob", ",user=bob"),  # a list of assignments
        ("secret=os.environ['SECRET_X']", "os.environ['SECRET_X']"),  # code
        ("password=it's-2024-fine", "password=it's-2024-fine"),  # words
        ("token=${TOKEN},foo", "token=${TOKEN},foo"),  # a variable
        ('echo "API_KEY=Xy7pQ2mN9kLw" > .env', '" > .env'),
    ],
)
def test_what_is_not_part_of_the_value_survives(text, kept):
    assert kept in Redactor().redact_text(text)


@pytest.mark.parametrize(
    "text,secret",
    [
        ('variable "db_password" {\n  type = string\n  default = "Hq7mZ2wr9Lx3kQ"\n}', "Hq7mZ2wr9Lx3kQ"),
        ('variable "api_token" {\n  default   = "Hq7mZ2wr9Lx3kQ"\n  sensitive = true\n}', "Hq7mZ2wr9Lx3kQ"),
        ("variable 'github_token' { default = 'Zt4kQ9wL2mXp7' }", "Zt4kQ9wL2mXp7"),
    ],
)
def test_hcl_defaults_of_blocks_labelled_with_a_secret_name(text, secret):
    redactor = Redactor()
    assert secret not in redactor.redact_text(text)
    assert secret not in redactor.redact_text(orjson.dumps({"output": text}).decode())


@pytest.mark.parametrize(
    "text",
    [
        'variable "region" {\n  default = "us-east-1"\n}',
        'variable "token_ttl" {\n  default = "3600s"\n}',
        'variable "db_password" {\n  default = "changeme"\n}',
        'variable "api_token" {\n  default = var.fallback\n}',
        'variable "db_password" {\n  description = "Password of the db"\n  sensitive = true\n}',
    ],
)
def test_hcl_blocks_without_a_secret_default_are_kept(text):
    assert Redactor().redact_text(text) == text


@pytest.mark.parametrize(
    "text,secret",
    [("API_KEY='k3Jd9sL2mQ0pzXa", "k3Jd9sL2mQ0pzXa"), ('export DB_PASSWORD="Wq9xLm2Pz4Kc\n  --host db', "Wq9xLm2Pz4Kc")],
)
def test_a_quote_the_line_never_closes(text, secret):
    out = Redactor().redact_text(text)
    assert secret not in out and "[REDACTED:" in out


@pytest.mark.parametrize("text", ["password = 'changeme", "secret='${SECRET_VALUE}", 'token: "abcdefgh'])
def test_an_unclosed_quote_around_a_placeholder_is_kept(text):
    assert Redactor().redact_text(text) == text


@pytest.mark.parametrize(
    "text,secret",
    [
        ("token=\u201cHq7mZ2wr9Lx3\u201d", "Hq7mZ2wr9Lx3"),
        ("API_KEY: \u2018Hq7mZ2wr9Lx3\u2019 ok", "Hq7mZ2wr9Lx3"),
        ("Passwort=\u201eHq7mZ2wr9Lx3\u201c", "Hq7mZ2wr9Lx3"),
        ("password: \u00abHq7mZ2wr9Lx3\u00bb", "Hq7mZ2wr9Lx3"),
    ],
)
def test_typographic_quotes_around_a_value(text, secret):
    out = Redactor().redact_text(text)
    assert secret not in out and "[REDACTED:" in out
    assert out[-1] == text[-1]  # the closing quote stays


@pytest.mark.parametrize("text", ["password=\u201ccorrect horse\u201d", "token=\u201cxyz"])
def test_typographic_quotes_around_words_are_kept(text):
    assert Redactor().redact_text(text) == text


@pytest.mark.parametrize("name", ["gitlab_pat", "db_conn_str", "db_connection_string", "signing_key"])
def test_the_screen_lets_every_secret_label_through(name):
    # the screen must be a superset of the names classify_name calls strong
    text = f'variable "{name}" {{\n  default = "Zt4kQ9wL2mXp7"\n}}'
    assert "Zt4kQ9wL2mXp7" not in Redactor().redact_text(text)
