"""Recall and damage on a held-out evaluation set
(``fixtures/redaction/heldout.py``): 51 credential shapes of providers the
other sets leave out (prefixed: NVIDIA, ReadMe, Rootly, Bitbucket Data
Center, Brevo, Honeycomb, Axiom, Infisical, Azure keys with their
signature, ...; opaque: Mistral, Cohere, W&B, Postmark and Snyk UUIDs,
Linode, Vultr, passwords with symbols and URL-reserved characters), each
in 21 placements of agent sessions (a ``.env`` written by a tool,
``export`` and ``docker run -e`` commands, curl ``-H``, Python keyword
arguments, a JSON config read with line numbers, CI ``env:``, tfvars,
TOML, PowerShell, ``heroku config:set``, ``kubectl --from-literal``, ``helm
--set``, Java ``-D``, ODBC strings, npmrc, OAuth token responses, URL
userinfo with reserved characters, prompts that paste only the value,
the answer to an assistant's question, values printed alone), and 45
kinds of ordinary values that must be kept (git SHAs and their listings,
UUIDs in requests, networks, Kubernetes and Azure ids, trace ids, base64
images, lockfiles of five ecosystems, LFS pointers, Nix paths, digests,
GPG fingerprints, minified code with a source map, hashed CSS class
names, S3 version ids, CloudFront ids, Terraform state, cuids, Stripe ids,
placeholders).

The floors are the figures measured on seeds 1 to 4 (docs/redaction.md,
"Figures"), so a change that loses recall in a placement or damages an
ordinary value fails here."""

from __future__ import annotations

import sys

import pytest

from conftest import FIXTURES
from redact_sets import check_score, findings_pass_both_screens, without_re2

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import heldout  # noqa: E402

# the least recall measured per placement over seeds 1-4 (plain text)
# and seed 3 (sessions); 1.0 elsewhere
MIN_RECALL = {"printed-alone": 0.78, "prompt-here-is": 0.88, "curl-header": 0.96, "docker-run-env": 0.98, "helm-set": 0.98,
              "python-kwarg": 0.98, "powershell-env": 0.98, "url-userinfo-reserved": 0.98, "prompt-after-question": 0.98}
OVERALL = 0.98


def _check(score):
    check_score(score, MIN_RECALL, OVERALL, keeps_at_least=200)


def test_the_set_is_large_and_covers_the_placements():
    cases, look_alikes = heldout.cases(1), heldout.look_alikes(1)
    assert len(cases) >= 1000 and len(look_alikes) >= 200
    assert len({case.klass.split("/")[0] for case in cases}) >= 20
    assert len({case.klass.split("/")[1] for case in cases}) >= 50
    assert len({case.klass for case in look_alikes}) >= 40


@pytest.mark.parametrize("seed", (1, 2))
def test_recall_and_damage_in_plain_text(seed):
    _check(heldout.score(Redactor, (seed,)))


def test_recall_and_damage_inside_claude_code_and_codex_sessions():
    _check(heldout.score(Redactor, (3,), transcripts=True))


def test_every_finding_passes_both_screens():
    assert findings_pass_both_screens(Redactor(), heldout.cases(2) + heldout.look_alikes(2)) >= 800


def test_the_same_without_re2(monkeypatch):
    cases = heldout.cases(4)[::3] + heldout.look_alikes(4)
    fast = [Redactor().redact_text(case.chunks[0]) for case in cases]
    without_re2(monkeypatch)
    assert [Redactor().redact_text(case.chunks[0]) for case in cases] == fast


# -- the classes closed, one by one ----------------------------------------------


