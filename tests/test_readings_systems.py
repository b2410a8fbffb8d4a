"""`los --readings all` per system: on a small table built here, another reading of an
ambiguous rule changes the verdict of a pair (and says so in JSON and in the text table); on
an open table no reading changes anything and the list is empty."""

from __future__ import annotations

import json

import pytest
import yaml

from battlesight.cli.main import main


def scene_file(tmp_path, ruleset: str, terrain: list[dict], models: list[dict],
               **top: object):
    data = {"format": 1, "name": f"{ruleset} readings", "ruleset": ruleset, "table": [48, 48],
            "terrain": terrain, "models": models, **top}
    path = tmp_path / f"{ruleset}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def los_json(capsys, path, a: str, b: str, *extra: str) -> dict:
    assert main(["los", str(path), "--from", a, "--to", b, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def changed(report: dict) -> dict[str, dict]:
    return {f"{e['reading']}={e['value']}": e for e in report["readings"]}


#: per system: (terrain, models, top-level keys, pair, reading that changes it, what the
#: default verdict's cover is, what it is under the reading)
CHANGING = {
    # a hedge hides the marine's legs: 5+ (A6, the digest), 6+ under the other reading
    "wh40k6": ([{"id": "hedge", "type": "wall", "from": [28.6, 20], "to": [28.6, 28],
                 "height": 0.9, "thickness": 0.3, "feature": "hedge"}],
               [{"id": "a", "player": 1, "at": [10, 24], "facing": 90},
                {"id": "b", "player": 2, "at": [30, 24], "facing": 270}], {},
               "wh40k6.A6=6+", "cover 5+ (hedge)", "cover 6+ (hedge)"),
    # at the wood's edge and directly behind a stone wall: the worst, hard -2; soft and hard
    # together under whfb6.9 'soft-plus-hard'
    "whfb6": ([{"id": "wood", "type": "forest", "kind": "woods", "height": 5,
                "polygon": [[15, 20], [35, 20], [35, 26], [15, 26]]},
               {"id": "wall", "type": "wall", "from": [15, 20], "to": [35, 20], "height": 1,
                "thickness": 0.5, "obstacle": True, "cover": "hard"}],
              [{"id": "s", "player": 1, "at": [25, 12], "facing": 0, "base": 20,
                "height": 1.2, "profile": "archer"},
               {"id": "t", "player": 2, "at": [25, 21.5], "facing": 180, "base": 20,
                "height": 1.2, "profile": "archer"}], {},
              "whfb6.9=soft-plus-hard", "cover -2 to hit (wall)", "cover -3 to hit (wall)"),
    # half the target's base on a crater: no cover by the whole base, +1 by its nearest edge
    "aos2": ([{"id": "crater", "type": "crater", "at": [30, 24], "size": [6, 6]}],
             [{"id": "a", "player": 1, "at": [10, 24], "facing": 90, "base": 32},
              {"id": "b", "player": 2, "at": [27, 24], "facing": 270, "base": 32}], {},
             "aos2.5=nearest-edge", "", "cover +1 save (crater)"),
    # behind a wall that gives cover and inside a cloud that conceals: only the higher +4, or
    # both (+6) when they stack
    "wmh2": ([{"id": "wall", "type": "wall", "from": [15, 19], "to": [25, 19], "height": 1.2,
               "thickness": 0.1, "cover": "cover"}],
             [{"id": "a", "player": 1, "at": [20, 10], "facing": 0, "base": 30, "height": 1.75},
              {"id": "b", "player": 2, "at": [20, 20], "facing": 180, "base": 30,
               "height": 1.75}],
             {"clouds": [{"id": "smoke", "at": [20, 20], "radius": 1.5}]},
             "wmh2.A11=stack", "cover +4 DEF (wall)", "cover +6 DEF (wall)"),
}


@pytest.mark.parametrize("ruleset", sorted(CHANGING))
def test_another_reading_changes_the_verdict(ruleset, tmp_path, capsys):
    terrain, models, top, reading, default, other = CHANGING[ruleset]
    path = scene_file(tmp_path, ruleset, terrain, models, **top)
    a, b = models[0]["id"], models[1]["id"]
    report = los_json(capsys, path, a, b, "--readings", "all")
    assert report["verdict"]["visible"] and report["verdict"]["cover_text"] == default
    entry = changed(report)[reading]
    rid, value = reading.split("=")
    assert entry["rule"].startswith(ruleset) and entry["text"]
    assert entry["verdict"]["cover_text"] == other
    assert set(entry["verdict"]) == set(report["verdict"])  # the same shape as the default
    # the reading chosen outright gives the same verdict as the one --readings all reported
    switched = los_json(capsys, path, a, b, "--reading", reading)
    assert switched["verdict"] == entry["verdict"] and "readings" not in switched
    # and under it, the default is the reading that changes the verdict back
    back = changed(los_json(capsys, path, a, b, "--reading", reading, "--readings", "all"))
    default_value = next(k for k in back if k.startswith(rid + "=")).split("=")[1]
    assert default_value != value and back[f"{rid}={default_value}"]["verdict"] == \
        report["verdict"]
    # the text table names the reading, its rule and both verdicts
    assert main(["los", str(path), "--from", a, "--to", b, "--readings", "all"]) == 0
    text = capsys.readouterr().out
    assert "readings that change a verdict" in text
    row = next(line for line in text.splitlines() if reading in line)
    assert entry["rule"] in row and other in row


OPEN = {
    "wh40k6": [{"id": "a", "player": 1, "at": [10, 24], "facing": 90},
               {"id": "b", "player": 2, "at": [30, 24], "facing": 270}],
    "whfb6": [{"id": "s", "player": 1, "at": [25, 12], "facing": 0, "base": 20, "height": 1.2,
               "profile": "archer"},
              {"id": "t", "player": 2, "at": [25, 24], "facing": 180, "base": 20,
               "height": 1.2, "profile": "archer"}],
    "aos2": [{"id": "a", "player": 1, "at": [10, 24], "facing": 90, "base": 32},
             {"id": "b", "player": 2, "at": [30, 24], "facing": 270, "base": 32}],
    "wmh2": [{"id": "a", "player": 1, "at": [20, 10], "facing": 0, "base": 30, "height": 1.75},
             {"id": "b", "player": 2, "at": [20, 20], "facing": 180, "base": 30,
              "height": 1.75}],
}


@pytest.mark.parametrize("ruleset", sorted(OPEN))
def test_in_the_open_no_reading_changes_anything(ruleset, tmp_path, capsys):
    models = OPEN[ruleset]
    path = scene_file(tmp_path, ruleset, [], models)
    a, b = models[0]["id"], models[1]["id"]
    report = los_json(capsys, path, a, b, "--readings", "all")
    assert report["verdict"]["visible"] and report["readings"] == []
    assert main(["los", str(path), "--from", a, "--to", b, "--readings", "all"]) == 0
    assert "no other reading of an ambiguous rule changes these verdicts" in \
        capsys.readouterr().out
