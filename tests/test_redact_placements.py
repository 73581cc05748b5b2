"""Recall and damage on a third evaluation set
(``fixtures/redaction/placements.py``): 41 credential shapes (31 providers
with a prefix or structure none of the other sets holds, such as OpenShift
``sha256~``, Authress, Zoho, eBay, WooCommerce, Artifactory, YouTrack,
Onfido, Persona, Stytch, Bitwarden, PagerDuty ``u+`` and Vultr; known
shapes and opaque values, generated passwords and passwords whose symbols
read as code) in 20 credential carriers (JSON tool inputs and outputs,
JSON escaped in a string, query strings and SAS URLs, Basic and Token
headers, ``.pypirc``, ``.netrc``, ``.git-credentials``, kubeconfig, docker
``config.json``, AWS credential files, ``printenv``, ``docker inspect``,
connection strings of 21 schemes, log lines, Helm values, an assistant
repeating the value, an answer with a lead-in after a question for a
credential), whole credentials (service-account JSON and PEM, OpenSSH and
PGP blocks escaped once or twice, JWTs, Digest responses, STS JSON), and
30 kinds of ordinary values in the same carriers.

The floors are the figures measured on seeds 1 to 4 (docs/redaction.md,
"Figures"): the context below 1.0 loses one value of 41, a password whose
quote or backslash ends an escaped JSON string early."""

from __future__ import annotations

import sys

import pytest

from conftest import FIXTURES
from redact_sets import check_score, findings_pass_both_screens, without_re2

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import placements  # noqa: E402

MIN_RECALL = {"escaped-json-in-string": 0.97}
OVERALL = 0.998


def _check(score):
    check_score(score, MIN_RECALL, OVERALL, keeps_at_least=100)


def test_the_set_is_large_and_covers_the_carriers():
    cases, look_alikes = placements.cases(1), placements.look_alikes(1)
    assert len(cases) >= 900 and len(look_alikes) >= 100
    assert len({case.klass.split("/")[0] for case in cases}) >= 25
    assert len({case.klass.split("/")[1] for case in cases}) >= 40
    assert len({case.klass for case in look_alikes}) >= 25


@pytest.mark.parametrize("seed", (1, 2))
def test_recall_and_damage_in_plain_text(seed):
    _check(placements.score(Redactor, (seed,)))


def test_recall_and_damage_inside_claude_code_and_codex_sessions():
    _check(placements.score(Redactor, (3,), transcripts=True))


def test_every_finding_passes_both_screens():
    assert findings_pass_both_screens(Redactor(), placements.cases(2) + placements.look_alikes(2)) >= 800


def test_the_same_without_re2(monkeypatch):
    cases = placements.cases(4)[::3] + placements.look_alikes(4)
    fast = [Redactor().redact_text(case.chunks[0]) for case in cases]
    without_re2(monkeypatch)
    assert [Redactor().redact_text(case.chunks[0]) for case in cases] == fast


# -- the rules, one by one ---------------------------------------------------------


@pytest.mark.parametrize("family", ["openshift", "scalingo", "intra42", "authress", "infracost", "maxmind", "yandex-api-key", "yandex-iam", "zoho",
                                    "ebay", "woocommerce", "artifactory", "youtrack", "segment", "databricks-oauth", "defined-networking",
                                    "devcycle", "mercury", "midtrans", "onfido", "persona", "unkey", "lichess", "wakatime", "pangea", "deno",
                                    "stytch", "apify", "arcgis", "pinterest", "bitwarden", "pagerduty"])
def test_new_vendor_shapes_are_found_in_a_sentence(family):
    value = {f: v for f, _, v in placements.families(placements.Fakes(21))}[family]
    out = Redactor().redact_text(f"the deploy failed with {value} in the log")
    assert value not in out and "[REDACTED:" in out, out


def test_a_bitwarden_token_and_a_pagerduty_key_printed_alone():
    assert Redactor().redact_text("0.918d85be-0ba9-4c97-bb53-123c55a071a0.8KVBaphJj7DvFma9DeC9zTsZyjUnvC:gJHmODclTqOG9M6SOPSI5S==\n") == "[REDACTED:bitwarden-token#1]\n"
    assert Redactor().redact_text("u+SfKdHZVVvatYXSxk1w\n") == "[REDACTED:pagerduty-key#1]\n"
    # a base64 run that holds "u+", a Unicode code point and a version are kept
    for text in ("data: QUJDu+SfKdHZVVvatYXSxk1wQUJD", "U+1F600 GRINNING FACE", "0.12.3-rc.1"):
        assert Redactor().redact_text(text) == text, text


