"""Outputs, reports and messages against a hostile run, as real processes:
the --json-report never lands on an input a directory names nor on a file
the batch or split writes, split --force never replaces an input of a
folder, targets that one file system would take for one file are kept
apart, a name near the file-name limit is written, a private output stays
private, --jobs cannot fork without bound, and the images of one Markdown
document are never overwritten by another's."""

from __future__ import annotations

import json
import os
import shutil
import stat
import unicodedata

import pytest

from conftest import FIXTURES, run_cli

PORTABLE = FIXTURES / "portable-jsonl" / "session.jsonl"
CLAUDE = FIXTURES / "claude-code" / "session.jsonl"


def _folder(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(PORTABLE, folder / "a.jsonl")
    shutil.copy(CLAUDE, folder / "b.jsonl")
    return folder


# -- --json-report --------------------------------------------------------------

@pytest.mark.parametrize("command", [["convert", "--to", "markdown", "-o", "OUT/"], ["split", "--to", "markdown", "-o", "OUT"], ["redact", "-o", "OUT/"]])
def test_a_report_onto_a_file_of_a_folder_input_is_refused_and_the_input_kept(tmp_path, command):
    folder = _folder(tmp_path)
    before = (folder / "b.jsonl").read_bytes()
    args = [f"{tmp_path}/out/" if a == "OUT/" else f"{tmp_path}/out" if a == "OUT" else a for a in command]
    result = run_cli(args[0], str(folder), *args[1:], "--json-report", str(folder / "b.jsonl"))
    assert result.returncode == 2, result.stderr
    assert b"refusing to write the report onto an input" in result.stderr
    assert (folder / "b.jsonl").read_bytes() == before
    assert not (tmp_path / "out").exists()


def test_a_report_onto_a_pattern_input_is_refused(tmp_path):
    folder = _folder(tmp_path)
    before = (folder / "a.jsonl").read_bytes()
    result = run_cli("convert", str(folder / "*.jsonl"), "--to", "html", "-o", f"{tmp_path}/out/", "--json-report", str(folder / "a.jsonl"))
    assert result.returncode == 2 and b"onto an input" in result.stderr
    assert (folder / "a.jsonl").read_bytes() == before


def test_a_report_named_as_a_batch_target_keeps_both_files(tmp_path):
    folder = _folder(tmp_path)
    out = tmp_path / "out"
    result = run_cli("convert", str(folder), "--to", "markdown", "-o", f"{out}/", "--json-report", str(out / "a.md"), "-q")
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "a.md").read_text())
    assert report["totals"]["converted"] == 2
    # a.jsonl's Markdown takes the name that keeps its suffix, as for a name another input took
    written = {entry["input"]: entry["output"] for entry in report["inputs"]}
    assert written[str(folder / "a.jsonl")] == str(out / "a.jsonl.md")
    assert (out / "a.jsonl.md").read_text().count("# Fix the failing cart test") == 1
    assert (out / "b.md").is_file()


def test_a_report_named_as_a_split_file_keeps_both_files(tmp_path):
    out = tmp_path / "sp"
    probe = run_cli("split", str(PORTABLE), "--to", "markdown", "-o", str(tmp_path / "probe"), "-q")
    assert probe.returncode == 0, probe.stderr
    (name,) = os.listdir(tmp_path / "probe")
    result = run_cli("split", str(PORTABLE), "--to", "markdown", "-o", str(out), "--json-report", str(out / name), "-q")
    assert result.returncode == 0, result.stderr
    report = json.loads((out / name).read_text())
    (session_file,) = report["inputs"][0]["files"]
    assert session_file == str(out / name.replace(".md", "-2.md"))
    assert (out / os.path.basename(session_file)).read_text() == (tmp_path / "probe" / name).read_text()


# -- split --force -----------------------------------------------------------------

def test_split_force_never_replaces_an_input_of_a_folder_it_writes_into(tmp_path):
    probe = run_cli("split", str(CLAUDE), "--to", "portable-jsonl", "-o", str(tmp_path / "probe"), "-q")
    assert probe.returncode == 0, probe.stderr
    (name,) = os.listdir(tmp_path / "probe")
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(CLAUDE, folder / name)  # the input bears the name its session's file gets
    result = run_cli("split", str(folder), "--to", "portable-jsonl", "-o", str(folder), "--force")
    assert result.returncode == 2, result.stderr
    assert b"refusing to write the output onto the input" in result.stderr
    assert (folder / name).read_bytes() == CLAUDE.read_bytes()


# -- names one file system takes for one file -------------------------------------

