"""Actions files are read as scenes are: line numbers, duplicate keys, UTF-8, the same limits,
non-finite numbers refused; every error one line, ``FILE:LINE: KEY: message``, exit 2."""

from __future__ import annotations

import pytest
from battlesight.scenes import limits
from battlesight.scenes.errors import SceneError

from battlesight.cli.commands.play import read_actions
from battlesight.cli.main import main
from tests.helpers import EXAMPLES, ROOT

CITY = EXAMPLES / "wh40k6_city_ruins.yaml"


def write(tmp_path, text: str | bytes, name: str = "actions.yaml") -> str:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def refusal(path: str) -> str:
    with pytest.raises(SceneError) as info:
        read_actions(path)
    line = str(info.value)
    assert "\n" not in line and len(line) <= limits.MAX_MESSAGE
    return line


@pytest.mark.parametrize("text,where,words", [
    ("seed: 3\nseed: 4\nactions: []\n", ":2: seed: ", "duplicate key 'seed' (first at line 1)"),
    ("actions:\n  - {do: next, do: move}\n", ":2: do: ", "duplicate key 'do'"),
    ("actions:\n  - {do: move, unit: tac-1, by: [.nan, 0]}\n", ":2: actions[0].by[0]: ",
     "not a finite number"),
    ("- {do: move, unit: tac-1, by: [1.0e+999, 0]}\n", ":1: [0].by[0]: ", "not a finite"),
    ("- {do: next, n: 99999999999999999999999}\n", ":1: [0].n: ", "too large"),
    ("seed: -3\nactions: []\n", ":1: seed: ", "between 0 and"),
    ("seed: 1.5\nactions: []\n", ":1: seed: ", "whole number"),
    ("seed: 1\nactions: 5\n", ":2: actions: ", "expected a list of actions"),
    ("seed: 1\n", ":1: actions: ", "expected a list of actions"),
    ("- {do: next}\n- [x]\n", ":2: action 2: ", "expected a mapping"),
    ("- !!python/object:os.system {}\n", ":1: yaml: ", "tags that build objects"),
    ("- {do: next\n", ":2: yaml: ", "YAML error"),
])
def test_errors_name_file_line_and_key(tmp_path, text, where, words):
    path = write(tmp_path, text)
    line = refusal(path)
    assert line.startswith(path + where) and words in line, line


def test_not_utf8_is_one_line(tmp_path):
    path = write(tmp_path, "- {do: next}\n- {do: next, note: caf\xe9}\n".encode("latin-1"))
    line = refusal(path)
    assert line.startswith(f"{path}:2: file: not UTF-8 text (column 23")  # where to look
    line = refusal(write(tmp_path, "- {do: next}\n".encode("utf-16"), "u16.yaml"))
    assert "not UTF-8" in line


def test_900_deep_nesting_is_one_line(tmp_path):
    line = refusal(write(tmp_path, "- " + "[" * 900 + "]" * 900 + "\n"))
    assert "nested deeper than" in line


def test_missing_file(tmp_path):
    assert "no such file" in refusal(str(tmp_path / "nope.yaml"))


def test_actions_come_back_as_plain_data(tmp_path):
    actions, seed = read_actions(write(tmp_path, "seed: 7\nactions:\n  - {do: next}\n"))
    assert seed == 7 and actions == [{"do": "next"}]
    assert type(actions) is list and type(actions[0]) is dict


def test_play_reports_the_refusal_in_one_line_and_exits_2(tmp_path, capsys):
    path = write(tmp_path, "actions:\n  - {do: move, unit: tac-1, by: [.inf, 0]}\n")
    out = tmp_path / "after.yaml"
    assert main(["play", str(CITY), "--actions", path, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err.strip() == (f"{path}:2: actions[0].by[0]: .inf: not a finite number "
                                    "(NaN, infinities and numbers too large are refused)")


def test_bundled_actions_files_still_read():
    for path in sorted((ROOT / "tests" / "data").glob("*_actions.yaml")):
        actions, seed = read_actions(str(path))
        assert actions and all("do" in a for a in actions), path


def test_long_result_lines_are_cut(tmp_path, capsys):
    long_unit = "u" * 5000
    path = write(tmp_path, f"- {{do: move, unit: {long_unit}, by: [1, 0]}}\n")
    assert main(["play", str(CITY), "--actions", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(len(line) <= 300 for line in lines)
