"""Recall and damage of ``redact`` by class and channel, on a generated,
seeded, labelled corpus (``fixtures/redaction/classes.py``): private keys
in every PEM flavour and inside JSON, secrets named only by their key in
every syntax, opaque tokens named only by context, home-directory user
names, encoded and colour-coded secrets, card numbers, public IPs; and
base64 data, fingerprints, object ids, placeholders and host names that
must survive.  Each class in each channel (prompt, assistant text, tool
input, tool output, file contents, diff, metadata), in plain text and
inside Claude Code and Codex JSONL.

Targets: recall >= 0.99 for every class with at least 5 cases, >= 0.995
overall, damage <= 0.01; every redacted JSONL line still parses.
"""

from __future__ import annotations

import sys

import orjson
import pytest

from conftest import FIXTURES

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import classes  # noqa: E402

CLASS_RECALL = 0.99
OVERALL_RECALL = 0.995
DAMAGE_LIMIT = 0.01
SEEDS = (1, 2, 3)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed{s}")
def cases(request):
    return classes.build(request.param)


def _assert_targets(result: classes.Score) -> None:
    for klass, count in result.secrets.items():
        if count >= 5:
            assert result.recall(klass) >= CLASS_RECALL, f"{klass}\n{result.describe()}"
    assert result.recall() >= OVERALL_RECALL, result.describe()
    assert result.damage() <= DAMAGE_LIMIT, result.describe()


def test_the_corpus_has_every_class_in_every_channel(cases):
    seen = {(c.klass, c.channel) for c in cases}
    for klass in classes.SECRET_CLASSES + classes.KEEP_CLASSES:
        channels = {channel for k, channel in seen if k == klass}
        assert len(channels) >= 5, (klass, channels)
    assert sum(len(c.secrets) for c in cases) >= 700
    assert sum(len(c.keeps) for c in cases) >= 400


def test_plain_text(cases):
    redactor = Redactor()
    outputs = {id(case): "\n\x00\n".join(redactor.redact_text(t) for t in classes.plain_texts(case)) for case in cases}
    _assert_targets(classes.score(cases, lambda case: outputs[id(case)]))


@pytest.mark.parametrize("make_lines", [classes.claude_code_lines, classes.codex_lines], ids=["claude-code", "codex"])
def test_jsonl_transcripts(cases, make_lines):
    redactor = Redactor()
    lines = make_lines(cases)
    out = [redactor.redact_json_line(line) for line in lines]
    strings: list[str] = []
    for line in out:
        classes.decoded_strings(orjson.loads(line), strings)  # every redacted line still parses
    haystack = b"\n".join(out).decode() + "\n\x00\n" + "\n\x00\n".join(strings)
    _assert_targets(classes.score(cases, lambda case: haystack))


def test_a_colour_coded_copy_gets_the_tag_of_the_plain_copy():
    e = "\x1b"
    secret = "Tiger#3068maple"
    redactor = Redactor()
    plain = redactor.redact_text(f"DB_PASSWORD={secret}")
    coloured = redactor.redact_text(f"{e}[38;5;231mDB_PASSWORD{e}[0m{e}[38;5;203m={e}[0m{e}[38;5;186m{secret}{e}[0m")
    assert plain == "DB_PASSWORD=[REDACTED:password#1]"
    assert secret not in coloured and "[REDACTED:password#1]" in coloured
    assert coloured.startswith(f"{e}[38;5;231mDB_PASSWORD")


def test_a_split_key_is_removed_from_both_chunks():
    body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + "x" * 12, "Zm9vYmFyYmF6cXV4cXV1eHF1dXpxdXV6cXV1enF1dXpxdXV6cXV1eg" * 1]
    first = "-----BEGIN PRIVATE KEY-----\n" + body[0]
    second = body[1] + "\n-----END PRIVATE KEY-----\n"
    redactor = Redactor()
    assert body[0] not in redactor.redact_text(first)
    assert body[1] not in redactor.redact_text(second)


