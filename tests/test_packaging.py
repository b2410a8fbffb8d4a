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
