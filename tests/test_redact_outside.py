"""Recall and damage on an evaluation set written apart from the rules
(``fixtures/redaction/outside.py``): 54 credential shapes of vendors and
public scanners, each in 27 contexts of tool outputs and prompts (env
dumps, tokens printed alone and after the command that printed them,
tables, ``kubectl``, curl ``-v``, logs, URLs, percent-encoded values,
cookies), and look-alikes (git SHAs, UUIDs, ULIDs, lockfile hashes, base64
images, ids, host names, tables and query strings with nothing secret).

The thresholds are the figures measured on seeds 1 to 8, so a change that
loses recall in a context, or damages a look-alike, fails here; the
contexts below 1.0 are the shapes listed under "What is not detected" in
docs/redaction.md (hex, UUIDs and passwords printed alone with no command
before them, values in prose with no credential noun)."""

from __future__ import annotations

import sys
from collections import Counter

import orjson
import pytest

from conftest import FIXTURES, corpus_files, requires_corpus
from redact_sets import findings_pass_both_screens, without_re2

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import classes  # noqa: E402
import outside  # noqa: E402

SEEDS = (1, 2)
# the least recall measured per context over seeds 1-8
MIN_RECALL = {
    "printed-alone": 0.85, "printed-alone-read": 0.83, "prompt-alone": 0.83, "prompt-bare": 0.77,
    "printed-after-command": 0.98, "prompt-key": 0.88, "vault-kv-get": 0.98, "kubectl-secret-yaml": 0.98, "basic-auth-url": 0.96,
}
OVERALL = 0.965
# JSON values under an id-like key (an S3 ``VersionId``) are judged
# without their key when the JSON is parsed: one per seed and iteration
MAX_DAMAGED_PLAIN = 4


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed{s}")
def evaluation(request):
    return outside.cases(request.param), outside.look_alikes(request.param)


def _scores(cases, haystack_of):
    totals, missed = Counter(), Counter()
    examples = []
    for case in cases:
        context = case.klass.split("/")[0]
        totals[context] += 1
        if classes.survives(case.secrets[0], haystack_of(case)):
            missed[context] += 1
            examples.append(f"{case.klass}: {case.chunks[0][:100]!r}")
    return totals, missed, examples


def _check(totals, missed, examples):
    low = {c: round(1 - missed[c] / totals[c], 3) for c in totals if 1 - missed[c] / totals[c] < MIN_RECALL.get(c, 1.0)}
    overall = 1 - sum(missed.values()) / sum(totals.values())
    assert not low and overall >= OVERALL, f"recall {overall:.4f}, below the floor: {low}\n" + "\n".join(examples[:30])


def test_the_set_is_large_and_covers_the_contexts(evaluation):
    cases, look_alikes = evaluation
    assert len(cases) >= 1400 and len(look_alikes) >= 120
    contexts = {case.klass.split("/")[0] for case in cases}
    assert {"printed-alone", "printed-after-command", "markdown-table-row", "psql-expanded", "percent-nested-redirect", "kubectl-secret-yaml"} <= contexts
    assert len({case.klass.split("/")[1] for case in cases}) >= 50


def test_recall_per_context_in_plain_text(evaluation):
    cases, _ = evaluation
    outputs = outside.plain_outputs(Redactor(), cases)
    _check(*_scores(cases, lambda case: outputs[id(case)]))


@pytest.mark.parametrize("make_lines", [outside.claude_code_lines, outside.codex_lines], ids=["claude-code", "codex"])
def test_recall_per_context_in_transcripts(evaluation, make_lines):
    cases, look_alikes = evaluation
    redactor = Redactor()
    haystacks = {}
    for case in cases + look_alikes:
        lines = [redactor.redact_json_line(line) for line in make_lines([case])]
        strings: list[str] = []
        for line in lines:
            classes.decoded_strings(orjson.loads(line), strings)  # every redacted line parses
        haystacks[id(case)] = "\n".join(line.decode() if isinstance(line, bytes) else line for line in lines) + "\n\x00\n" + "\n\x00\n".join(strings)
    _check(*_scores(cases, lambda case: haystacks[id(case)]))
    damaged = [case.klass for case in look_alikes for keep in case.keeps if keep not in haystacks[id(case)]]
    assert not damaged, damaged


