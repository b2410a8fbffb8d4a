"""Public names a package imports on first use (PEP 562): importing a light submodule of the
package does not import the heavy ones its `__init__` names."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, table: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: a name of `table` (name -> the submodule that
    defines it) is imported from its submodule when first asked for, and kept in the package."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
