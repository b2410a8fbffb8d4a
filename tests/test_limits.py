"""Bounded resources: every hostile input of issue 11 is refused in one line, exit 2, fast,
with the process' memory under 1 GiB (measured in a child process), and numbers that are not
finite or do not fit are refused wherever they are read (files and arguments)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from battlesight.scenes import limits, load_scene, save_scene, scene_from_dict, validate_scene_file
from battlesight.scenes.errors import SceneError
from battlesight.scenes.generate import generate_table
from battlesight.scenes.yamlread import PyLineLoader, parse_yaml

from tests.helpers import DEMO, MINIMAL, ROOT, run_cli, write_scene
from tests.helpers import EXAMPLES as EXAMPLES_DIR

GiB = 1024 ** 3

#: the wrapper runs the command as its own child and reports that child's peak memory, so
#: other tests' children do not count
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
try:
    proc = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=float(sys.argv[1]))
    rc, err = proc.returncode, proc.stderr
except subprocess.TimeoutExpired as exc:
    rc, err = "timeout", str(exc.stderr or "")
print(json.dumps({"rc": rc, "stderr": err, "seconds": time.perf_counter() - start,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def measured(*args: str, timeout: float = 60) -> dict:
    """Run `battlesight ARGS` in a child; its exit code, stderr, seconds and peak RSS."""
    out = subprocess.run([sys.executable, "-c", MEASURE, str(timeout), sys.executable, "-m",
                          "battlesight", *args], capture_output=True, text=True,
                         timeout=timeout + 30)
    return json.loads(out.stdout)


def one_line(err: str) -> str:
    """The one error line (``validate`` adds a count line after the problems)."""
    lines = [x for x in err.strip().splitlines() if not x.endswith("problem(s)")]
    assert len(lines) == 1, err[:2000]
    assert "Traceback" not in err and len(lines[0]) <= limits.MAX_MESSAGE
    return lines[0]


def bomb_text(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.fixture()
def hostile(tmp_path: Path) -> dict[str, Path]:
    """Every refused input, written by the test."""
    paths = {}
    bomb = MINIMAL + bomb_text()
    assert len(bomb_text().encode()) < 1024
    paths["bomb"] = write_scene(tmp_path, bomb, "bomb.yaml")
    paths["bomb_actions"] = write_scene(tmp_path, bomb_text() + "actions: *a9\n",
                                        "bomb_actions.yaml")
    paths["deep"] = write_scene(tmp_path, MINIMAL + "extra: " + "[" * 900 + "]" * 900 + "\n",
                                "deep.yaml")
    paths["deep_actions"] = write_scene(tmp_path, "- {do: next, x: " + "{a: " * 900 + "1"
                                        + "}" * 900 + "}\n", "deep_actions.yaml")
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(limits.MAX_YAML_BYTES + 4096)  # sparse: costs no disk
    paths["big"] = big
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    paths["fifo"] = fifo
    paths["zero"] = Path("/dev/zero")
    paths["folder"] = tmp_path
    return paths


def test_alias_bomb_refused_in_under_a_second_as_scene(hostile):
    for command in (["validate"], ["los", "--from", "sgt"]):
        start = time.perf_counter()
        code, _, err = run_cli(command[0], str(hostile["bomb"]), *command[1:])
        seconds = time.perf_counter() - start
        assert code == 2 and seconds < 1.0, (command, seconds, err)
        assert "an alias counts as a copy" in one_line(err)


def test_alias_bomb_refused_in_under_a_second_as_actions_file(hostile):
    start = time.perf_counter()
    code, out, err = run_cli("play", str(DEMO), "--actions", str(hostile["bomb_actions"]))
    assert code == 2 and time.perf_counter() - start < 1.0
    assert "an alias counts as a copy" in one_line(err) and out == ""


@pytest.mark.parametrize("name,words", [("zero", "character device"), ("fifo", "FIFO"),
                                        ("folder", "directory"), ("big", "16 MiB")])
def test_special_and_huge_files_refused_at_once(hostile, name, words):
    for args in (["validate", str(hostile[name])],
                 ["play", str(DEMO), "--actions", str(hostile[name])]):
        result = measured(*args, timeout=30)
        assert result["rc"] == 2, result
        assert words in one_line(result["stderr"])


@pytest.mark.parametrize("name", ["bomb", "deep", "big", "fifo", "zero"])
def test_memory_stays_under_a_gibibyte_for_refused_scenes(hostile, name):
    result = measured("los", str(hostile[name]), "--from", "sgt", timeout=30)
    assert result["rc"] == 2, result
    one_line(result["stderr"])
    assert result["maxrss_kib"] * 1024 < GiB, result


@pytest.mark.parametrize("name", ["bomb_actions", "deep_actions", "fifo", "zero"])
def test_memory_stays_under_a_gibibyte_for_refused_actions(hostile, name):
    result = measured("play", str(DEMO), "--actions", str(hostile[name]), timeout=30)
    assert result["rc"] == 2, result
    one_line(result["stderr"])
    assert result["maxrss_kib"] * 1024 < GiB, result


def test_deep_nesting_is_one_line_not_recursion_error(hostile):
    (problem,) = validate_scene_file(hostile["deep"])
    assert "nested deeper than 64" in str(problem) and problem.line == 14


def test_too_many_values_refused(tmp_path):
    values = ", ".join(["1"] * (limits.MAX_YAML_NODES + 10))
    path = write_scene(tmp_path, MINIMAL + f"extra: [{values}]\n")
    start = time.perf_counter()
    (problem,) = validate_scene_file(path)
    assert "values" in problem.message and time.perf_counter() - start < 10


@pytest.mark.parametrize("value,words", [
    (".inf", "not a finite number"), ("-.inf", "not a finite number"),
    (".nan", "not a finite number"), ("1.0e+400", "not a finite number"),
    ("123456789012345678901234567890", "too large"), ("0x" + "f" * 30, "too large"),
])
def test_non_finite_numbers_refused_in_rules_data(tmp_path, value, words):
    text = MINIMAL.replace("height: 1.7}", f"height: 1.7, rules: {{save: {value}}}}}")
    problems = validate_scene_file(write_scene(tmp_path, text))
    assert [str(p).split(": ", 1)[1] for p in problems] == [
        f"models[boy].rules.save: {value}: " + problems[0].message.split(": ", 1)[1]]
    assert words in problems[0].message and problems[0].line == 13


def test_a_known_key_keeps_the_validators_own_words(tmp_path):
    text = MINIMAL.replace("base: 32", "base: .nan")
    (problem,) = validate_scene_file(write_scene(tmp_path, text))
    assert problem.key == "models[boy].base" and "finite" in problem.message


def test_dates_stay_text_and_odd_tags_are_refused(tmp_path):
    scene = load_scene(write_scene(tmp_path, MINIMAL + "played: 2024-05-01\n"))
    assert scene.extra["played"] == "2024-05-01"
    for tag in ("!!binary aGVsbG8=", "!!set {a, b}", "!!omap [{a: 1}]"):
        (problem,) = validate_scene_file(write_scene(tmp_path, MINIMAL + f"x: {tag}\n"))
        assert "is not allowed" in problem.message and problem.line == 14


def test_long_values_are_cut_in_messages(tmp_path):
    text = MINIMAL.replace("ruleset: wh40k6", "ruleset: " + "x" * 100_000)
    problems = validate_scene_file(write_scene(tmp_path, text))
    assert problems and all(len(str(p)) <= limits.MAX_MESSAGE for p in problems)


# -- saving ----------------------------------------------------------------------------------

def test_generated_table_with_numpy_numbers_saves(tmp_path):
    scene = generate_table(seed=1)
    path = save_scene(scene, tmp_path / "gen.yaml")
    again = load_scene(path)
    assert len(again.terrain) == len(scene.terrain) and again.table == tuple(scene.table)


def test_a_400_deep_mapping_is_refused_at_load_and_at_save(tmp_path):
    deep = "{a: " * 400 + "1" + "}" * 400
    (problem,) = validate_scene_file(write_scene(tmp_path, MINIMAL + f"extra: {deep}\n"))
    assert "nested deeper" in problem.message
    data: dict = {"leaf": 1}
    for _ in range(400):
        data = {"a": data}
    scene = load_scene(write_scene(tmp_path, MINIMAL, "ok.yaml"))
    built = scene_from_dict({"format": 1, "ruleset": "wh40k6", "table": [48, 48],
                             "models": [], "extra": data})
    assert scene.models
    with pytest.raises(ValueError, match="nested deeper"):
        save_scene(built, tmp_path / "deep-out.yaml")
    assert not any(tmp_path.glob("*deep-out*"))


# -- arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("args,words", [
    (["generate", "--ruleset", "wh40k6", "--seed", "-1"], "--seed"),
    (["generate", "--ruleset", "wh40k6", "--seed", str(2**40)], "--seed"),
    (["shoot", str(DEMO), "--unit", "a", "--target", "b", "--samples", "1000000000"],
     "--samples"),
    (["shoot", str(DEMO), "--unit", "a", "--target", "b", "--samples", "1e3"], "--samples"),
    (["analyze", str(DEMO), "--height", "inf"], "--height"),
    (["analyze", str(DEMO), "--height", "nan"], "--height"),
    (["analyze", str(DEMO), "--base", "-3"], "--base"),
    (["analyze", str(DEMO), "--grid", "nan"], "--grid"),
    (["analyze", str(DEMO), "--grid", "0.01"], "--grid"),
    (["analyze", str(DEMO), "--workers", "0"], "--workers"),
    (["analyze", "--bench", "--layouts", "-4"], "--layouts"),
    (["render", str(DEMO), "--out", "x.gif", "--turntable", "100000"], "--turntable"),
    (["render", str(DEMO), "--out", "x.png", "--heatmap", "--grid", "inf"], "--grid"),
    (["render", str(DEMO), "--out", "x.gif", "--turntable", "720", "--size", "8192x8192"],
     "pixels"),
    (["render", str(DEMO), "--out", "x.png", "--size", "9" * 5000 + "x10"], "--size"),
    (["play", str(DEMO), "--actions", "a.yaml", "--seed", "-5"], "--seed"),
    (["bench", "--rays", "0"], "--rays"),
])
def test_bad_number_arguments_are_one_line(args, words):
    code, out, err = run_cli(*args)
    assert code == 2 and out == ""
    assert words in one_line(err)


def test_a_grid_too_fine_for_a_huge_table_is_refused(tmp_path):
    path = write_scene(tmp_path, MINIMAL.replace("table: [48, 48]", "table: [1000, 1000]"))
    start = time.perf_counter()
    code, _, err = run_cli("analyze", str(path), "--grid", "0.1")
    assert code == 2 and "cells" in one_line(err) and time.perf_counter() - start < 5


def test_scene_error_lines_are_cut(tmp_path):
    with pytest.raises(SceneError) as info:
        load_scene(write_scene(tmp_path, MINIMAL.replace("name: test scene",
                                                         "name: [" + "1, " * 5000 + "1]")))
    assert len(str(info.value)) <= limits.MAX_MESSAGE


# -- the pure-Python fallback ----------------------------------------------------------------

def _shape(value):
    """Data with its line numbers, to compare two loaders."""
    if isinstance(value, dict):
        return [value.line, dict(value.lines), {k: _shape(v) for k, v in value.items()}]
    if isinstance(value, list):
        return [value.line, list(value.lines), [_shape(v) for v in value]]
    return value


@pytest.mark.parametrize("path", sorted(EXAMPLES_DIR.glob("*.yaml"))
                         + sorted((ROOT / "tests" / "data").glob("*.yaml")), ids=lambda p: p.name)
def test_pure_python_loader_reads_the_same(path):
    text = path.read_text(encoding="utf-8")
    fast, slow = parse_yaml(text, "f"), parse_yaml(text, "f", PyLineLoader)
    assert _shape(fast[0]) == _shape(slow[0]) and fast[1] == slow[1]


@pytest.mark.parametrize("text,words", [
    (bomb_text(), "an alias counts as a copy"), ("a: " + "[" * 900 + "]" * 900, "nested deeper"),
    ("a: &l [*l]\n", "recursive"), ("a: .nan\n", "not a finite"),
])
def test_pure_python_loader_keeps_the_limits(text, words):
    start = time.perf_counter()
    problems = parse_yaml(text, "f", PyLineLoader)[1]
    assert words in problems[0].message and time.perf_counter() - start < 1.0


def test_a_command_shows_at_most_50_problems(tmp_path):
    path = write_scene(tmp_path, MINIMAL + "extra: [" + ", ".join([".nan"] * 120) + "]\n")
    code, _, err = run_cli("los", str(path), "--from", "sgt")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 51 and "70 more problems" in lines[-1]
    assert all("extra[" in line and "not a finite number" in line for line in lines[:50])


@pytest.mark.parametrize("points,seconds", [(20_000, 3.0), (100_000, 8.0)])
def test_forests_with_too_many_points_are_refused_quickly(tmp_path, points, seconds):
    corners = ", ".join(f"[{10 + (i % 200) * 0.1:.1f}, {10 + (i // 200) * 0.1:.1f}]"
                        for i in range(points))
    text = MINIMAL.replace("terrain:\n", "terrain:\n  - {id: f, type: forest, polygon: "
                           f"[{corners}], height: 3}}\n")
    start = time.perf_counter()
    problems = validate_scene_file(write_scene(tmp_path, text))
    assert problems and time.perf_counter() - start < seconds
    assert all(len(str(p)) <= limits.MAX_MESSAGE for p in problems)


def test_a_smaller_alias_bomb_in_actions_prints_short_lines(tmp_path):
    small = write_scene(tmp_path, bomb_text(3) + "actions:\n  - {do: move, unit: tac-1, by: *a3}\n"
                        "  - {do: move, unit: *a3}\n", "small.yaml")
    code, out, err = run_cli("play", str(DEMO), "--actions", str(small))
    assert code == 0 and err == "" and out.count("REFUSED") == 2
    assert all(len(line) <= 300 for line in out.splitlines())
    big = write_scene(tmp_path, bomb_text(6) + "actions:\n  - {do: move, unit: *a6}\n", "big.yaml")
    code, out, err = run_cli("play", str(DEMO), "--actions", str(big))
    assert code == 2 and "an alias counts as a copy" in one_line(err)
