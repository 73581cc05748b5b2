"""Inputs by URL through fsspec (an in-memory file system stands in for
object storage: same code path as s3:// or gs://)."""

from __future__ import annotations

import gzip

import orjson
import pytest
from click.testing import CliRunner

fsspec = pytest.importorskip("fsspec", reason="the remote extra is not installed (pip install 'sessionport[remote]')")

import sessionport
from conftest import FIXTURES
from sessionport.cli import cli

SAMPLE = FIXTURES / "portable-jsonl" / "session.jsonl"


@pytest.fixture
def bucket():
    fs = fsspec.filesystem("memory")
    for i in range(3):
        with fs.open(f"/bucket/sessions/2025/0{i}/rollout-{i}.jsonl", "wb") as handle:
            handle.write(SAMPLE.read_bytes())
    with fs.open("/bucket/packed/session.jsonl.gz", "wb") as handle:
        handle.write(gzip.compress(SAMPLE.read_bytes()))
    yield fs
    fs.rm("/bucket", recursive=True)


def test_a_url_reads_like_a_file(bucket):
    assert list(sessionport.read("memory://bucket/sessions/2025/00/rollout-0.jsonl")) == list(sessionport.read(str(SAMPLE)))
    assert list(sessionport.read("memory://bucket/packed/session.jsonl.gz")) == list(sessionport.read(str(SAMPLE)))


def test_a_url_pattern_is_a_batch(bucket, tmp_path):
    result = CliRunner().invoke(cli, ["convert", "memory://bucket/sessions/**/*.jsonl", "--to", "portable", "-o", str(tmp_path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.json"))
    assert written == ["2025/00/rollout-0.json", "2025/01/rollout-1.json", "2025/02/rollout-2.json"]
    assert len(orjson.loads((tmp_path / written[0]).read_bytes())["messages"]) == 8


def test_a_missing_url_is_a_usage_error(bucket):
    result = CliRunner().invoke(cli, ["convert", "memory://bucket/nothing.jsonl", "--to", "portable"])
    assert result.exit_code == 2
    assert "no such file" in result.stderr
