"""Fuzzing battlesight's commands: mutate the bundled scenes and actions files, run each
command in this process, and judge what came back.

``mutate_data`` changes a parsed YAML document (values made odd, huge, NaN or negative; keys
deleted; list items duplicated; unknown keys added), ``mutate_text`` changes its text (lines
dropped or doubled, cut short, an alias bomb added). ``run_command`` runs `battlesight ARGS`
through ``battlesight.cli.main`` in a fresh output folder and returns an ``Outcome``: the exit code,
the traceback if one escaped, the seconds taken, and the temporary files or outputs a failed
run left behind. ``cases`` lists the (scene, actions, command line) jobs for one input.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import io
import random
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from battlesight.scenes import EXAMPLES_DIR, load_scene
from battlesight.scenes.output import TEMP_MARK

from battlesight.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
ACTIONS_DIR = ROOT / "tests" / "data"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.yaml"))
COMMANDS = ("los", "shoot", "render", "export", "analyze", "play")

#: values put in place of what was there
ODD_VALUES: list[Any] = [
    None, "", "x", "no-such-id", -1, 0, 1, 2, -0.0, 0.15, 1e-9, 1e300, -1e300, 1.8e302,
    10**7, 10**30, float("nan"), float("inf"), -float("inf"), True, [], {}, [1], [0.5],
    [1, 2, 3], [[1, 2, 3]], {"a": 1}, [[0, 0], [1e300, 0], [0, 1]], [1e9, 1e9], "a" * 300,
    datetime.date(2024, 1, 1), [[0, 0], [4, 4], [4, 0], [0, 4]], {"WS": "x"}, 10_000_000,
]
#: factors a number is multiplied by
FACTORS = [-1, 0, 1e-9, 0.5, 3, 1e6, 1e300]
#: keys added to a mapping (misspelt known keys, the user's own keys)
UNKNOWN_KEYS = ["hieght", "scael", "colour", "x-note", "extra", "trunks", "floors", "profile",
                "stats", "weapons", "powers", "clouds", "rules", "floor", "id", "at"]


def _slots(data: Any, out: list[tuple[Any, Any]] | None = None) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of the document, depth first."""
    out = [] if out is None else out
    if isinstance(data, dict):
        for key, value in data.items():
            out.append((data, key))
            _slots(value, out)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out.append((data, i))
            _slots(value, out)
    return out


def _containers(data: Any) -> list[Any]:
    found = [data] if isinstance(data, (dict, list)) else []
    for container, key in _slots(data):
        if isinstance(container[key], (dict, list)):
            found.append(container[key])
    return found


def mutate_data(data: Any, rng: random.Random, count: int = 1) -> Any:
    """A mutated deep copy of a parsed YAML document (``count`` mutations)."""
    data = copy.deepcopy(data)
    for _ in range(count):
        slots = _slots(data)
        if not slots:
            return rng.choice(ODD_VALUES)
        container, key = rng.choice(slots)
        op = rng.choice(("odd", "odd", "odd", "scale", "nudge", "nudge", "delete", "duplicate",
                         "unknown"))
        value = container[key]
        if op == "nudge":  # a small change: the scene often stays valid and reaches builders
            container[key] = _nudged(value, rng)
        elif op == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            container[key] = value * rng.choice(FACTORS)
        elif op == "scale" and isinstance(value, list) and value and all(
                isinstance(v, (int, float)) for v in value):
            factor = rng.choice(FACTORS)
            container[key] = [v * factor for v in value]
        elif op == "delete":
            del container[key]
        elif op == "duplicate" and isinstance(container, list):
            container.insert(key, copy.deepcopy(value))
        elif op == "unknown":
            target = rng.choice([c for c in _containers(data) if isinstance(c, dict)] or [{}])
            target[rng.choice(UNKNOWN_KEYS)] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            container[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return data


def _nudged(value: Any, rng: random.Random) -> Any:
    """Numbers moved a little (times 0.5 to 1.5, or plus/minus up to 3), inside lists too."""
    if isinstance(value, bool) or not isinstance(value, (int, float, list)):
        return value
    if isinstance(value, list):
        return [_nudged(v, rng) for v in value]
    if rng.random() < 0.5:
        return value * rng.uniform(0.5, 1.5)
    return value + rng.uniform(-3, 3)


BOMB = "".join(f"b{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 9)}]\n" for i in range(1, 9))
BOMB = "b0: &b0 [x, x, x, x, x, x, x, x, x]\n" + BOMB


def mutate_text(text: str, rng: random.Random) -> str:
    """The YAML text with one change made as text: a line dropped, doubled or cut, a stray
    character, the file cut short, an alias bomb appended."""
    lines = text.splitlines(keepends=True) or [""]
    i = rng.randrange(len(lines))
    op = rng.choice(("drop", "double", "cut", "char", "truncate", "bomb", "tab"))
    if op == "drop":
        del lines[i]
    elif op == "double":
        lines.insert(i, lines[i])
    elif op == "cut":
        lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)] + "\n"
    elif op == "char":
        j = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:j] + rng.choice("{}[]:&*!%@`'\"\x00\t#-?|>,") + lines[i][j:]
    elif op == "truncate":
        return text[:rng.randrange(len(text) + 1)]
    elif op == "bomb":
        return text + BOMB + rng.choice(["extra: *b8\n", "", "table: *b5\n"])
    else:
        lines[i] = lines[i].replace("  ", "\t", 1)
    return "".join(lines)


def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None)


@cache
def example_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def example_data(path: Path) -> Any:
    return yaml.safe_load(example_text(path))


