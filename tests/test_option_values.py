"""Values of --since/--until, --kind and --role: one parser and one message
for every command, and a value that can match nothing is a usage error that
lists the valid ones instead of a silently empty result."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, run_cli
from sessionport.errors import UsageError
from sessionport.stages.filter import MESSAGE_KINDS, build

SAMPLE = FIXTURES / "filter" / "two-sessions.jsonl"
TIME_MESSAGE = b"'bogus' is not a time; use ISO 8601"


@pytest.mark.parametrize(
    "args",
    [
        ("ls", "--since", "bogus"),
        ("filter", str(SAMPLE), "--since", "bogus"),
        ("filter", str(SAMPLE), "--until", "bogus"),
        ("chain", "-i", str(SAMPLE), "filter", "--since", "bogus", "to", "markdown"),
    ],
)
def test_a_bad_time_is_the_same_usage_error_everywhere(args, tmp_path):
    proc = run_cli(*args, env={"HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stderr
    assert TIME_MESSAGE in proc.stderr
    assert b"internal error" not in proc.stderr and b"Traceback" not in proc.stderr


def test_ls_since_still_filters(tmp_path):
    proc = run_cli("ls", "--since", "2h", "--json", env={"HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b"[]"


@pytest.mark.parametrize("flag, value", [("--kind", "tool-use"), ("--kind", "Text"), ("--role", "bot")])
def test_an_unknown_kind_or_role_is_a_usage_error_listing_the_valid_ones(flag, value):
    proc = run_cli("filter", str(SAMPLE), flag, value)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert f"'{value}' is not one of".encode() in proc.stderr
    assert b"'tool_use'" in proc.stderr or b"'assistant'" in proc.stderr


def test_every_listed_kind_is_accepted():
    for kind in MESSAGE_KINDS:
        proc = run_cli("filter", str(SAMPLE), "--kind", kind)
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("options", [{"kind": ("tool-use",)}, {"role": ("bot",)}])
def test_the_python_stage_refuses_the_same_values(options):
    with pytest.raises(UsageError, match="use one of"):
        build(**options)