def test_look_alikes_are_kept(evaluation):
    _, look_alikes = evaluation
    outputs = outside.plain_outputs(Redactor(), look_alikes)
    damaged = [f"{case.klass}: {outputs[id(case)][:120]!r}" for case in look_alikes
               if any(keep not in outputs[id(case)] for keep in case.keeps) or "[REDACTED:" in outputs[id(case)]]
    assert all(d.startswith("s3-etag") for d in damaged) and len(damaged) <= MAX_DAMAGED_PLAIN, "\n".join(damaged)


def test_every_finding_passes_both_screens(evaluation):
    cases, look_alikes = evaluation
    assert findings_pass_both_screens(Redactor(), cases + look_alikes) >= 1000


def test_the_same_without_re2(evaluation, monkeypatch):
    cases, look_alikes = evaluation
    fast = outside.plain_outputs(Redactor(), cases + look_alikes)
    without_re2(monkeypatch)
    slow = outside.plain_outputs(Redactor(), cases + look_alikes)
    assert [fast[id(c)] for c in cases + look_alikes] == [slow[id(c)] for c in cases + look_alikes]


def test_a_printed_value_is_judged_by_the_command_before_it():
    redactor = Redactor()
    hex_key = "813b0263af1b78a90017fba7e11d6b1f"
    assert redactor.redact_text("git rev-parse HEAD") == "git rev-parse HEAD"
    assert redactor.redact_text(hex_key + "\n") == hex_key + "\n"  # an id or a digest, kept
    redactor = Redactor()
    redactor.redact_text("cat ~/.config/datadog/api_key")
    assert redactor.redact_text(hex_key + "\n") == "[REDACTED:secret#1]\n"
    assert redactor.redact_text(hex_key + "\n") == "[REDACTED:secret#1]\n"  # Claude Code's stdout copy
    redactor.redact_text("cat ~/.config/datadog/api_key")  # run again: its output is judged again
    assert redactor.redact_text("0b121518e42d2b5dfb9cd5fc81ee7f47\n") == "[REDACTED:secret#2]\n"
    # the window closes at the command's output: the next command's is kept
    redactor.redact_text("printenv VAULT_TOKEN_FILE")
    assert redactor.redact_text("/etc/vault/token\n") == "/etc/vault/token\n"
    redactor.redact_text("git log -1 --format=%H")
    assert redactor.redact_text("0b121518e42d2b5dfb9cd5fc81ee7f475d649ea0\n") == "0b121518e42d2b5dfb9cd5fc81ee7f475d649ea0\n"


def test_percent_encoded_values_keep_their_escapes_in_userinfo():
    out = Redactor().redact_text("DATABASE_URL=postgres://app:p%40ss%2Fw0rd%21x@db:5432/app")
    assert out == "DATABASE_URL=postgres://app:[REDACTED:url-password#1]@db:5432/app", out
    out = Redactor().redact_text("Location: /continue?next=https%3A%2F%2Fapp.example.org%2Fcb%3Ftoken%3Dghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "%26x%3D1")
    assert "ghp_" not in out and out.startswith("Location: /continue?next=https%3A%2F%2Fapp.example.org%2Fcb%3Ftoken%3D[REDACTED:github-token#1]"), out


@requires_corpus
def test_real_transcripts_lose_nothing_more():
    """On the shared corpus redact changes 9 usernames and 4 emails, and
    nothing the rules above added."""
    redactor = Redactor()
    for path in corpus_files("claude-code", "*.jsonl") + corpus_files("codex", "*.jsonl"):
        for line in path.read_bytes().splitlines():
            if line.strip():
                try:
                    redactor.redact_json_line(line)
                except ValueError:
                    pass
    kinds = {kind: len(values) for kind, values in redactor._numbers.items()}
    assert set(kinds) <= {"username", "email"}, kinds
    assert sum(kinds.values()) <= 13, kinds
