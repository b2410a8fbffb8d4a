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
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.core.profiles import ProfileError
from battlesight.scenes.save import scene_to_yaml
from battlesight.viewer.commands.common import (
    add_scene_argument,
    check_output_path,
    load,
    print_json,
)
from battlesight.viewer.errors import UsageError


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
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise UsageError(f"{path}:{_line(path, 'seed')}: seed: expected a whole number, "
                             f"got {seed!r}")
        data = data.get("actions")
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected a list of actions (mappings with 'do')")
    for i, action in enumerate(data):
        if not isinstance(action, dict):
            raise UsageError(f"{path}:{_line(path, i)}: action {i + 1}: expected a mapping with "
                             f"'do', got {action!r}")
    return data, seed


def _line(path: str, key: str | int) -> int:
    """Line (1-based) of the top-level `key`, or of entry `key` of the action list, in the
    actions file; 1 when it cannot be told."""
    try:
        node = yaml.compose(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(key, str) and k.value == key:
                return k.start_mark.line + 1
            if isinstance(key, int) and k.value == "actions":
                node = v
    if isinstance(key, int) and isinstance(node, yaml.SequenceNode) and key < len(node.value):
        return node.value[key].start_mark.line + 1
    return 1


def play(scene_path: str, actions: list[dict[str, Any]], seed: int) -> tuple[Game, list[dict]]:
    scene, world = load(scene_path)
    try:
        game = Game(scene, scene.ruleset, seed, world=world)
    except (KeyError, ProfileError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    results = []
    for i, action in enumerate(actions, 1):
        try:
            result = game.apply(action)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            # passed the system's checks but its parameters broke the resolution: the game
            # is in no state to go on; stop before anything is written
            why = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise UsageError(f"action {i} {action}: cannot be resolved: {why}") from None
        results.append({"index": i, "action": action, "ok": result.ok, "reason": result.reason,
                        "rule": result.rule, "where": game.where() if not game.over else "over",
                        "events": [e.seq for e in result.events]})
    return game, results


def _write_all(files: dict[str, str]) -> None:
    """Write every file or none: each to a temporary file beside it first, then all renamed
    (modes as a new file would get)."""
    umask = os.umask(0)
    os.umask(umask)
    temps: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            target = Path(path)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                       dir=target.parent if str(target.parent) else ".")
            temps.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(tmp, 0o666 & ~umask)
        for tmp, target in temps:
            os.replace(tmp, target)
    finally:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)


def _check_writable(path: str | None, what: str) -> None:
    if path and not Path(path).resolve().parent.is_dir():
        raise UsageError(f"cannot write {path}: no such folder")
    if path:
        check_output_path(path, what)


def run(args) -> int:
    actions, file_seed = read_actions(args.actions)
    seed = args.seed if args.seed is not None else (file_seed or 0)
    _check_writable(args.out, "--out")
    _check_writable(args.log, "--log")
    if args.out and args.log and Path(args.out).resolve() == Path(args.log).resolve():
        raise UsageError(f"--out and --log name the same file {args.out}")
    game, results = play(args.scene, actions, seed)
    files = {}
    if args.out:
        files[args.out] = scene_to_yaml(game.board.scene)
    if args.log:
        log = {"scene": args.scene, "seed": seed, "ruleset": game.ruleset.id,
               "results": results, "events": game.log_dicts()}
        files[args.log] = json.dumps(log, indent=1, default=str) + "\n"
    _write_all(files)
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