def test_capitals_and_digits_printed_alone():
    assert Redactor().redact_text("AL5KIRIR4BCEIT31NPG0GHYHKHXDH14TGSJ3\n") == "[REDACTED:high-entropy#1]\n"
    # ULIDs, AWS request ids and capitals with few digits are kept
    for text in ("01HQ3V6Z8K2J4M5N7P9R0S1T2W\n", "x-amz-request-id: 33X3H20VK8D2Y885\n", "AWS_REGION_EU_WEST_1_BUCKET_NAME_PROD\n"):
        assert Redactor().redact_text(text) == text, text


def test_an_answer_with_a_lead_in_after_a_question_for_a_credential():
    for answer in ("here it is: 39b5312ea9f57ca79c09826b480db306e6a28e44", "use this: 39b5312ea9f57ca79c09826b480db306e6a28e44",
                   "here you go\n39b5312ea9f57ca79c09826b480db306e6a28e44", "Here it is -> 39b5312ea9f57ca79c09826b480db306e6a28e44"):
        redactor = Redactor()
        redactor.redact_text("What is your Datadog API key?")
        assert "39b5312ea9f5" not in redactor.redact_text(answer), answer
    # the same answer after a question that asks for no credential is kept
    redactor = Redactor()
    redactor.redact_text("Which commit should I cherry-pick?")
    assert redactor.redact_text("here it is: 39b5312ea9f57ca79c09826b480db306e6a28e44") == "here it is: 39b5312ea9f57ca79c09826b480db306e6a28e44"
    redactor = Redactor()
    redactor.redact_text("What is your API key?")
    assert redactor.redact_text("here it is: I don't have it yet, use the staging one") == "here it is: I don't have it yet, use the staging one"


def test_a_digest_response_and_a_variable_named_in_prose():
    out = Redactor().redact_text('> Authorization: Digest username="ops", realm="api", nonce="5f5a276a3420827fc9ef7ceb4ea54fc4", uri="/v1/me", '
                                 'response="6629fae49393a05397450978507c4ef1"')
    assert "6629fae4939" not in out and 'username="ops"' in out and "5f5a276a3420827f" in out, out
    out = Redactor().redact_text("Done: I set `DB_PASSWORD` to `7NNmR4Li5J9NKRhO` in `.env.local`.")
    assert out == "Done: I set `DB_PASSWORD` to `[REDACTED:password#1]` in `.env.local`.", out
    for text in ("I set `DB_PASSWORD` to `<your password>` for now.", "I set `LOG_LEVEL` to `debug` and `PORT` to `8080`."):
        assert Redactor().redact_text(text) == text, text


def test_a_password_whose_brackets_read_as_code():
    assert Redactor().redact_text("ADMIN_PASSWORD=NM[z9ZY{oJpa#QhkY>8\n") == "ADMIN_PASSWORD=[REDACTED:password#1]\n"
    assert "PF[lqFl" not in Redactor().redact_text('{"apiKey": "PF[lqFl%3Af5F{)"}')
    # an index, a call or a type is still a reference to the value
    for text in ('password = os.environ["DB_PASSWORD"]', "PASSWORD = getpass()", "token: Option<String>", "api_key = keys[2]"):
        assert Redactor().redact_text(text) == text, text


def test_look_alikes_of_the_same_carriers():
    for text in ("Transaction sent: 0x" + "7719a649d71a6a307200420ea4a63e669254101530c1b31df2145b94a497e433" + "\n",
                 "< x-amz-id-2: mH3bQn0WcHk1T2jyNx7cCkq9c3m1h3fZt5PqYzCw8mRkXJzL0pQ7aR3tY9uI2oE4wQ6sD8fG0hJ=\n",
                 "[pypi]\nusername = __token__\npassword = <your PyPI token>\n"):
        assert Redactor().redact_text(text) == text, text
    # an Ethereum key printed alone or under a name is still a secret
    key = "0x" + "08e959da4bb5f3d9064f6af5b341459271f1dfc26f79acbbf1c07b432f8776c9"
    assert key not in Redactor().redact_text(key + "\n")
    assert key not in Redactor().redact_text("PRIVATE_KEY=" + key)


