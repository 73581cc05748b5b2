"""The redact stage reads events a batch at a time: the output is the same
event for event, failures come after every event read before them, and a
batch never runs past a session boundary or a bound on the text it holds."""

from __future__ import annotations

import pytest

from sessionport.errors import SessionportError
from sessionport.redaction import Redactor, screen
from sessionport.stages import redact as stage_module
from sessionport.stages.redact import build, event_redactor, in_batches

GH = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"  # fake, assembled at run time


def messages(count, start=0):
    return [
        {"type": "message", "role": "tool", "text": f"step {n}: export GITHUB_TOKEN={GH}{n % 3} and mail dev{n}@example.org", "meta": {"kind": "tool_result", "n": n}}
        for n in range(start, start + count)
    ]


def stream_of(count):
    return [{"type": "session", "schema": "sessionport/v1", "source": "codex", "sessionId": "s-1"}, *messages(count), {"type": "end"}]


def one_by_one(events):
    return list(map(event_redactor(Redactor()), events))


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 200])
def test_batches_give_the_events_of_one_at_a_time(count):
    events = stream_of(count)
    assert list(build()(iter(events))) == one_by_one(events)


class Broken(SessionportError):
    pass


def failing_after(events):
    yield from events
    raise Broken("line 71: bad record")


def test_events_read_before_a_failure_are_passed_on_first():
    events = stream_of(70)
    seen = []
    with pytest.raises(Broken):
        for event in build()(failing_after(events)):
            seen.append(event)
    assert seen == one_by_one(events)


def test_a_failure_of_redaction_comes_after_the_events_before_it():
    calls = []

    def redact(event):
        if len(calls) == 5:
            raise Broken("cannot redact")
        calls.append(event)
        return event

    seen = []
    with pytest.raises(Broken):
        for event in in_batches(iter(messages(20)), redact):
            seen.append(event)
    assert seen == messages(5)


def pulled(events, log):
    for event in events:
        log.append(event)
        yield event


def test_a_batch_ends_after_a_session_header():
    # a writer that holds one session stops at the second header: the
    # reader must not have been asked for the events after it
    events = stream_of(3) + stream_of(100)
    log = []
    for event in build()(pulled(events, log)):
        if event["type"] == "session" and event is not log[0]:
            break
    assert log[-1]["type"] == "session" and len(log) == 6


def test_a_batch_ends_at_its_text_bound(monkeypatch):
    monkeypatch.setattr(stage_module, "_BATCH_CHARS", 1000)
    big = [{"type": "message", "role": "assistant", "text": "x" * 600} for _ in range(10)]
    log = []
    first = next(iter(build()(pulled(big, log))))
    assert first == big[0] and len(log) == 2


def test_a_batch_counts_tool_input_text(monkeypatch):
    monkeypatch.setattr(stage_module, "_BATCH_CHARS", 1000)
    big = [{"type": "message", "role": "assistant", "text": "", "toolName": "Write", "toolInput": {"file_path": "a.txt", "content": "y" * 600}} for _ in range(10)]
    log = []
    next(iter(build()(pulled(big, log))))
    assert len(log) == 2


@pytest.mark.skipif(not screen.FAST, reason="google-re2 is not installed")
@pytest.mark.parametrize(
    "text",
    [
        "curl -H 'X-Auth-Token: 4f9a8b7c6d5e4f3a2b1c'",
        'curl --header "PRIVATE-TOKEN: glpat-Zq8vLm2Rx7Tn4Wp9Ks3D"',
        "gh auth login --with-token Zq8vLm2Rx7Tn4Wp9",
        "deploy --client-secret Zq8vLm2Rx7Tn4Wp9 --region eu",
        "x-service-auth\\\":  \\\"Zq8vLm2Rx7Tn4Wp9\\\"",
    ],
)
def test_the_screen_keeps_what_the_dash_rules_find(text):
    redactor = Redactor()
    assert redactor.find(text), text
    assert screen.quick_might_hold(text, pii_on=True) is True
    assert redactor.redact_text(text) != text