def test_base64_is_judged_by_what_it_decodes_to():
    import base64

    redactor = Redactor()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2).decode()
    assert png in redactor.redact_text(f"data: {png}")
    harmless = base64.b64encode(b"hello world, this is only a sentence").decode()
    assert harmless in redactor.redact_text(f"echo {harmless} | base64 -d")
    token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    encoded = base64.b64encode(f"GITHUB_TOKEN={token}\n".encode()).decode()
    out = redactor.redact_text(f"value: {encoded}")
    assert encoded not in out and "[REDACTED:github-token#1]" in out


@pytest.mark.parametrize("text", ["curl http://52.94.236.248:8080/api", "HOST=52.94.236.248", "server 52.94.236.248", "https://52.94.236.248/", "Driver 52.94.236.248"])
def test_public_ipv4_after_a_slash_an_equals_sign_or_a_word_ending_in_ver(text):
    assert "52.94.236.248" not in Redactor().redact_text(text)


@pytest.mark.parametrize("text", ["pip install pkg==1.2.3.4", "version 4.2.1.0", "node v20.11.1.2", "^1.2.3.4"])
def test_version_specifiers_are_not_addresses(text):
    assert Redactor().redact_text(text) == text


def test_card_numbers_are_luhn_checked():
    redactor = Redactor()
    for text in ("card 4111 1111 1111 1111 exp 12/29", "card_number=5500005555555559", '{"credit_card": "4242424242424242"}', "amex 3782-822463-10005"):
        assert "[REDACTED:card-number#" in redactor.redact_text(text), text
    for text in ("ts 1767225600000 ms", "order 4111111111111112", "id 1234567890123456", "build 4111.1111.1111.1111"):
        assert redactor.redact_text(text) == text, text


def test_inline_images_keep_their_bytes():
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3).decode()
    text = f'<img alt="logo" src="data:image/png;base64,{png}">'
    assert Redactor().redact_text(text) == text
    leaky = base64.b64encode(b"DB_PASSWORD=Tiger#3068maple\n").decode()
    assert leaky not in Redactor().redact_text(f"data:text/plain;base64,{leaky}")


def test_more_vendor_prefixes():
    import random
    import string

    rng = random.Random(3)
    b62, hexd, lower = string.ascii_letters + string.digits, "0123456789abcdef", string.ascii_lowercase + string.digits

    def c(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def uuid() -> str:
        return f"{c(hexd, 8)}-{c(hexd, 4)}-{c(hexd, 4)}-{c(hexd, 4)}-{c(hexd, 12)}"

    tokens = [
        c(hexd, 32) + "-us12", "rubygems_" + c(hexd, 48), "oy2" + c(lower, 43), "cio" + c(b62, 32), "ops_eyJ" + c(b62, 80),
        "rnd_" + c(b62, 32), "napi_" + c(lower, 64), "tskey-auth-" + c(b62, 10) + "-" + c(b62, 24), "sgp_" + c(hexd, 40),
        "pnu_" + c(b62, 36), "fw_" + c(b62, 24), "AAAA" + c(b62, 7) + ":APA91b" + c(b62, 140), "aio_" + c(b62, 28),
        "CLOJARS_" + c(lower, 60), "sdk-" + uuid(), "access-sandbox-" + uuid(), "fio-u-" + c(b62, 64), "A" * 22 + c(b62, 40),
        "v1.0-" + c(hexd, 24) + "-" + c(hexd, 146),
    ]
    for token in tokens:
        out = Redactor().redact_text(f"value {token} end")
        assert token[5:25] not in out, token
    hook = f"https://acme.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{c(hexd, 32)}/{uuid()}"
    assert hook.split("webhookb2/")[1][:20] not in Redactor().redact_text(hook)
    assert Redactor().redact_text("precious ciocco api-version 2024-05-01 mob-app") == "precious ciocco api-version 2024-05-01 mob-app"
