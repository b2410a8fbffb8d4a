"""Packaging: one installed name, every subpackage listed, `python -m battlesight`, --version."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

import battlesight
from tests.helpers import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _setup_module():
    """setup.py as a module (its `setup()` call runs only as __main__, as setuptools runs it)."""
    spec = importlib.util.spec_from_file_location("battlesight_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_folder_with_an_init_is_a_package():
    """setup.py finds the packages itself: a new folder with an __init__ (a game system's
    package) is installed without a line anywhere."""
    setup = _setup_module()
    found = set()
    for name, folder in setup.FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    listed = setup.packages()
    assert len(listed) == len(set(listed))
    assert set(listed) == found
    assert {"battlesight.cli.commands", "battlesight.geometry.sightgrid",
            "battlesight.rulesets.wh40k6", "battlesight.analysis"} <= found
    assert "packages" not in _pyproject()["tool"]["setuptools"]


def test_only_battlesight_is_installed_at_the_top_level():
    setup = _setup_module()
    assert {name.split(".")[0] for name in setup.FOLDERS} == {"battlesight"}
    assert all(name.split(".")[0] == "battlesight" for name in setup.packages())


def test_subpackages_import_under_the_one_name():
    import battlesight.geometry.world as world
    import battlesight.rulesets.core as core

    assert world.__name__ == "battlesight.geometry.world"
    assert core.get_ruleset("wh40k6").id == "wh40k6"


def test_python_dash_m_and_version():
    out = subprocess.run([sys.executable, "-m", "battlesight", "--version"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0
    assert out.stdout.strip() == f"battlesight {battlesight.__version__}"


def _manifest_roots() -> set[str]:
    """The top-level paths MANIFEST.in puts in the sdist (graft FOLDER, include FILE)."""
    roots = set()
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        words = line.split()
        if words and words[0] in ("graft", "include"):
            roots.update(word.split("/")[0] for word in words[1:])
    return roots


def test_every_link_of_the_readme_resolves_and_ships_in_the_sdist():
    """A README link or picture points at a file of the checkout, and the sdist carries it
    (docs are grafted; the package folders ship anyway), so it resolves in the sdist too."""
    import re

    shipped = _manifest_roots() | {"battlesight", "geometry", "scenes", "rulesets", "viewer",
                                   "assets"}
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text())
    local = [link for link in links if not link.startswith(("http://", "https://", "mailto:"))]
    assert len(local) >= 10
    for link in local:
        assert (ROOT / link).exists(), link
        assert link.split("/")[0] in shipped, f"{link} is not in the sdist (MANIFEST.in)"


def test_the_package_says_it_is_typed_and_classified():
    assert (ROOT / "battlesight" / "py.typed").is_file()
    project = _pyproject()
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["battlesight"]
    classifiers = project["project"]["classifiers"]
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Topic :: Games/Entertainment") for c in classifiers)


def test_dir_of_the_package_shows_the_api_not_its_imports():
    names = dir(battlesight)
    assert {"load", "example", "Battlefield", "__version__", "geometry", "viewer"} <= set(names)
    assert not {"Any", "Path", "TYPE_CHECKING", "source_root"} & set(names)


def test_a_missing_scene_is_a_file_not_found_error_and_a_scene_error(tmp_path):
    from battlesight.scenes import SceneError

    missing = tmp_path / "nowhere.yaml"
    with pytest.raises(FileNotFoundError) as caught:
        battlesight.load(missing)
    assert isinstance(caught.value, SceneError)
    assert caught.value.filename == str(missing) and caught.value.errno == 2
    assert str(caught.value) == f"{missing}: file: no such file"
