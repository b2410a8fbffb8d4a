"""Package discovery for the one installed name, `battlesight`.

The design card keeps the subpackages in the repository's top-level folders (`geometry/`,
`scenes/`, `rulesets/`, `viewer/`, `assets/`) beside the front-door package `battlesight/`;
the wheel installs them inside `battlesight`. Every folder with an `__init__.py` below those is
a package, so a new game system (`rulesets/<id>/`) or room needs no line here or in
pyproject.toml. Everything else about the distribution is in pyproject.toml.
"""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
#: installed subpackage -> the repository folder it comes from
FOLDERS = {
    "battlesight": "battlesight",
    "battlesight.geometry": "geometry",
    "battlesight.scenes": "scenes",
    "battlesight.rulesets": "rulesets",
    "battlesight.viewer": "viewer",
    "battlesight.assets": "assets",
}


def packages() -> list[str]:
    """Every package of the distribution, by its installed dotted name."""
    found = []
    for name, folder in FOLDERS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_packages(str(ROOT / folder))]
    return found


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import packages()
    setup(packages=packages(), package_dir=FOLDERS)
