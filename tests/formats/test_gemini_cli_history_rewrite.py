"""Gemini CLI writing the history back into its records
(``ChatRecordingService.updateMessagesFromHistory``, 0.61.0's bundle): the
messages it keeps keep their fields, and each call of a turn that made
several takes the whole user turn of their responses as its ``result``."""

from __future__ import annotations

import json

from conftest import FIXTURES, convert_to_portable

BATCH = FIXTURES / "gemini-cli" / "session-2026-12-02T10-00-3e7b1d9a.jsonl"


def test_each_call_of_a_batch_keeps_its_own_response():
    events, _ = convert_to_portable(BATCH)
    records = [json.loads(line) for line in BATCH.read_text().splitlines()]
    rewritten = records[-1]["$set"]["messages"]
    calls = rewritten[1]["toolCalls"]
    assert all(len(call["result"]) == 2 for call in calls)  # the whole batch on each call
    results = [e for e in events if e["type"] == "message" and (e.get("meta") or {}).get("kind") == "tool_result"]
    assert [(r["toolCallId"], r["text"]) for r in results] == [
        (call["id"], next(p for p in call["result"] if p["functionResponse"]["id"] == call["id"])["functionResponse"]["response"]["output"])
        for call in calls
    ]
    # the user turn that repeats them adds nothing
    assert [e["role"] for e in events if e["type"] == "message"] == ["user", "assistant", "tool", "tool", "tool", "tool", "assistant"]


REWOUND = FIXTURES / "gemini-cli" / "session-2026-12-03T14-00-8f2d4b6a.jsonl"


def test_messages_a_rewind_or_a_new_history_dropped_are_counted():
    # /rewind writes {"$rewindTo": id} (that message and all after it go);
    # a compression writes the new history as $set.messages (a summary turn
    # and its answer, new ids, in place of the older turns): what the log
    # recorded and no longer holds is counted, never dropped unsaid
    events, _ = convert_to_portable(REWOUND)
    records = [json.loads(line) for line in REWOUND.read_text().splitlines()]
    final = [m["id"] for m in records[-1]["$set"]["messages"]]
    recorded = [r["id"] for r in records if "id" in r]
    assert [e["id"] for e in events if e["type"] == "message"] == final
    # the rewind dropped the second prompt and its answer; the new history
    # left out the first prompt and its answer
    end = events[-1]
    assert end["skipped"] == {"message (rewound: $rewindTo)": 2, "message (left out of a $set.messages list)": 2}
    assert len(recorded) - len([i for i in recorded if i in final]) == 4