def test_batch_targets_differing_only_in_case_or_normalisation_are_kept_apart(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    for name, source in (("Notes", PORTABLE), ("notes", CLAUDE), (nfc, PORTABLE), (nfd, CLAUDE)):
        shutil.copy(source, folder / f"{name}.jsonl")
    result = run_cli("convert", str(folder), "--to", "markdown", "-o", f"{tmp_path}/out/", "--jobs", "1", "-q")
    assert result.returncode == 0, result.stderr
    names = os.listdir(tmp_path / "out")
    folded = {unicodedata.normalize("NFC", n).casefold() for n in names}
    assert len(names) == 4 and len(folded) == 4, names
    assert sorted(names) == sorted(["Notes.md", "notes.jsonl.md", f"{nfc}.md", f"{nfd}.jsonl.md"]) or sorted(names) == sorted(
        ["Notes.md", "notes.jsonl.md", f"{nfd}.md", f"{nfc}.jsonl.md"])


# -- the partial file of a long name, and the mode of a replaced file ---------------

def test_an_output_name_near_the_file_name_limit_is_written(tmp_path):
    stem = "s" * 245  # the target's name is 248 bytes; its partial file's would be 267
    source = tmp_path / f"{stem}.jsonl"
    shutil.copy(PORTABLE, source)
    target = tmp_path / f"{stem}.md"
    result = run_cli("convert", str(source), "--to", "markdown", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert target.read_text().count("# Fix the failing cart test") == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_replacing_an_output_keeps_its_permissions(tmp_path):
    target = tmp_path / "private.md"
    target.write_text("old\n")
    target.chmod(0o600)
    result = run_cli("convert", str(PORTABLE), "--to", "markdown", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text().count("# Fix the failing cart test") == 1


def test_a_new_output_gets_the_mode_of_a_new_file(tmp_path):
    target = tmp_path / "new.md"
    result = run_cli("convert", str(PORTABLE), "--to", "markdown", "-o", str(target))
    assert result.returncode == 0, result.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


# -- --jobs ---------------------------------------------------------------------------

def test_jobs_is_bounded_by_the_cores():
    from sessionport.pipeline import batch

    cores = batch.default_jobs()
    assert batch.worker_count(None) == cores
    assert batch.worker_count(1) == 1
    assert batch.worker_count(100_000) == cores * batch.MAX_WORKERS_PER_CORE


def test_a_batch_with_jobs_far_beyond_the_cores_converts_every_input(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(40):
        shutil.copy(PORTABLE, folder / f"s{i}.jsonl")
    result = run_cli("convert", str(folder), "--to", "portable-jsonl", "-o", f"{tmp_path}/out/", "--jobs", "100000")
    assert result.returncode == 0, result.stderr
    assert b"40 of 40 input(s) converted" in result.stderr
    assert len(os.listdir(tmp_path / "out")) == 40


# -- Markdown --images DIR -----------------------------------------------------------

def _other_png(source, target):
    import base64
    import re

    def other(match):
        raw = base64.b64decode(match.group(1))
        return "base64," + base64.b64encode(raw[:-4] + b"\x01\x02\x03\x04").decode()

    target.write_text(re.sub(r"base64,([A-Za-z0-9+/=]+)", other, source.read_text()))


def test_a_second_document_never_overwrites_the_images_of_the_first(tmp_path):
    source = FIXTURES / "images" / "codex-input-image.jsonl"
    other = tmp_path / "b.jsonl"
    _other_png(source, other)
    img = tmp_path / "img"
    first = run_cli("convert", str(source), "--keep-images", "--to", "markdown", "-o", str(tmp_path / "a.md"), "--images", str(img), "-q")
    assert first.returncode == 0, first.stderr
    (a_name,) = os.listdir(img)
    before = (img / a_name).read_bytes()
    second = run_cli("convert", str(other), "--keep-images", "--to", "markdown", "-o", str(tmp_path / "b.md"), "--images", str(img), "-q")
    assert second.returncode == 0, second.stderr
    (b_name,) = set(os.listdir(img)) - {a_name}
    assert a_name.startswith("image-0001-") and b_name.startswith("image-0001-")  # first in each document: the hash tells them apart
    assert (img / a_name).read_bytes() == before
    assert f"](<img/{a_name}>)" in (tmp_path / "a.md").read_text()
    assert f"](<img/{b_name}>)" in (tmp_path / "b.md").read_text()
    assert (img / b_name).read_bytes() != before
    # the same document again links the images it wrote, and writes no more
    again = run_cli("convert", str(source), "--keep-images", "--to", "markdown", "-o", str(tmp_path / "a.md"), "--images", str(img), "-q")
    assert again.returncode == 0, again.stderr
    assert f"](<img/{a_name}>)" in (tmp_path / "a.md").read_text()
    assert sorted(os.listdir(img)) == sorted([a_name, b_name])


def test_an_image_name_held_by_a_link_is_passed_over_not_written_through(tmp_path):
    source = FIXTURES / "images" / "codex-input-image.jsonl"
    img = tmp_path / "img"
    img.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    from sessionport.render.images import image_name

    data = _first_image(source)
    os.symlink(victim, img / image_name(1, "png", data))
    result = run_cli("convert", str(source), "--keep-images", "--to", "markdown", "-o", str(tmp_path / "a.md"), "--images", str(img), "-q")
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me\n"
    assert f"](<img/{image_name(1, 'png', data, 2)}>)" in (tmp_path / "a.md").read_text()


def _first_image(source) -> bytes:
    import base64

    import sessionport

    return next(base64.b64decode(m["data"]) for e in sessionport.read(str(source), options={"keep_images": True}) for m in e.get("media", []))


def test_an_input_name_holding_a_nul_byte_is_refused_not_an_internal_error(tmp_path):
    from sessionport.pipeline.targets import OutputGuard, RefusedTarget

    guard = OutputGuard([])
    with pytest.raises(RefusedTarget, match="NUL byte"):
        guard.claim(str(tmp_path / "out"), "a\x00b.jsonl", ".md")
    assert guard.claim(str(tmp_path / "out"), "ab.jsonl", ".md") == str(tmp_path / "out" / "ab.md")
