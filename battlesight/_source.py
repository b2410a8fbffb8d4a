"""Where the subpackages live: inside the installed package, or beside it in a source checkout.

The wheel installs one top-level name, ``battlesight``, with ``geometry``, ``scenes``,
``rulesets``, ``viewer`` and ``assets`` inside it (setuptools ``package-dir`` maps the
repository's top-level folders there). A source checkout keeps those folders at the top of the
repository, beside this package: running from the checkout (``python -m battlesight`` in the
repository root, or a test run there) then finds them through the package's ``__path__``.
"""

from __future__ import annotations

from pathlib import Path

SUBPACKAGES = ("geometry", "scenes", "rulesets", "viewer")


def source_root(package_dir: Path) -> Path | None:
    """The checkout's root when this package runs from a source tree, else None."""
    if (package_dir / "geometry").is_dir():
        return None  # installed: the subpackages are inside
    root = package_dir.parent
    marker = root / "pyproject.toml"
    if marker.is_file() and all((root / name / "__init__.py").is_file() for name in SUBPACKAGES):
        return root
    return None
