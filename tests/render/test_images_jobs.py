"""``--images DIR`` gives the same documents and image files (names and
bytes) whatever ``--jobs`` is: several inputs into one document, several
inputs into ``-o DIR``, one rollout read in pieces, and ``split``.  The
program is run as a user runs it and the whole output trees are compared
byte for byte."""

from __future__ import annotations

import base64
import json
import os

from conftest import FIXTURES, run_cli
from sessionport.pipeline import chunks

SOURCE = FIXTURES / "images" / "codex-input-image.jsonl"
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png(n: int) -> str:
    return base64.b64encode(SIGNATURE + f"image {n}".encode() * 50).decode("ascii")


def rollouts(folder, count: int) -> list[str]:
    """``count`` rollouts, each with an image of its own, the fixture's
    image (the same in every one) and, in every other one, its own image
    twice."""
    folder.mkdir()
    text = SOURCE.read_text()
    assert PIXEL in text
    paths = []
    for n in range(count):
        lines = []
        for line in text.splitlines():
            record = json.loads(line)
            if record["type"] == "session_meta":
                record["payload"]["id"] = f"01997ea4-0000-7000-8000-{n:012d}"
            content = record.get("payload", {}).get("content")
            if isinstance(content, list) and any(part.get("type") == "input_image" for part in content):
                extra = [{"type": "input_image", "image_url": f"data:image/png;base64,{_png(n)}"}] * (1 + n % 2)
                record["payload"]["content"] = [*extra, *content]
            lines.append(json.dumps(record))
        path = folder / f"r{n:02d}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def tree(root) -> dict[str, bytes]:
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = open(path, "rb").read()
    return found


def _both(tmp_path, make_args, env=None) -> dict[str, bytes]:
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        out.mkdir()
        done = run_cli(*make_args(out), "--jobs", jobs, env=env, cwd=out)
        assert done.returncode == 0, done.stderr.decode()
        results.append(tree(out))
    one, two = results
    assert sorted(one) == sorted(two)
    for name in one:
        assert one[name] == two[name], f"{name} differs between --jobs 1 and --jobs 2"
    return one


def test_several_inputs_into_a_folder(tmp_path):
    inputs = rollouts(tmp_path / "in", 8)
    for _ in range(3):  # the order workers finish in varies from run to run
        for old in tmp_path.glob("jobs*"):
            import shutil

            shutil.rmtree(old)
        out = _both(tmp_path, lambda out: ("convert", *inputs, "--keep-images", "--to", "markdown", "--images", "img", "-o", "docs"))
    documents = [name for name in out if name.endswith(".md")]
    images = [name for name in out if name.startswith("img" + os.sep)]
    assert len(documents) == 8
    # each document's own image, and its second copy in every other one,
    # has a file of its own; the image every document holds at the same
    # place is one file (the documents hold it second or third)
    assert len(images) == 8 + 4 + 2
    for name in documents:
        text = out[name].decode()
        for link in text.split("](<../img/")[1:]:
            assert os.path.join("img", link.split(">)")[0]) in out


def test_several_inputs_into_one_document(tmp_path):
    inputs = rollouts(tmp_path / "in", 6)
    out = _both(tmp_path, lambda out: ("convert", *inputs, "--keep-images", "--to", "markdown", "--images", "img", "-o", "all.md"))
    assert "all.md" in out and len([n for n in out if n.startswith("img")]) == 6 + 3 + 6


def test_one_rollout_read_in_pieces(tmp_path):
    (source,) = rollouts(tmp_path / "in", 1)
    env = {chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "1", chunks.WARM_UP_ENV: "0"}
    out = _both(tmp_path, lambda out: ("convert", source, "--keep-images", "--to", "markdown", "--images", "img", "-o", "doc.md"), env=env)
    assert len([n for n in out if n.startswith("img")]) == 2


def test_split_writes_the_names_convert_writes(tmp_path):
    inputs = rollouts(tmp_path / "in", 4)
    split_out = tmp_path / "split"
    split_out.mkdir()
    done = run_cli("split", *inputs, "--keep-images", "--to", "markdown", "--images", "img", "-o", "docs", cwd=split_out)
    assert done.returncode == 0, done.stderr.decode()
    convert = _both(tmp_path, lambda out: ("convert", *inputs, "--keep-images", "--to", "markdown", "--images", "img", "-o", "docs"))
    split_images = {n: b for n, b in tree(split_out).items() if n.startswith("img")}
    assert split_images == {n: b for n, b in convert.items() if n.startswith("img")}
