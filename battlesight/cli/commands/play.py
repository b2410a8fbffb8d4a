"""`battlesight play SCENE --actions FILE.yaml --seed N [--out SCENE2.yaml] [--log LOG.json]`:
run a scripted sequence of actions through the phase engine. Illegal actions are refused with
the reason and the script carries on; the resulting scene and the event log are written
atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from battlesight.cli.arguments import add_reading_arguments, chosen_readings, int_in
from battlesight.cli.common import (
    add_scene_argument,
    check_output_path,
    json_text,
    load,
    messages_stream,
)
from battlesight.cli.errors import UsageError
from battlesight.rulesets.core.action_keys import action_problems
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.core.profiles import ProfileError
from battlesight.rulesets.core.readings import use
from battlesight.rulesets.core.ruleset import Ruleset
from battlesight.scenes import limits
from battlesight.scenes.checks import item_line, line_of, plain
from battlesight.scenes.errors import SceneError, SceneProblem
from battlesight.scenes.limits import MAX_SEED, shorten, shown
from battlesight.scenes.output import to_json, write_outputs
from battlesight.scenes.save import scene_to_yaml
from battlesight.scenes.textfiles import is_stdio
from battlesight.scenes.yamlread import read_yaml

#: characters of one printed result line
LINE_WIDTH = 300


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="play a scripted sequence of actions from a seed")
    add_scene_argument(parser)
    parser.add_argument("--actions", required=True, metavar="FILE",
                        help="YAML list of actions ({do: move, unit: ...}), or {actions: [...]}")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=None, metavar="N",
                        help="dice seed (default: the actions file's seed, else 0)")
    parser.add_argument("--out", metavar="SCENE2", help="write the resulting scene here")
    parser.add_argument("--log", metavar="LOG", help="write the event log (JSON) here")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    add_reading_arguments(parser)


@dataclass
class ActionScript:
    """An actions file read: its actions as plain dicts, its seed, and the lines of each action
    and of its keys, so that what the game's system does not know is named where it is
    written (`problems`)."""

    file: str
    actions: list[dict[str, Any]]
    seed: int | None
    lines: list[tuple[int | None, dict[Any, int]]]

    def problems(self, ruleset: Ruleset) -> list[SceneProblem]:
        """One problem per unknown action or key of an action (`core.action_keys`), at its
        line; the key path names the action by its number (`action 3.facng`)."""
        out = []
        for i, action in enumerate(self.actions):
            line, keys = self.lines[i]
            for key, message in action_problems(ruleset, action):
                out.append(SceneProblem(self.file, keys.get(key, line), f"action {i + 1}.{key}",
                                        message))
        return out


def read_actions(path: str) -> tuple[list[dict[str, Any]], int | None]:
    """The actions of a script file (plain dicts) and its optional seed (`read_script`)."""
    script = read_script(path)
    return script.actions, script.seed


def read_script(path: str) -> ActionScript:
    """The actions of a script file, its optional seed and their lines.

    The file is read as a scene is (``scenes.yamlread``: regular files only, size, depth and
    alias limits, UTF-8, duplicate keys and non-finite numbers refused); SceneError with
    ``FILE:LINE: KEY: message`` problems otherwise. Which actions and keys the scene's system
    knows is checked once the scene is read (`ActionScript.problems`, in `play`).
    """
    data, problems = read_yaml(path, "actions file")

    def refuse(line: int | None, key: str, message: str) -> SceneError:
        return SceneError([SceneProblem(path, line, key, message)])

    if problems:
        raise SceneError(problems)
    seed = None
    where = data
    if isinstance(data, dict):
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise refuse(line_of(data, "seed") or 1, "seed",
                         f"expected a whole number, got {shown(seed)}")
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise refuse(line_of(data, "seed") or 1, "seed",
                         f"must be between 0 and {MAX_SEED:,}, got {seed}")
        data = data.get("actions")
    if not isinstance(data, list):
        line = line_of(where, "actions") if isinstance(where, dict) else None
        raise refuse(line or 1, "actions",
                     f"expected a list of actions (mappings with 'do'), got {shown(data)}")
    for i, action in enumerate(data):
        if not isinstance(action, dict):
            line = data.lines[i] if getattr(data, "lines", None) else 1
            raise refuse(line, f"action {i + 1}",
                         f"expected a mapping with 'do', got {shown(action)}")
    far = _far_number(data, "actions")
    if far is not None:
        line, key, value = far
        raise refuse(line, key, f"{shown(value)} is beyond {limits.MAX_COORDINATE:,g}: an "
                                "action's numbers are inches, counts or dice on a table")
    lines = [(item_line(data, i), dict(getattr(a, "lines", {}))) for i, a in enumerate(data)]
    return ActionScript(path, plain(data), seed, lines)


def _far_number(value: Any, key: str, line: int | None = None
                ) -> tuple[int | None, str, float] | None:
    """(line, key path, number) of the first number in the actions beyond
    ``limits.MAX_COORDINATE`` (no table is that large), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (line, key, value) if abs(value) > limits.MAX_COORDINATE else None
    if isinstance(value, dict):
        items = [(f"{key}.{k}", v, getattr(value, "lines", {}).get(k, line))
                 for k, v in value.items()]
    elif isinstance(value, list):
        lines = getattr(value, "lines", [])
        items = [(f"{key}[{i}]", v, lines[i] if i < len(lines) else line)
                 for i, v in enumerate(value)]
    else:
        return None
    for sub_key, sub, sub_line in items:
        found = _far_number(sub, sub_key, sub_line)
        if found is not None:
            return found
    return None


