"""``inspect --usage`` gives exactly the identity and token usage that a full
``inspect`` gives, on every input.

A Codex rollout is scanned for its ``token_count`` lines alone
(``sessionport/formats/codex/usage_scan.py``); any other input, and a
rollout the scan cannot settle, takes the census.  Each test compares the
fields ``--usage`` prints (``summary.USAGE_FIELDS`` of every session, and
the total usage) with those of the full census on the same input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, corpus_files, requires_corpus, run_cli
from sessionport.context import ReadContext
from sessionport.pipeline import stream
from sessionport.summary import census_or_read, totals, usage_fields, usage_or_census

sys.path.insert(0, str(Path(__file__).parent))
from test_census import _at, _bom_and_nul_tail, _copied_history, _crlf, _idle_insert, envelope_lines, variant  # noqa: E402

sys.path.pop(0)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"
ALL_FIXTURES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".zst", ".gz"))
OPTION_SETS = {
    "defaults": {},
    "skip-bad": {"skip_bad": True},
    "strict": {"strict": True},
    "skip-inherited": {"options": {"skip_inherited": True}},
}


def _result(run, path: Path, kwargs: dict) -> dict:
    ctx = ReadContext(on_warning=lambda message: None)
    try:
        sessions = list(stream.read(str(path), context=ctx, run=run, **kwargs))
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    total = totals(sessions)
    return {
        "sessions": [usage_fields(s.as_dict()) for s in sessions],
        "usage": total["usage"],
        "keptUsage": total.get("keptUsage"),
        "warnings": ctx.warnings,
        "bad": (ctx.bad_count, ctx.bad_places),
    }


def assert_same_usage(path: Path, kwargs: dict | None = None, *, same_reports: bool = False) -> dict:
    """The usage path's fields equal the census's; with ``same_reports``
    (an input whose every unreadable record sits on a line the scan reads)
    the unreadable records and errors too, and each warning it gives is one
    the census gives (the census also warns about the lines the scan never
    reads: unknown types and the like)."""
    kwargs = kwargs or {}
    expected = _result(census_or_read, path, kwargs)
    got = _result(usage_or_census, path, kwargs)
    if same_reports:
        warnings = got.pop("warnings", [])
        assert [w for w in expected.pop("warnings", []) if w in warnings] == warnings, path
        assert got == expected, path
    elif "error" in expected:
        # The scan reads fewer lines: a bad line it never reads is not reported.
        if "error" in got:
            assert got == expected, path
    else:
        assert "error" not in got, (path, got)
        for key in ("sessions", "usage", "keptUsage"):
            assert got[key] == expected[key], (path, key)
    return got


@pytest.fixture
def scans(monkeypatch) -> list:
    """How each usage scan ended: "scanned", or "census" when it handed the input over."""
    from sessionport.formats.codex import usage_scan

    ends: list = []
    original = usage_scan._scan

    def scan(handle, ctx):
        try:
            result = original(handle, ctx)
        except usage_scan._Undecided:
            ends.append("census")
            raise
        ends.append("scanned")
        return result

    monkeypatch.setattr(usage_scan, "_scan", scan)
    return ends


@requires_corpus
@pytest.mark.parametrize("path", corpus_files(""), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_usage_equals_inspect_on_corpus(path):
    assert_same_usage(path)


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_usage_equals_inspect_on_fixtures(path):
    assert_same_usage(path)


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", sorted((FIXTURES / "codex").glob("*.jsonl")), ids=lambda p: p.name)
def test_usage_equals_inspect_on_codex_fixtures_with_options(path, options):
    assert_same_usage(path, OPTION_SETS[options])


@pytest.mark.parametrize("name", ["codex-10mb.jsonl", "claude-code-10mb.jsonl"])
def test_usage_equals_inspect_on_benchmark_inputs(name, scans):
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"the generated benchmark input {name} is not present (python benchmarks/generate.py)")
    got = assert_same_usage(path, same_reports=name.startswith("codex"))
    assert got["usage"]["total_tokens"] > 0
    assert scans == (["scanned"] if name.startswith("codex") else [])


def test_usage_equals_inspect_on_generated_rollouts(tmp_path, scans):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    for seed in (1, 2):
        path = tmp_path / f"codex-{seed}.jsonl"
        generate("codex", 600_000, str(path), seed=seed)
        assert_same_usage(path, same_reports=True)
    assert scans == ["scanned", "scanned"]


# -- adversarial rollouts: the envelope fixture with token counts changed ---

_COUNT = b'{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2},"model_context_window":272000},"rate_limits":null}}\n'


def _count(n: int, total: int) -> bytes:
    return _at(n, b"event_msg") + _COUNT % (total - 100, 100, total)


def _nested_literal(lines):
    # The literal inside another record's object, at any depth, in both layouts.
    fake = b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":99999999}}}'
    return _idle_insert(lines, [
        _at(801) + b'{"type":"function_call","name":"x","arguments":"{}","call_id":"c1","extra":' + fake + b"}}\n",
        _at(802, b"event_msg") + b'{"type":"agent_message","message":"hi","meta":' + fake + b"}}\n",
        b'{"type":"event_msg","payload":{"type":"agent_message","nested":' + fake + b'},"timestamp":"2025-11-20T10:00:06.803Z"}\n',
        _at(804, b"event_msg") + b'{"type":"agent_message","message":"he said \\"type\\":\\"token_count\\" once"}}\n',
        _count(805, 40000),
    ])


def _other_orders(lines):
    return _idle_insert(lines, [
        b'{"type":"event_msg","timestamp":"2025-11-20T10:00:06.811Z","payload":{"info":{"last_token_usage":{"total_tokens":3},"total_token_usage":{"total_tokens":41000,"input_tokens":40000,"output_tokens":1000}},"type":"token_count"}}\n',
        _at(812, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":42000,"input_tokens":41000,"output_tokens":1000},"last_token_usage":null}}}\n',
        _at(813, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"input_tokens":41500, "total_tokens":42500}}}}\n',
    ])


def _resets_and_nulls(lines):
    return _idle_insert(lines, [
        _count(821, 50000),
        _at(822, b"event_msg") + b'{"type":"token_count","info":null,"rate_limits":{"primary":null}}}\n',
        _count(823, 52000),
        _count(824, 1200),  # a reset: a new segment
        _at(825, b"event_msg") + b'{"type":"token_count","info":null}}\n',
        _count(826, 3000),
    ]) + [_count(990, 900)]  # and another, at the end


def _torn_last_count(lines):
    return [*lines, _count(991, 70000)[:-40]]


def _last_count_without_newline(lines):
    return [*lines, _count(992, 70000)[:-1]]


def _rejected_lines(lines):
    # Token counts orjson rejects: invalid UTF-8, a lone surrogate, a
    # trailing comma (the last of its segment, whose totals are parsed),
    # and one whose total cannot be read from the bytes.
    return _idle_insert(lines, [
        _count(831, 60000).replace(b'"rate_limits":null', b'"rate_limits":"\xff\xfe"'),
        b'{"type":"event_msg","timestamp":"2025-11-20T10:00:06.832Z","payload":{"type":"token_count","note":"\\ud83d","info":{"total_token_usage":{"total_tokens":61000}}}}\n',
        _count(833, 62000).replace(b"}}}\n", b"},}}\n"),
        _count(834, 100),
        _at(835, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":"many"}},}}\n',
    ])


def _deep_count(lines):
    deep = b"[" * 200 + b"]" * 200
    return _idle_insert(lines, [_at(841, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":60000},"x":' + deep + b"}}}\n"])


def _nul_before_count(lines):
    return _idle_insert(lines, [b"\x00\x00" + _count(851, 45000)])


def _not_a_dict(lines):
    return _idle_insert(lines, [b'["token_count", 1]\n'])


SCANNED = {
    "nested-literal": _nested_literal,
    "other-orders": _other_orders,
    "resets-and-nulls": _resets_and_nulls,
    "torn-last-count": _torn_last_count,
    "last-count-without-newline": _last_count_without_newline,
    "crlf": lambda lines: _crlf(_resets_and_nulls(lines)),
    "bom-and-nul-tail": _bom_and_nul_tail,
    "rejected-lines": _rejected_lines,
    "deep-count": _deep_count,
    "nul-before-count": _nul_before_count,
    "not-a-dict": _not_a_dict,
}
HANDED_OVER = {
    "resumed": _copied_history,
    "bare-meta-line": lambda lines: _idle_insert(lines, [b'{"id":"other","timestamp":"2025-11-20T10:00:06Z","type":1,"x":"token_count"}\n']),
    "blank-first-line": lambda lines: [b"\n", *lines],
    "no-session-meta-first": lambda lines: [lines[1], lines[0], *lines[2:]],
}


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("name", SCANNED)
def test_usage_scan_equals_inspect_on_adversarial_rollouts(tmp_path, scans, name, options):
    lines = envelope_lines()
    if options == "strict":
        # --strict refuses the fixture's unknown record type, a line the
        # scan never reads: without it, both read on to the token counts.
        lines = [line for line in lines if b"future_record" not in line]
    path = variant(tmp_path, name, SCANNED[name](lines))
    assert_same_usage(path, OPTION_SETS[options], same_reports=True)
    # Scanned unless an error stopped it (strict, or a bad line without --skip-bad).
    assert scans in (["scanned"], [])


@pytest.mark.parametrize("name", HANDED_OVER)
def test_usage_scan_hands_over_what_it_cannot_settle(tmp_path, scans, name):
    path = variant(tmp_path, name, HANDED_OVER[name](envelope_lines()))
    assert_same_usage(path, {"skip_bad": True}, same_reports=True)
    assert scans == ["census"]


def test_the_adversarial_rollouts_change_the_usage(tmp_path):
    base = _result(census_or_read, variant(tmp_path, "base", envelope_lines()), {"skip_bad": True})
    # The copied history of the resumed rollout holds token counts, which
    # go to inherited usage, not usage: a scan that summed them would differ.
    assert any(b'"token_count"' in line for line in _copied_history(envelope_lines())[2:13])
    for name, change in SCANNED.items():
        if name in ("bom-and-nul-tail", "not-a-dict", "deep-count", "nested-literal", "torn-last-count"):
            continue  # these change what is reported, not the usage
        got = _result(census_or_read, variant(tmp_path, name, change(envelope_lines())), {"skip_bad": True})
        assert got["usage"] != base["usage"], name
    nested = _result(usage_or_census, variant(tmp_path, "nested", _nested_literal(envelope_lines())), {})
    assert nested["usage"]["total_tokens"] < 99999999


def test_a_bad_line_it_never_reads_is_not_reported(tmp_path):
    lines = _idle_insert(envelope_lines(), [_at(861) + b'{"type":"message", oops\n'])
    path = variant(tmp_path, "bad-elsewhere", lines)
    assert "error" in _result(census_or_read, path, {})
    got = _result(usage_or_census, path, {})
    assert "error" not in got and got["usage"]["total_tokens"] > 0


def test_a_token_count_over_the_line_limit_is_refused(tmp_path):
    big = _count(871, 90000).replace(b'"rate_limits":null', b'"rate_limits":"' + b"x" * 5000 + b'"')
    path = variant(tmp_path, "long-count", _idle_insert(envelope_lines(), [big]))
    for kwargs in ({"options": {"max_line_size": "4k"}}, {"skip_bad": True, "options": {"max_line_size": "4k"}}):
        got = assert_same_usage(path, kwargs, same_reports=True)
        assert "error" in got or got["bad"][0] == 1


def test_compressed_and_piped_inputs_take_the_census(tmp_path, scans):
    import gzip

    plain = variant(tmp_path, "plain", _resets_and_nulls(envelope_lines()))
    packed = tmp_path / "rollout-packed.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    got = assert_same_usage(packed, same_reports=True)
    assert got["usage"] == _result(census_or_read, plain, {})["usage"]
    assert scans == []


# -- the command ---------------------------------------------------------

def test_cli_usage_json_and_text(tmp_path):
    path = variant(tmp_path, "cli", _resets_and_nulls(envelope_lines()))
    full = run_cli("inspect", "--json", str(path))
    usage = run_cli("inspect", "--usage", "--json", str(path))
    assert full.returncode == usage.returncode == 0, usage.stderr
    a, b = json.loads(full.stdout), json.loads(usage.stdout)
    assert b["usage"] == a["usage"] and b["sessionCount"] == 1
    assert b["sessions"] == [usage_fields(s) for s in a["sessions"]]
    assert "messages" not in b["sessions"][0]
    text = run_cli("inspect", "--usage", str(path))
    assert text.returncode == 0
    out = text.stdout.decode()
    assert "sessionId:  019a9f00-0000-7000-8000-000000000001" in out
    assert f"total_tokens={a['usage']['total_tokens']}" in out
    assert "messages:" not in out


def test_cli_usage_over_several_inputs(tmp_path):
    one = variant(tmp_path, "one", envelope_lines())
    claude = FIXTURES / "claude-code" / next(p.name for p in (FIXTURES / "claude-code").glob("*.jsonl"))
    # One input that cannot be read: the others are printed, exit 1 at the end.
    result = run_cli("inspect", "--usage", str(one), str(tmp_path / "missing.jsonl"))
    assert result.returncode == 1
    assert b"no such file" in result.stderr and b"1 failed" in result.stderr
    assert b"sessionId:  019a9f00" in result.stdout
    both = run_cli("inspect", "--usage", str(one), str(claude))
    assert both.returncode == 0, both.stderr
    out = both.stdout.decode()
    assert "total:      2 sessions" in out
    full = json.loads(run_cli("inspect", "--json", str(one), str(claude)).stdout)
    assert f"total_tokens={full['usage']['total_tokens']}" in out.split("total:")[1]


def test_cli_usage_exit_codes(tmp_path):
    bad = variant(tmp_path, "bad", _rejected_lines(envelope_lines()))
    refused = run_cli("inspect", "--usage", str(bad))
    assert refused.returncode == 1
    assert b"line " in refused.stderr and b"Traceback" not in refused.stderr
    skipped = run_cli("inspect", "--usage", "--skip-bad", "--json", str(bad))
    assert skipped.returncode == 0
    assert b"unreadable record" in skipped.stderr
    assert run_cli("inspect", "--usage", "--no-such-flag", str(bad)).returncode == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    nothing = run_cli("inspect", "--usage", str(empty))
    assert nothing.returncode == 0 and b"no sessions" in nothing.stdout


def test_cli_usage_of_a_stream_that_holds_part_of_a_session():
    # From stdin (no file to scan), after a filter: both figures, named.
    claude = sorted((FIXTURES / "claude-code").glob("*.jsonl"))[0]
    part = run_cli("filter", "--head", "3", str(claude)).stdout
    full = json.loads(run_cli("inspect", "--json", "-", input=part).stdout)
    usage = json.loads(run_cli("inspect", "--usage", "--json", "-", input=part).stdout)
    assert usage["sessions"] == [usage_fields(s) for s in full["sessions"]]
    assert usage["keptUsage"] == full["keptUsage"] and usage["usage"] == full["usage"]
    text = run_cli("inspect", "--usage", "-", input=part).stdout.decode()
    assert "kept usage: the 3 messages here" in text


def test_cli_usage_of_a_rollout_on_stdin():
    rollout = FIXTURES / "codex" / "rollout-envelope.jsonl"
    full = json.loads(run_cli("inspect", "--json", str(rollout)).stdout)
    piped = run_cli("inspect", "--usage", "--json", "-", input=rollout.read_bytes())
    assert piped.returncode == 0
    assert json.loads(piped.stdout)["usage"] == full["usage"]