@pytest.mark.skipif(not screen.FAST, reason="google-re2 is not installed")
def test_dash_words_of_prose_and_diffs_are_screened_out():
    for text in ("@@\n-token of pass module\n-class Cart:\n+token a return", "the refresh-token flow and the client-secret rotation", "read the x-auth docs"):
        assert screen.quick_might_hold(text, pii_on=True) is False, text
        assert Redactor().redact_text(text) == text


def corpus_messages():
    import sys

    from conftest import FIXTURES

    sys.path.insert(0, str(FIXTURES / "redaction"))
    from cases import build_cases

    secrets, keeps = build_cases(3)
    texts = [case.text for case in secrets + keeps]
    # a username learned half-way, then met in texts the screen finds clear
    texts[len(texts) // 2 : len(texts) // 2] = ["cd /home/qzkrol7/src && make", "qzkrol7 ran the tests", "the tests ran fine for qzkrol7"]
    texts += ["plain words of prose", "  [1, 2]", "{not json", "caf\u00e9 prose", "short"]
    return [{"type": "message", "role": "tool", "text": text, "meta": {"kind": "tool_result"}} for text in texts]


def test_texts_screened_together_give_what_each_gives_alone(monkeypatch, capsys):
    # secrets in every batch first (joins with hits), then clear prose in
    # which the username learned above comes back now and then
    prose = [{"type": "message", "role": "assistant", "text": f"plain words of prose {n}" + (" for qzkrol7" if n % 7 == 0 else "")} for n in range(400)]
    events = stream_of(3) + corpus_messages() + prose + stream_of(2)
    alone = Redactor()
    expected = list(map(event_redactor(alone), events))
    looked_at = []
    redact_text = Redactor.redact_text

    def counting(self, text):
        looked_at.append(text)
        return redact_text(self, text)

    monkeypatch.setattr(Redactor, "redact_text", counting)
    assert list(build(report=True)(iter(events))) == expected
    assert capsys.readouterr().err == f"sessionport: redact: redacted {stage_module.describe_counts(alone.counts)}\n"
    if screen.FAST:
        # the clear texts of the later batches were not looked at one by one
        assert 0 < len(looked_at) < len(events) - len(prose) // 2
    assert any("[REDACTED:username#" in event.get("text", "") for event in expected if "ran" in event.get("text", ""))
    start = events.index(prose[0])
    for n, event in enumerate(expected[start : start + len(prose)]):
        assert "qzkrol7" not in event["text"] and ("[REDACTED:username#" in event["text"]) == (n % 7 == 0)


def test_short_texts_already_cached_are_answered_by_the_cache(monkeypatch):
    # repeated texts, among new ones: once redact_text has cached them (with
    # their hits), they are left out of the joins, which then have no hit
    repeated = ["Read: /home/dev/shop/src/cart.ts", f"export GITHUB_TOKEN={GH}"]
    events = [{"type": "message", "role": "tool", "text": repeated[n % 2] if n % 3 else f"plain words of prose {n}"} for n in range(300)]
    joins = []
    join_is_clear = screen.join_is_clear

    def recording(texts):
        joins.append((list(texts), join_is_clear(texts)))
        return joins[-1][1]

    monkeypatch.setattr(screen, "join_is_clear", recording)
    assert list(build()(iter(events))) == one_by_one(events)
    if screen.FAST:
        # the first join holds the repeated texts and has hits; after a
        # batch screened text by text, the joins hold only new clear texts
        assert joins[0][1] is False and set(repeated) <= set(joins[0][0])
        assert len(joins) >= 2
        for texts, clear in joins[1:]:
            assert clear and not set(repeated) & set(texts)


def test_joins_with_hits_are_tried_ever_more_rarely(monkeypatch):
    # every batch holds a new text with a hit: joins are tried 1, 2, 4 ... batches apart
    events = [{"type": "message", "role": "tool", "text": f"cd /home/dev/p{n} && plain words of prose {n}"} for n in range(64 * 40)]
    joins = []
    join_is_clear = screen.join_is_clear

    def recording(texts):
        joins.append(len(texts))
        return join_is_clear(texts)

    monkeypatch.setattr(screen, "join_is_clear", recording)
    assert list(build()(iter(events))) == one_by_one(events)
    if screen.FAST:
        assert 4 <= len(joins) <= 7  # batches 1, 3, 6, 11, 20, 37