def play(scene_path: str, actions: list[dict[str, Any]] | ActionScript, seed: int,
         readings: list[str] | None = None) -> tuple[Game, list[dict]]:
    """The actions played in order on a game of the scene, under the readings given (`--reading`
    texts): the game and one result per action. Actions read from a file whose system does not
    know an action or key of theirs: SceneError naming each, nothing played."""
    scene, world = load(scene_path)
    try:
        game = Game(scene, scene.ruleset, seed, world=world)
    except (KeyError, ProfileError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    if isinstance(actions, ActionScript):
        unknown = actions.problems(game.ruleset)
        if unknown:  # a misspelt action or key: the whole file, before any action is played
            raise SceneError(unknown)
        actions = actions.actions
    with use(chosen_readings(readings, game.ruleset)):
        return game, _results(game, actions)


def _results(game: Game, actions: list[dict[str, Any]]) -> list[dict]:
    """Each action applied in turn: ok or refused with its reason and rule, and its events."""
    results = []
    for i, action in enumerate(actions, 1):
        try:
            result = game.apply(action)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            # passed the system's checks but its parameters broke the resolution: the game
            # is in no state to go on; stop before anything is written
            why = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise UsageError(f"action {i} {shown(action, 120)}: cannot be resolved: "
                             f"{shorten(str(why), 200)}") from None
        results.append({"index": i, "action": action, "ok": result.ok, "reason": result.reason,
                        "rule": result.rule, "where": game.where() if not game.over else "over",
                        "events": [e.seq for e in result.events]})
    return results


def _check_writable(path: str | None, what: str) -> None:
    if path and not Path(path).resolve().parent.is_dir():
        raise UsageError(f"cannot write {path}: no such folder")
    if path:
        check_output_path(path, what)


def _check_meshes_reach(scene, out: str) -> None:
    """Refuse an --out whose folder would not find the scene's mesh files (they resolve
    against the scene file's folder): the scene written there would not validate."""
    from battlesight.scenes.build import unreachable_from

    folder = Path(out).resolve().parent
    lost = unreachable_from(scene, folder)
    if lost:
        names = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        raise UsageError(f"--out {out}: the scene's mesh files ({names}) are found from its "
                         f"own folder {scene.scene_dir}, not from {folder}: write the scene "
                         "there, or copy them beside it")


def run(args) -> int:
    script = read_script(args.actions)
    seed = args.seed if args.seed is not None else (script.seed or 0)
    _check_writable(args.out, "--out")
    _check_writable(args.log, "--log")
    piped = next((flag for flag, path in (("--out", args.out), ("--log", args.log))
                  if is_stdio(path)), None)
    if piped and args.json:
        raise UsageError(f"{piped} - and --json both print to standard output: give a file "
                         f"for {piped}")
    if args.out and args.log and Path(args.out).resolve() == Path(args.log).resolve():
        raise UsageError(f"--out and --log name the same file {args.out}")
    game, results = play(args.scene, script, seed, args.reading)
    if args.out:
        _check_meshes_reach(game.board.scene, args.out)
    files = {}  # every output is built whole before any is written, and printed after
    if args.out:
        files[args.out] = scene_to_yaml(game.board.scene)
    if args.log:
        log = {"scene": args.scene, "seed": seed, "ruleset": game.ruleset.id,
               "results": results, "events": game.log_dicts()}
        files[args.log] = to_json(log, indent=1) + "\n"
    refused = [r for r in results if not r["ok"]]
    if args.json:
        text = json_text({"seed": seed, "results": results, "refused": len(refused),
                          "where": game.where(), "over": game.over})
    else:
        text = report(results, refused, game)
    write_outputs(files)
    print(text, end="", file=messages_stream(args.out, args.log))
    return 0


def _refusal(result: dict) -> str:
    """`REFUSED (rule): reason`, the rule that refused cited (none for a timing refusal)."""
    rule = f" ({result['rule']})" if result.get("rule") else ""
    return f"REFUSED{rule}: {result['reason']}"


def report(results: list[dict], refused: list[dict], game: Game) -> str:
    """The text report: one line per action (cut to LINE_WIDTH), then the totals."""
    lines = []
    for r in results:
        act = r["action"]
        what = " ".join(str(act.get(k)) for k in ("do", "unit", "target") if act.get(k))
        lines.append(shorten(f"{r['index']:3d}. {shorten(what, 100)}: "
                             + ("ok" if r["ok"] else _refusal(r)), LINE_WIDTH))
    lines.append(f"{len(results)} actions, {len(refused)} refused; now {game.where()}"
                 + (" (game over)" if game.over else ""))
    return "\n".join(lines) + "\n"