def test_a_password_that_ends_its_line_whatever_it_holds():
    assert Redactor().redact_text("[admin]\nadmin_password = 6m'8}H^Z76<Ne$iu;pC*Q$^\n") == "[admin]\nadmin_password = [REDACTED:password#1]\n"
    assert Redactor().redact_text('admin_password = "TbD\'[de$5Kv5p2\n') == "admin_password = [REDACTED:password#1]\n"
    assert Redactor().redact_text("token: ,u\\}Yp'!p&]{43G\n") == "token: [REDACTED:token#1]\n"
    # quoted values and code keep their quotes, calls and patterns are kept
    assert Redactor().redact_text('PASSWORD="Tiger3068maple";') == 'PASSWORD="[REDACTED:password#1]";'
    for text in ('token_re = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|(\\[\\d+\\])")\n', "const token=localStorage.getItem('token');\n",
                 "password = os.environ.get('DB_PASS', '')\n", "password:req.body.password,\n", "PASSWORD=$DB_PASSWORD\n", "password: $HOME/.pgpass\n"):
        assert Redactor().redact_text(text) == text, text


def test_a_password_starting_with_a_variable_sign_or_a_bracket():
    for text, value in (("SMTP_PASSWORD=[s7hbTRG/!UeZdI&%_j", "[s7hbTRG"), ('api_key="$S@+mp2%k~*$:^H[81:"', "$S@+mp2"),
                        ('curl -H "Authorization: Bearer $Y6$X=Dm#wy9" https://x.example', "$Y6$X"),
                        ('curl -H "Authorization: Bearer awn[I#X2&e*py#vdx=u%X" https://x.example', "awn[I#X2")):
        assert value not in Redactor().redact_text(text), text
    for text in ("token = $env:TOKEN", "api_key = keys[2]", "PASSWORD=${DB_PASS}", "token: Option<String>"):
        assert Redactor().redact_text(text) == text, text


def test_passwords_fed_on_standard_input_and_to_redis_and_az():
    for text in ("echo 'Qm7pLIix6MEOx2' | sudo -S apt-get update", "sudo -S <<< 'Qm7pLIix6MEOx2' ls",
                 "echo \"Qm7pLIix6MEOx2\" | docker login -u deploy --password-stdin ghcr.io", "docker login -u deploy --password-stdin <<< 'Qm7pLIix6MEOx2'",
                 "requirepass Qm7pLIix6MEOx2\n", "127.0.0.1:6379> AUTH default Qm7pLIix6MEOx2", "redis-cli -h cache AUTH Qm7pLIix6MEOx2",
                 "az login --service-principal -u 1b2c3d4e-0000-4000-8000-000000000001 -p Qm7pLIix6MEOx2 --tenant t",
                 "mysql -u root -p'Qm7pLIix6MEOx2' -e 'show databases'", "api key below\n8Ctx0RzI&^%h!Uqj"):
        assert "Qm7pLIix6MEOx2" not in Redactor().redact_text(text) and "8Ctx0RzI" not in Redactor().redact_text(text), text
    for text in ("echo $PW | sudo -S ls", "echo test | sudo -S whoami", "redis-cli -h cache AUTH $REDIS_PASSWORD", "git commit -m \"auth middleware\"",
                 "the refresh-token flow and the client-secret rotation", "The key here is caching 2 layers", "Press the key below to continue 3 times"):
        assert Redactor().redact_text(text) == text, text


def test_a_setting_named_in_prose_is_kept():
    for text in ("Changed `password_hash` to `bcrypt`", "I set `AUTH_MODE` to `oauth2-pkce` in config.", "set `token_type` to `Bearer`",
                 "renamed `get_token` to `fetch_token`", "Set `SECRET_KEY` to `os.environ[\"SECRET_KEY\"]`"):
        assert Redactor().redact_text(text) == text, text
    assert Redactor().redact_text("I set `DB_PASSWORD` to `BTYgmL-pmbxtDBQ` ok") == "I set `DB_PASSWORD` to `[REDACTED:password#1]` ok"


@pytest.mark.parametrize("text", ["call unkey_verifyKeyResponse now", "dvc_server_configuration_options_default",
                                  "kubectl get secret secret-test-database-credentials-production", "C++ and u+abcdefghijklmnopqr in a note"])
def test_identifiers_with_a_vendor_prefix_are_kept(text):
    assert Redactor().redact_text(text) == text
