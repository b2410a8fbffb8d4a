"""Packaging: one installed name, every subpackage listed, `python -m battlesight`, --version."""

from __future__ import annotations

import subprocess
import sys

import pytest

import battlesight
from battlesight._layout import SUBPACKAGES
from tests.helpers import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_folder_with_an_init_is_a_listed_package():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = {"battlesight", "battlesight.assets"}
    for top in SUBPACKAGES:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT)
            found.add("battlesight." + ".".join(rel.parts))
    assert listed == found


def test_only_battlesight_is_installed_at_the_top_level():
    package_dir = _pyproject()["tool"]["setuptools"]["package-dir"]
    assert {name.split(".")[0] for name in package_dir} == {"battlesight"}
    assert all(name.split(".")[0] == "battlesight" for name in
               _pyproject()["tool"]["setuptools"]["packages"])


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
