"""The redactor remembers the key plans of dict shapes it has seen; a dict
of a known shape must come out exactly as the general path makes it."""

from __future__ import annotations

from sessionport.redaction import Redactor

SECRET = "ghp_" + "a1B2c3D4e5" * 4


def test_a_known_shape_is_redacted_like_the_first_dict_of_it():
    redactor = Redactor()
    first = redactor.redact_dict({"cmd": f"export T={SECRET}", "n": 3, "kind": "x"}, keep_ids=True)
    again = redactor.redact_dict({"cmd": f"export T={SECRET}", "n": 3, "kind": "x"}, keep_ids=True)
    assert first == again == {"cmd": "export T=[REDACTED:github-token#1]", "n": 3, "kind": "x"}
    assert redactor.counts["github-token"] == 2


def test_a_learned_username_reaches_keys_of_known_shapes():
    redactor = Redactor()
    shaped = {"owner jdoe99x": 1, "kind": "x"}
    assert redactor.redact_dict(shaped) is shaped
    assert redactor.redact_dict(dict(shaped)) == shaped
    assert redactor.redact_text("ls /home/jdoe99x/src") == "ls /home/[REDACTED:username#1]/src"
    assert redactor.redact_dict(dict(shaped)) == {"kind": "x", "owner [REDACTED:username#1]": 1}


def test_a_username_learned_inside_a_dict_of_known_shape_reaches_its_later_keys():
    redactor = Redactor()
    assert redactor.redact_value({"a": "hello there", "owner bob1234x": 1}) == {"a": "hello there", "owner bob1234x": 1}
    # Same shape: the value teaches the name, the key after it holds it.
    expected = {"a": "see /home/[REDACTED:username#1]/src", "owner [REDACTED:username#1]": 1}
    assert redactor.redact_value({"a": "see /home/bob1234x/src", "owner bob1234x": 1}) == expected
    assert Redactor().redact_value({"a": "see /home/bob1234x/src", "owner bob1234x": 1}) == expected


def test_secret_names_in_keys_and_name_value_pairs_keep_their_rules():
    redactor = Redactor()
    for _ in range(2):
        assert redactor.redact_dict({"name": "API_TOKEN", "value": "s3cr3tV4lue9"}) == {"name": "API_TOKEN", "value": "[REDACTED:token#1]"}
        assert redactor.redact_dict({"password": "hunter2hunter2", "id": "abc"}, keep_ids=True) == {"password": "[REDACTED:password#1]", "id": "abc"}
        assert redactor.redact_dict({SECRET: 1}) == {"[REDACTED:github-token#1]": 1}


def test_long_keys_are_redacted_but_not_remembered():
    redactor = Redactor()
    for n in range(50):
        key = "k" * 300 + str(n)
        assert redactor.redact_value({key: f"ls /home/jdoe99x/{n}", "x": 1})[key] == f"ls /home/[REDACTED:username#1]/{n}"
    # Data used as keys does not pile up in the per-run memos.
    assert all(len(key) <= 256 for plans in redactor._plans for key in plans)
    assert all(sum(map(len, shape)) <= 1024 for shapes in redactor._shapes for shape in shapes)


def test_a_shape_with_a_secret_name_takes_the_general_path_every_time():
    redactor = Redactor()
    for n in range(3):
        assert redactor.redact_dict({"note": f"run {n}", "password": "hunter2hunter2"}) == {"note": f"run {n}", "password": "[REDACTED:password#1]"}
    assert redactor.counts["password"] == 3


def test_the_event_walk_keeps_identifier_only_metadata_and_redacts_known_shapes_again():
    from sessionport.stages.redact import event_redactor

    redactor = Redactor()
    redact = event_redactor(redactor)
    plain = {"type": "message", "role": "assistant", "text": "hello there", "meta": {"kind": "thinking", "model": "m-1"}}
    for _ in range(2):  # the second time the shapes are known
        same = dict(plain)
        assert redact(same, True) is same
        # identifiers are never rewritten, also in a shape whose keys are all identifiers
        held = {**plain, "meta": {"kind": "thinking", "model": SECRET}}
        assert redact(held, True) is held
        noted = {**plain, "meta": {"kind": "x", "note": f"export T={SECRET}"}}
        assert redact(noted)["meta"] == {"kind": "x", "note": "export T=[REDACTED:github-token#1]"}
    assert redactor.counts["github-token"] == 2


def test_the_event_walk_redacts_fields_in_the_event_order():
    from sessionport.stages.redact import event_redactor

    other = "ghp_" + "z9Y8x7W6v5" * 4
    redact = event_redactor(Redactor())
    # "text" after the tool input: the input's token is the first one seen
    event = {"type": "message", "role": "tool", "toolInput": {"command": f"export T={SECRET}"}, "text": f"export U={other}"}
    for _ in range(2):
        out = redact(dict(event))
        assert out["toolInput"] == {"command": "export T=[REDACTED:github-token#1]"}
        assert out["text"] == "export U=[REDACTED:github-token#2]"
    # a text found clear by the batch screen is kept, unless it holds a learned username
    redactor = Redactor()
    redact = event_redactor(redactor)
    assert redact({"type": "message", "role": "user", "text": "ls /home/jdoe99x/src"})["text"] == "ls /home/[REDACTED:username#1]/src"
    assert redact({"type": "message", "role": "user", "text": "ping jdoe99x now"}, True)["text"] == "ping [REDACTED:username#1] now"
    clear = {"type": "message", "role": "user", "text": "nothing here at all"}
    assert redact(clear, True) is clear
