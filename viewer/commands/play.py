"""`battlesight play SCENE --actions FILE.yaml --seed N [--out SCENE2.yaml] [--log LOG.json]`:
run a scripted sequence of actions through the phase engine. Illegal actions are refused with
the reason and the script carries on; the resulting scene and the event log are written
atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from rulesets.core.game import Game
from rulesets.core.profiles import ProfileError
from scenes.save import save_scene
from viewer.commands.common import add_scene_argument, load, print_json
from viewer.errors import UsageError


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="play a scripted sequence of actions from a seed")
    add_scene_argument(parser)
    parser.add_argument("--actions", required=True, metavar="FILE",
                        help="YAML list of actions ({do: move, unit: ...}), or {actions: [...]}")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="dice seed (default: the actions file's seed, else 0)")
    parser.add_argument("--out", metavar="SCENE2", help="write the resulting scene here")
    parser.add_argument("--log", metavar="LOG", help="write the event log (JSON) here")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def read_actions(path: str) -> tuple[list[dict[str, Any]], int | None]:
    """The actions of a script file and its optional seed."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read actions file {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"actions file {path} is not valid YAML: {exc}") from None
    seed = None
    if isinstance(data, dict):
        seed = data.get("seed")
        data = data.get("actions")
    if not isinstance(data, list) or not all(isinstance(a, dict) for a in data):
        raise UsageError(f"{path}: expected a list of actions (mappings with 'do')")
    return data, seed if isinstance(seed, int) else None


def play(scene_path: str, actions: list[dict[str, Any]], seed: int) -> tuple[Game, list[dict]]:
    scene, world = load(scene_path)
    try:
        game = Game(scene, scene.ruleset, seed, world=world)
    except (KeyError, ProfileError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    results = []
    for i, action in enumerate(actions, 1):
        result = game.apply(action)
        results.append({"index": i, "action": action, "ok": result.ok, "reason": result.reason,
                        "rule": result.rule, "where": game.where() if not game.over else "over",
                        "events": [e.seq for e in result.events]})
    return game, results


def _write_atomic(path: str, text: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                               dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_writable(path: str | None) -> None:
    if path and not Path(path).resolve().parent.is_dir():
        raise UsageError(f"cannot write {path}: no such folder")


def run(args) -> int:
    actions, file_seed = read_actions(args.actions)
    seed = args.seed if args.seed is not None else (file_seed or 0)
    _check_writable(args.out)
    _check_writable(args.log)
    game, results = play(args.scene, actions, seed)
    if args.out:
        save_scene(game.board.scene, args.out)
    if args.log:
        log = {"scene": args.scene, "seed": seed, "ruleset": game.ruleset.id,
               "results": results, "events": game.log_dicts()}
        _write_atomic(args.log, json.dumps(log, indent=1, default=str) + "\n")
    refused = [r for r in results if not r["ok"]]
    if args.json:
        print_json({"seed": seed, "results": results, "refused": len(refused),
                    "where": game.where(), "over": game.over})
        return 0
    for r in results:
        act = r["action"]
        what = " ".join(str(act.get(k)) for k in ("do", "unit", "target") if act.get(k))
        print(f"{r['index']:3d}. {what}: " + ("ok" if r["ok"] else f"REFUSED: {r['reason']}"))
    print(f"{len(results)} actions, {len(refused)} refused; now {game.where()}"
          + (" (game over)" if game.over else ""))
    return 0
