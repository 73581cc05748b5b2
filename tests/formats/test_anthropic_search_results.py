"""anthropic-messages: ``search_result`` blocks (search results given to the
model to cite, at the top level of a user turn or as a tool's result) and the
citations of the text that cites them are read, kept and written back as
they were."""

from __future__ import annotations

import io
import json

import orjson

import sessionport
from sessionport.context import ReadContext, WriteContext
from sessionport.pipeline.stream import write_events

from conftest import FIXTURES
from test_provider_roundtrip import assert_api_valid

SAMPLE = FIXTURES / "anthropic-messages" / "search-results.json"


def _read():
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append)))
    return events, warnings


def test_search_results_are_known_blocks_with_readable_text():
    events, warnings = _read()
    assert warnings == [] and "unknown" not in events[-1]
    first = next(e for e in events if e.get("meta", {}).get("searchResult"))
    assert first["text"].startswith("[search_result: Deploying the service https://kb.example.com/deploy]\nDeploys run")
    result = next(e for e in events if e.get("meta", {}).get("kind") == "tool_result")
    assert "Tag the release" in result["text"]
    cited = [e for e in events if e.get("meta", {}).get("citations")]
    assert len(cited) == 2


def test_blocks_and_citations_are_written_back_as_they_were():
    events, _ = _read()
    out = io.BytesIO()
    write_events(events, out, format="anthropic-messages", context=WriteContext(on_warning=lambda m: None))
    document = orjson.loads(out.getvalue())
    assert_api_valid("anthropic-messages", document)
    assert document["messages"] == json.loads(SAMPLE.read_text())["messages"]
