"""A secret placed in any field of any input format is absent from every
output format after ``redact``.

Every string field of every fixture of every importer gets its own fake
token appended (``ghp_...`` numbered by field); the file is read with its
importer, redacted, and written with every exporter; no token may be left
in any output.  Identifier fields are the documented exception: ids,
parent links, call ids, timestamps, enumerations (type, role, status) and
tool names are load-bearing and never rewritten, so a value there is not
part of the property (see docs/redaction.md, "How it works").
"""

from __future__ import annotations

import json
import random
import re
import string

import pytest

from conftest import FIXTURES

import sessionport
from sessionport.redaction.engine import _is_structural_key
from sessionport.registry import get_registry
from sessionport.stages.redact import build

_B62 = string.ascii_letters + string.digits
# enumerations and identifiers, never free text: not part of the property
_ENUM_KEYS = frozenset(
    "type role status stop_reason finish_reason object media_type mime_type mimeType format mode kind model name "
    "tool_name toolName tool recipient author_role content_type language originator source schema subtype level "
    "approval_policy sandbox_policy summary_mode effort phase event outcome state channel model_slug record_type "
    # a queue operation (enqueue, dequeue...) and an MCP server, which is part of its tools' names
    "operation server".split()
)
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d|^\d{10,}")


def token(number: int) -> str:
    """A fake GitHub token, different in every position for every number."""
    rng = random.Random(number)
    return "ghp_" + "".join(rng.choice(_B62) for _ in range(36))


def _seed(value, counter: list[int], planted: dict[str, str], path: str = "$", key: str | None = None):
    if isinstance(value, dict):
        return {k: _seed(v, counter, planted, f"{path}.{k}", k) for k, v in value.items()}
    if isinstance(value, list):
        return [_seed(v, counter, planted, f"{path}[{i}]", key) for i, v in enumerate(value)]
    if isinstance(value, str) and key is not None and not _skipped(key, value):
        counter[0] += 1
        secret = token(counter[0])
        planted[secret] = path
        # JSON documents inside strings (tool arguments) get the token inside
        stripped = value.strip()
        if stripped[:1] in "{[" and stripped[-1:] in "}]":
            try:
                inner = json.loads(stripped)
            except ValueError:
                pass
            else:
                return json.dumps(_seed(inner, counter, planted, path + "<json>"))
        return f"{value} {secret}" if value else secret
    return value


def _skipped(key: str, value: str) -> bool:
    if key in _ENUM_KEYS or "model" in key.lower() or _is_structural_key(key) or key.endswith(("At", "_at", "time", "Time", "date", "Date")):
        return True
    if _TIMESTAMP.match(value) or len(value) > 5000:  # timestamps; image data
        return True
    return False


def _fixtures():
    registry = get_registry()
    out = []
    for fmt in sorted(registry.importer_names()):
        folder = FIXTURES / fmt
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".json", ".jsonl") and not path.name.startswith("bad-") and "torn" not in path.name:
                if _export_side_file(path, folder):
                    continue
                out.append((fmt, path))
    return out


def _export_side_file(path, folder) -> bool:
    """A file of an unpacked ChatGPT export other than its conversations
    (user.json, group_chats.json, textdocs/*.json): read with its folder,
    not a transcript alone."""
    for parent in path.parents:
        if parent == folder or folder not in parent.parents:
            return False
        if (parent / "conversations.json").is_file():
            return path.name != "conversations.json"
    return False


def _mutate(path, tmp_path):
    planted: dict[str, str] = {}
    counter = [0]
    text = path.read_text(encoding="utf-8")
    target = tmp_path / path.name
    if path.suffix == ".jsonl":
        lines = [json.dumps(_seed(json.loads(line), counter, planted)) for line in text.splitlines() if line.strip()]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        target.write_text(json.dumps(_seed(json.loads(text), counter, planted), indent=1), encoding="utf-8")
    return target, planted


@pytest.mark.parametrize("fmt, path", _fixtures(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_a_secret_in_any_field_is_absent_from_every_output(fmt, path, tmp_path):
    mutated, planted = _mutate(path, tmp_path)
    assert planted, "the fixture has no free-text field"
    events = list(build()(sessionport.read(str(mutated), format=fmt)))
    carried = sessionport.dumps(list(sessionport.read(str(mutated), format=fmt)), "portable-jsonl").decode()
    assert any(secret in carried for secret in planted), "no planted token reached the stream: the property would hold vacuously"
    registry = get_registry()
    for exporter in sorted(registry.exporter_names()):
        try:
            out = sessionport.dumps(events, exporter)
        except sessionport.errors.SessionportError:
            continue  # a format that cannot hold this input (e.g. one session only) says so
        text = out.decode("utf-8", "replace") if isinstance(out, bytes) else str(out)
        leaked = {secret: where for secret, where in planted.items() if secret in text or secret[10:22] in text}
        assert not leaked, f"{exporter}: {leaked}"
