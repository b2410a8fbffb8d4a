"""YAML text of plain scene data: the one dumper every scene writer uses.

`dump_yaml` writes the full clean form (`save.scene_to_yaml`); `flow_yaml` one value on one
line, as `yamlpatch` splices it into a user's file. Both escape the characters YAML reads as
line breaks and write numpy numbers as plain ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import yaml

from .limits import MAX_YAML_DEPTH

#: Characters YAML reads as line breaks: PyYAML writes them raw inside single-quoted scalars
#: when allow_unicode is on, and they then read back as spaces.
YAML_BREAKS = ("\x85", "\u2028", "\u2029")
#: a line width no value reaches: a flow value must stay on one line
ONE_LINE = 1 << 30


class SceneDumper(yaml.SafeDumper):
    """Safe dumper that double-quotes (and so escapes) strings holding YAML line breaks."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        if any(ch in data for ch in YAML_BREAKS):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style='"')
        return super().represent_str(data)

    def represent_numpy(self, data: Any) -> yaml.Node:
        """numpy scalars and arrays (a generated scene's numbers) as plain numbers/lists."""
        return self.represent_data(data.tolist())


SceneDumper.add_representer(str, SceneDumper.represent_str)
SceneDumper.add_multi_representer(np.generic, SceneDumper.represent_numpy)
SceneDumper.add_multi_representer(np.ndarray, SceneDumper.represent_numpy)


def dump_yaml(data: Any, indent: int = 2) -> str:
    """Block YAML of data, keys in their order, leaf lists in flow style (``at: [12, 6]``).
    ValueError for data nested too deep to write (only a scene built in Python has it)."""
    try:
        return yaml.dump(data, Dumper=SceneDumper, sort_keys=False, default_flow_style=None,
                         allow_unicode=True, width=100, indent=indent)
    except RecursionError:  # only a scene built in Python can get here: files are bounded
        raise ValueError(f"scene data nested deeper than {MAX_YAML_DEPTH} levels cannot be "
                         "saved") from None


def flow_yaml(value: Any, quote: str | None = None) -> str:
    """One value as one line of flow YAML (``[13, 6]``, ``{a: 1}``, ``'ruin'``); a string in
    the quote style given (``'`` or ``"``) or, holding a line break, double-quoted."""
    if isinstance(value, str) and (quote in ("'", '"') or any(ch in value for ch in "\n\r")):
        style = quote if quote in ("'", '"') and "\n" not in value and "\r" not in value else '"'
    else:
        style = None
    # written as the one item of a flow list, so that it is safe inside a flow collection
    text = yaml.dump([value], Dumper=SceneDumper, default_flow_style=True, allow_unicode=True,
                     width=ONE_LINE, default_style=style, sort_keys=False)
    return text.rstrip("\n")[1:-1]