def test_a_value_answering_a_question_for_a_credential():
    for question in ("token?", "What is your Datadog API key?", "I need the POSTMARK_SERVER_TOKEN. Can you paste it here?",
                     "Please share the secret key so I can configure the client.", "Could you provide the password for the staging database?"):
        redactor = Redactor()
        redactor.redact_text(question)
        assert redactor.redact_text("0b121518e42d2b5dfb9cd5fc81ee7f47\n") == "[REDACTED:secret#1]\n", question
    redactor = Redactor()
    redactor.redact_text("What is the API key?")
    assert redactor.redact_text("sure: 0b121518-e42d-4b5d-9b9c-d5fc81ee7f47") == "sure: [REDACTED:secret#1]"
    # prose that names a credential without asking for it opens nothing
    for prose in ("Send the token as `Authorization: Bearer <token>` with each request.", "The key insight is caching."):
        redactor = Redactor()
        redactor.redact_text(prose)
        assert redactor.redact_text("0b121518e42d2b5dfb9cd5fc81ee7f475d649ea0\n") == "0b121518e42d2b5dfb9cd5fc81ee7f475d649ea0\n", prose
    # an answer that is a word, a number or a path is kept
    redactor = Redactor()
    redactor.redact_text("What is your API token?")
    assert redactor.redact_text("I don't have one yet") == "I don't have one yet"


def test_a_password_with_symbols_printed_alone():
    redactor = Redactor()
    assert redactor.redact_text("4!dgO%4HMp9$F&\n") == "[REDACTED:password#1]\n"
    assert redactor.redact_text("     1\u2192eY3O9D9$[#3!96*&\n") == "     1\u2192[REDACTED:password#2]\n"
    kept = ["9fafceb7ae33b7f5@v2", "left-pad@1.3.0", "dev@example.com", "node@22.11.0", "$HOME/bin", "#include", "C++17!",
            "a&&b||c", "Hello,World!2024", "--force-with-lease", "~/.config/app", "https://x.io/a?b=1", "ERROR!!!", "[1/20]",
            "#ff00aa", "v1.2.3-rc.1+build.5", "foo!=bar123", "${API_KEY}", "50%", "TODO!123", "Step[3]:"]
    for text in kept:
        assert Redactor().redact_text(text + "\n") == text + "\n", text


def test_a_url_password_holding_reserved_characters():
    out = Redactor().redact_text("DATABASE_URL=postgresql://app:n+LEN2dl/DXmW@yqUD==@db.example.net:5432/app")
    assert out == "DATABASE_URL=postgresql://app:[REDACTED:url-password#1]@db.example.net:5432/app", out
    out = Redactor().redact_text("amqp://app:Kq/#x:0$%Yvkm#IMp@mq.example.org:5672/vhost")
    assert out == "amqp://app:[REDACTED:url-password#1]@mq.example.org:5672/vhost", out
    # a port and a path with "@" in them are not a password
    for text in ("http://localhost:3001/@scope/pkg", "see http://host.example:8080/a/b@c.d/e", "https://cdn.example.net/npm/pkg@1.0.0/dist/x.js"):
        assert Redactor().redact_text(text) == text, text


def test_identifiers_in_parsed_json_are_not_judged_by_entropy():
    redactor = Redactor()
    text = '{"Versions": [{"Key": "db.sql.gz", "VersionId": "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrH", "id": "clra4znjoprcol5svo5i0q29n"}]}'
    assert redactor.redact_text(text) == text
    # a credential under an id-like key is still found by its shape
    leaked = '{"id": "ghp_' + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + '"}'
    assert "ghp_" not in redactor.redact_text(leaked)
    assert redactor.redact_text('{"arn": "arn:aws:ec2:eu-west-1:123456789012:instance/i-0a1b2c3d4e5f60718"}').endswith('60718"}')


def test_a_value_left_out_is_a_placeholder():
    text = "STRIPE_SECRET_KEY=sk_test_...\nOPENAI_API_KEY=sk-...\n"
    assert Redactor().redact_text(text) == text


@pytest.mark.parametrize("family", ["nvidia", "readme", "rootly", "bitbucket-dc", "flutterwave", "brevo", "honeycomb", "axiom", "easypost",
                                    "zuplo", "anyscale", "jina", "browserbase", "checkout-sandbox", "samsara", "telnyx", "jfrog-reference",
                                    "mailersend", "infisical", "braintree", "intercom", "yandex-oauth", "adobe", "ionic", "cloudflare-tunnel",
                                    "azure-function-key", "azure-search-key"])
def test_new_vendor_shapes_are_found_alone_in_a_sentence(family):
    value = {f: v for f, _, v in heldout.families(heldout.Fakes(11))}[family]
    out = Redactor().redact_text(f"the deploy failed with {value} in the log")
    assert value not in out and "[REDACTED:" in out, out
