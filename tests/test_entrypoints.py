"""sessionport.entrypoints finds the same entry points, in the same order, as
importlib.metadata: in this environment, and on paths built to hold what
trips a hand-written reader (a distribution installed twice, metadata
without entry points, comments, a zip file on the path, capitals)."""

from __future__ import annotations

import sys
import zipfile
from importlib.metadata import entry_points as from_metadata

import pytest

from sessionport import entrypoints


def _listed(eps) -> list[tuple[str, str, str]]:
    return [(ep.name, ep.value, ep.group) for ep in eps]


def _dist(site, directory: str, text: str | None) -> None:
    info = site / directory
    info.mkdir(parents=True)
    name = directory.split("-")[0]
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    if text is not None:
        (info / "entry_points.txt").write_text(text)


@pytest.fixture
def path(monkeypatch):
    """Puts directories first on sys.path for the test."""

    def put(*directories):
        monkeypatch.setattr(sys, "path", [str(d) for d in directories] + sys.path)

    return put


@pytest.mark.parametrize("group", ["sessionport.formats", "sessionport.stages", "console_scripts", "pytest11", "no.such.group"])
def test_this_environment_lists_as_importlib_metadata_does(group):
    assert _listed(entrypoints.entry_points(group)) == _listed(from_metadata(group=group))


def test_the_first_distribution_of_a_name_wins_and_the_file_is_parsed_alike(tmp_path, path):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "sp_plugin-2.0.dist-info", "# a comment\n\n[sessionport.formats]\nnew-import = sp_plugin.new:IMPORTER\n  spaced-export =  sp_plugin.new : EXPORTER \n[other]\nx = y:z\n")
    _dist(second, "SP.Plugin-1.0.dist-info", "[sessionport.formats]\nold-import = sp_plugin.old:IMPORTER\n")
    _dist(second, "sp_quiet-1.0.dist-info", None)  # no entry points at all
    _dist(second, "sp_other-1.0.dist-info", "[sessionport.formats]\nother-import = sp_other:IMPORTER [extra]\n")
    path(first, second)
    ours = _listed(entrypoints.entry_points("sessionport.formats"))
    assert ours == _listed(from_metadata(group="sessionport.formats"))
    assert ("new-import", "sp_plugin.new:IMPORTER", "sessionport.formats") in ours
    assert ("spaced-export", "sp_plugin.new : EXPORTER", "sessionport.formats") in ours
    assert not [ep for ep in ours if ep[0] == "old-import"], "the shadowed copy is not listed"


def test_an_egg_info_file_shadows_a_later_distribution(tmp_path, path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    (first / "sp_egg.egg-info").write_text("Metadata-Version: 1.0\nName: sp_egg\n")
    _dist(second, "sp_egg-1.0.dist-info", "[sessionport.formats]\negg-import = sp_egg:IMPORTER\n")
    path(first, second)
    assert _listed(entrypoints.entry_points("sessionport.formats")) == _listed(from_metadata(group="sessionport.formats"))


def test_what_it_does_not_read_itself_goes_to_importlib_metadata(tmp_path, path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("sp_zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: sp_zipped\nVersion: 1.0\n")
        z.writestr("sp_zipped-1.0.dist-info/entry_points.txt", "[sessionport.formats]\nzipped-import = sp_zipped:IMPORTER\n")
    capitals = tmp_path / "capitals"
    _dist(capitals, "sp_caps-1.0.DIST-INFO", "[sessionport.formats]\ncaps-import = sp_caps:IMPORTER\n")
    for where in (archive, capitals):
        path(where)
        with pytest.raises(entrypoints.Unusual):
            entrypoints._scan("sessionport.formats")
        listed = _listed(entrypoints.entry_points("sessionport.formats"))
        assert listed == _listed(from_metadata(group="sessionport.formats"))
        assert any(name in ("zipped-import", "caps-import") for name, _, _ in listed)


def test_a_finder_of_other_distributions_goes_to_importlib_metadata(monkeypatch):
    class Finder:
        @staticmethod
        def find_spec(*args, **kwargs):
            return None

        @staticmethod
        def find_distributions(context=None):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    with pytest.raises(entrypoints.Unusual):
        entrypoints._scan("sessionport.formats")
    assert _listed(entrypoints.entry_points("sessionport.formats")) == _listed(from_metadata(group="sessionport.formats"))


def test_load_follows_module_and_attribute_path():
    ep = entrypoints.EntryPoint("x", "sessionport.registry:Registry.importer", "g")
    from sessionport.registry import Registry

    assert ep.load() is Registry.importer
    assert entrypoints.EntryPoint("y", "sessionport.registry", "g").load() is sys.modules["sessionport.registry"]
    with pytest.raises(ModuleNotFoundError):
        entrypoints.EntryPoint("z", "sp_not_installed.module:OBJ", "g").load()
