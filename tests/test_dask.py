"""The Dask path on a LocalCluster of worker processes gives exactly the
single-process result, for every corpus file."""

from __future__ import annotations

import pytest

pytest.importorskip("dask.bag", reason="the dask extra is not installed (pip install 'sessionport[dask]')")
distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install 'sessionport[dask]')")

import sessionport
from conftest import CORPUS, CORPUS_MISSING
from sessionport.pipeline import batch
from sessionport import dask as sp_dask
from sessionport.registry import get_registry

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=CORPUS_MISSING)


def corpus_inputs() -> list[str]:
    skip = {"subagents"}
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json") and not skip.intersection(p.parts))
    return [str(p) for p in files]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def test_read_sessions_equals_the_single_process_stream(client):
    inputs = corpus_inputs()
    records = sp_dask.read_sessions(inputs).compute()
    by_path: dict[str, list[dict]] = {}
    for record in records:
        by_path.setdefault(record["path"], []).extend(sp_dask.events_of(record))
    for path in inputs:
        assert by_path.get(path, []) == list(sessionport.read(path)), path


def test_convert_with_stages_equals_the_single_process_conversion(client, tmp_path):
    inputs = corpus_inputs()
    redact = batch.stage_factory(get_registry().stage("redact").build)
    outcomes = sp_dask.convert(inputs, str(tmp_path / "dask"), "portable-jsonl", stages=[redact]).compute()
    assert all(o["ok"] for o in outcomes), [o["error"] for o in outcomes if not o["ok"]]
    assert len(outcomes) == len(inputs)
    for outcome in outcomes:
        events = list(redact()(sessionport.read(outcome["source"])))
        if outcome["empty"]:
            # as `convert DIR -o OUT`: an input without messages writes nothing
            assert outcome["target"] is None and not any(e["type"] == "message" for e in events), outcome["source"]
            continue
        expected = sessionport.dumps(events, "portable-jsonl")
        with open(outcome["target"], "rb") as handle:
            assert handle.read() == expected, outcome["source"]


def test_messages_bag_flattens_with_session_ids(client):
    path = [p for p in corpus_inputs() if "codex-0.46" in p]
    rows = sp_dask.messages(sp_dask.read_sessions(path)).compute()
    assert rows and all(r["sessionId"] and r["path"] == path[0] for r in rows)
    assert [r["index"] for r in rows] == list(range(len(rows)))