def actions_for(scene: Path) -> Path | None:
    path = ACTIONS_DIR / f"{scene.stem}_actions.yaml"
    return path if path.exists() else None


@cache
def _ids(scene: Path) -> tuple[str | None, str | None, str | None]:
    """(first model, a player-1 unit, a player-2 unit) of an example scene."""
    loaded = load_scene(scene)
    model = loaded.models[0].id if loaded.models else None
    by_player: dict[int, str] = {}
    for unit in loaded.units or []:
        if isinstance(unit, dict) and "id" in unit and "player" in unit:
            by_player.setdefault(unit["player"], unit["id"])
    for m in loaded.models:
        if m.unit is not None:
            by_player.setdefault(m.player, m.unit)
    return model, by_player.get(1), by_player.get(2)


def command_line(command: str, example: Path, scene: str, actions: str | None,
                 out: Path) -> list[str]:
    """The arguments of one run of ``command`` on a (mutated) scene, outputs under ``out``."""
    model, unit, target = _ids(example)
    if command == "los":
        return ["los", scene, "--from", model or "m", "--json"]
    if command == "shoot":
        return ["shoot", scene, "--unit", unit or "u", "--target", target or "t",
                "--samples", "16", "--json"]
    if command == "render":
        return ["render", scene, "--out", str(out / "picture.png"), "--size", "64x48",
                "--view", "top", "--los", model or "m"]
    if command == "export":
        return ["export", scene, str(out / "world.glb")]
    if command == "analyze":
        return ["analyze", scene, "--grid", "6", "--json", "--heatmap", str(out / "heat.png")]
    return ["play", scene, "--actions", actions or str(ACTIONS_DIR / "missing.yaml"),
            "--out", str(out / "after.yaml"), "--log", str(out / "log.json"), "--json"]


@dataclass
class Outcome:
    """What one run did."""

    argv: list[str]
    example: str = ""
    input: str = ""
    code: int | str | None = None
    seconds: float = 0.0
    traceback: str = ""
    stderr: str = ""
    temp_left: list[str] = field(default_factory=list)
    written_on_failure: list[str] = field(default_factory=list)

    @property
    def crashed(self) -> bool:
        return bool(self.traceback) or "Traceback" in self.stderr or "internal error" in \
            self.stderr

    @property
    def hung(self) -> bool:
        return self.code == "timeout"

    @property
    def half_written(self) -> bool:
        return bool(self.temp_left or self.written_on_failure)

    @property
    def ok(self) -> bool:
        return self.code in (0, 2) and not (self.crashed or self.half_written)


class _Timeout(BaseException):
    """Raised by the alarm when a run takes too long (not an Exception: commands must not
    catch it)."""


def _alarm(signum, frame):
    raise _Timeout


def run_command(argv: list[str], out: Path, timeout: float = 60.0) -> Outcome:
    """Run `battlesight ARGV` in this process; judge the exit, the time and the files."""
    outcome = Outcome(argv)
    stdout, stderr = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                outcome.code = main(argv)
            except SystemExit as exc:
                outcome.code = exc.code if isinstance(exc.code, int) else 2
    except _Timeout:
        outcome.code = "timeout"
    except Exception:  # noqa: BLE001 - an escaped exception is what the fuzzer looks for
        outcome.traceback = traceback.format_exc(limit=-8)
        outcome.code = "exception"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    outcome.seconds = time.perf_counter() - start
    outcome.stderr = stderr.getvalue()
    files = [p for p in out.rglob("*") if p.is_file() or p.is_symlink()]
    outcome.temp_left = [p.name for p in files if TEMP_MARK in p.name]
    if outcome.code != 0:
        outcome.written_on_failure = [p.name for p in files if TEMP_MARK not in p.name
                                      and p.parent == out and not p.name.startswith("input")]
    return outcome


def fuzz_once(rng: random.Random, command: str, timeout: float = 60.0,
              max_actions: int | None = None) -> Outcome:
    """One mutated input for one command: pick an example (for play: a scene with an actions
    file, and mutate the scene or the actions), mutate it, run the command on it."""
    pool = [p for p in EXAMPLES if command != "play" or actions_for(p) is not None]
    example = rng.choice(pool)
    actions = actions_for(example)
    with tempfile.TemporaryDirectory(prefix="bs-fuzz-") as folder:
        out = Path(folder)
        scene_text = example_text(example)
        actions_text = example_text(actions) if actions is not None else None
        if actions_text is not None and max_actions is not None:
            data = example_data(actions)
            steps = data["actions"] if isinstance(data, dict) else data
            actions_text = dump({"seed": 3, "actions": steps[:max_actions]})
        target_actions = command == "play" and rng.random() < 0.5
        source = actions_text if target_actions else scene_text
        if rng.random() < 0.2:
            mutated = mutate_text(source, rng)
        else:
            parsed = yaml.safe_load(source)
            mutated = dump(mutate_data(parsed, rng, rng.choice((1, 1, 2, 3))))
        scene_path = out / "input-scene.yaml"
        scene_path.write_text(scene_text if target_actions else mutated, encoding="utf-8")
        actions_path = None
        if actions_text is not None:
            actions_path = out / "input-actions.yaml"
            actions_path.write_text(mutated if target_actions else actions_text,
                                    encoding="utf-8")
        argv = command_line(command, example, str(scene_path),
                            None if actions_path is None else str(actions_path), out)
        outcome = run_command(argv, out, timeout)
        outcome.example = example.name + (" (actions mutated)" if target_actions else "")
        outcome.input = mutated
        return outcome
