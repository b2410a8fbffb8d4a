"""`battlesight shoot` takes its sight and cover from the one sight verdict (`Ruleset.judge`):
for shooting unit pairs of every bundled example and of the small scenes of
test_shoot_schema.py, each firer's `sees`, each target's `visible`, share seen and cover
(value, effect, source, rule) and the cover modifiers of `shoot --json` are those of the
verdicts of the same model pairs. Where a rule is judged for the whole firing unit, the
report's value is one of its firers' verdicts: whfb6's one modifier per unit (the worst that
half the visible models have), wh40k6's best cover a model has against any firer, counting a
firer that cannot see it (ambiguity A2).
"""

from __future__ import annotations

import json

import pytest
from battlesight.rulesets.core.board import Board
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.core.verdict import Verdict

from battlesight.cli.common import load
from battlesight.cli.main import main
from tests.helpers import EXAMPLE_FILES, EXAMPLES, write_scene
from tests.test_shoot_schema import small

#: the shoot modifiers that come from cover, by system (the others: range, rend, aiming, ...)
COVER_MODIFIER = {
    "wh40k6": lambda m: m.get("applies_to") == "save",
    "whfb6": lambda m: m["name"].endswith(" cover"),
    "aos2": lambda m: m.get("applies_to") == "save_mod" and m["name"] != "rend",
    "wmh2": lambda m: m.get("applies_to") == "def",
}
COVER_KEYS = ("in_cover", "value", "effect", "source", "rule")


def shoot(capsys, path, unit: str, target: str) -> dict:
    assert main(["shoot", str(path), "--unit", unit, "--target", target, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def cover_of(verdict: Verdict) -> dict:
    return {k: verdict.cover.to_dict()[k] for k in COVER_KEYS}


def check(system: str, report: dict, verdicts: dict[tuple[str, str], Verdict],
          firers: list[str], targets: list[str]) -> set[str]:
    """Assert that the report agrees with the verdicts; return the kinds of target met
    ('clear', 'cover', 'hidden')."""
    kinds: set[str] = set()
    for line in report["firers"]:
        seen = {t for t in targets if verdicts[(line["model"], t)].visible}
        assert set(line["sees"]) <= seen, line
        if line["sees"] or "rank that may shoot" not in line["reason"]:
            assert set(line["sees"]) == seen, (line["model"], line["reason"])
    armed = [f for f in firers if f in {ln["model"] for ln in report["firers"]}]
    for line in report["targets"]:
        t = line["model"]
        mine = [verdicts[(f, t)] for f in armed]
        seen = [v for v in mine if v.visible]
        kinds.add("hidden" if not seen else "cover" if line["cover"]["in_cover"] else "clear")
        if system != "wmh2":  # MK II: a target only for a firer that may attack it
            assert line["visible"] == bool(seen), t
        assert not line["visible"] or seen, t
        shares = {round(v.seen_share, 4) for v in mine} | ({0.0} if not seen else set())
        assert line["visible_fraction"] in shares, (t, line["visible_fraction"], shares)
        if not line["visible"]:
            continue
        cover = {k: line["cover"][k] for k in COVER_KEYS}
        # whfb6 has one modifier per unit: a verdict of a model of the unit against the firer
        pool = [verdicts[(f, m)] for f in armed for m in (targets if system == "whfb6" else [t])]
        pool = [v for v in pool if v.visible and v.cover is not None and (
            line["cover"]["firer"] is None or v.observer == line["cover"]["firer"])]
        by = line["cover"]["firer"]
        if system == "wh40k6" and by is not None and not verdicts[(by, t)].visible:
            assert cover["in_cover"]  # A2: a firer that cannot see the model counts as
            continue  # seeing it at least 25% obscured (rulesets/wh40k6/ambiguities.py)
        match = [v for v in pool if cover_of(v) == cover]
        assert match, (t, cover, [cover_of(v) for v in pool])
        if cover["in_cover"] and line["p_hit"] > 0:  # modifiers: of the attacks that reach it
            ours = [m for m in line["modifiers"] if COVER_MODIFIER[system](m)]
            assert any(ours == [m.to_dict() for m in v.modifiers] for v in match), (
                t, ours, [[m.to_dict() for m in v.modifiers] for v in match])
        elif system in ("wh40k6", "wmh2"):  # the cover of a model: no firer gives it any
            assert not any(v.in_cover for v in seen if v.observer in {
                f["model"] for f in report["firers"] if f["can_fire"]}), t
    return kinds


def ranged(profile) -> bool:
    """Whether a model of any system carries a ranged (missile) weapon."""
    for name in ("ranged_weapons", "missile", "ranged"):
        listed = getattr(profile, name, None)
        if callable(listed):
            return bool(listed())
    return False


def shooting_pairs(board: Board) -> list[tuple[str, str]]:
    """(firing unit, target unit) of enemies, the firing unit with a ranged weapon."""
    units = board.unit_ids()
    return [(u, e) for u in units if any(ranged(board.profile(m)) for m in board.unit_models(u))
            for e in units
            if board.unit_player(e) != board.unit_player(u) and board.unit_models(e)]


def judged(board: Board, unit: str, target: str) -> tuple[dict, list[str], list[str]]:
    firers, targets = board.unit_models(unit), board.unit_models(target)
    pairs = [(f, t) for f in firers for t in targets]
    return dict(zip(pairs, board.ruleset.judge(board, pairs), strict=True)), firers, targets


def pick(board: Board) -> tuple[list[tuple[str, str]], set[str]]:
    """Shooting unit pairs that include, among them, a target model in cover, a hidden one and
    a clear one where the scene has them (from one batch of verdicts of every shooting model
    pair), and the kinds found."""
    units = shooting_pairs(board)
    pairs = list(dict.fromkeys((f, t) for u, e in units for f in board.unit_models(u)
                               for t in board.unit_models(e)))
    status = {p: v.status for p, v in zip(pairs, board.ruleset.judge(board, pairs),
                                          strict=True)}

    def kind(unit: str, t: str) -> str:  # a target model: hidden from all, else in cover or not
        seen = {status[(f, t)] for f in board.unit_models(unit)}
        return "cover" if "cover" in seen else "clear" if "clear" in seen else "hidden"

    out: list[tuple[str, str]] = []
    found = set()
    for wanted in ("cover", "hidden", "clear"):
        having = [(u, e) for u, e in units
                  if any(kind(u, t) == wanted for t in board.unit_models(e))]
        out += [p for p in having if p not in out][:1]
        found |= {wanted} if having else set()
    return out, found


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_bundled_example_shoot_takes_the_verdicts(capsys, path):
    scene, world = load(str(path))
    board = Board(scene, world, get_ruleset(scene.ruleset))
    chosen, found = pick(board)
    kinds: set[str] = set()
    for unit, target in chosen:
        report = shoot(capsys, path, unit, target)
        verdicts, firers, targets = judged(board, unit, target)
        kinds |= check(scene.ruleset, report, verdicts, firers, targets)
    # a model clear to one firer may have cover against the unit (wh40k6: A2, third-unit gaps)
    assert found - {"clear"} <= kinds and kinds - {"hidden"}, (path.name, chosen, kinds, found)


@pytest.mark.parametrize("ruleset", ["wh40k6", "whfb6", "aos2", "wmh2"])
def test_small_scene_shoot_takes_the_verdicts(capsys, tmp_path, ruleset):
    """Targets in the open near and far, and one behind a wall: in cover (whfb6: outside the
    front arc, hidden)."""
    path = small(tmp_path, ruleset)
    scene, world = load(str(path))
    board = Board(scene, world, get_ruleset(ruleset))
    kinds: set[str] = set()
    for target in ("ub", "uf", "ug"):
        report = shoot(capsys, path, "ua", target)
        verdicts, firers, targets = judged(board, "ua", target)
        kinds |= check(ruleset, report, verdicts, firers, targets)
    assert kinds >= ({"clear", "hidden"} if ruleset == "whfb6" else {"clear", "cover"}), kinds


#: whfb6: a shooter, a target just behind a wall (hard cover) and one behind a hedge (soft)
WALLS = """\
format: 1
name: walls
ruleset: whfb6
table: [24, 24]
terrain:
  - {id: wall, type: wall, from: [1, 12], to: [9, 12], height: 1, thickness: 0.5,
     obstacle: true}
  - {id: hedge, type: wall, from: [13, 12], to: [21, 12], height: 1, thickness: 0.5,
     obstacle: true, kind: hedge}
models:
  - {id: a, unit: ua, player: 1, at: [10, 4], base: 25, height: 1.6}
  - {id: b, unit: ub, player: 2, at: [5, 12.9], base: 25, height: 1.6, facing: 180}
  - {id: c, unit: uc, player: 2, at: [17, 12.9], base: 25, height: 1.6, facing: 180}
"""


@pytest.mark.parametrize(("target", "model", "value", "name"),
                         [("ub", "b", -2, "hard cover"), ("uc", "c", -1, "soft cover")])
def test_whfb6_cover_is_minus_to_hit_in_shoot_and_verdict(capsys, tmp_path, target, model,
                                                          value, name):
    """A to-hit cover penalty reads -2 hard or -1 soft in the verdict and in `shoot`, in the
    JSON and in the text, and the score needed goes up by as much."""
    path = write_scene(tmp_path, WALLS)
    report = shoot(capsys, path, "ua", target)
    scene, world = load(str(path))
    board = Board(scene, world, get_ruleset("whfb6"))
    verdict = board.ruleset.judge(board, [("a", model)])[0]
    line = report["targets"][0]
    assert line["cover"]["value"] == value and line["cover"]["effect"] == "to_hit"
    assert verdict.cover is not None and verdict.cover.value == value
    mods = [m for m in line["modifiers"] if m["name"].endswith(" cover")]
    assert mods == [m.to_dict() for m in verdict.modifiers] == [
        {"name": name, "value": value, "rule": "whfb6 §5.1", "applies_to": "to_hit",
         "text": f"{value} to hit"}]
    assert report["firers"][0]["need"] == 4 - value  # BS 3: 4+, one or two worse
    assert main(["shoot", str(path), "--unit", "ua", "--target", target]) == 0
    text = capsys.readouterr().out
    assert f"{name} {value} to hit [whfb6 §5.1]" in text and verdict.label.endswith(
        f"cover {value} to hit ({verdict.cover.source})")


@pytest.mark.parametrize("name,unit,target", [
    ("whfb6_village", "handgunners", "orc-boyz"),  # square bases (whfb6 §3)
    ("wh40k6_city_ruins", "dev-1", "boyz-1"),  # 3D base to base (wh40k6 §3)
])
def test_los_and_shoot_measure_the_same_distance(capsys, name, unit, target):
    """A firer's distance to its closest target in `shoot` is the `distance` that `los`
    prints for that pair: one measuring function (`Ruleset.distance`)."""
    path = EXAMPLES / f"{name}.yaml"
    report = shoot(capsys, path, unit, target)
    checked = 0
    for line in report["firers"]:
        if line.get("closest") is None or line.get("distance") is None:
            continue
        assert main(["los", str(path), "--from", line["model"], "--to", line["closest"],
                     "--json"]) == 0
        los = json.loads(capsys.readouterr().out)
        assert los["distance"] == pytest.approx(line["distance"], abs=1e-3), line["model"]
        checked += 1
    assert checked


def test_wmh2_measures_bases_as_their_size_class_in_los_and_shoot(capsys, tmp_path):
    """A 32 mm base is a small base (30 mm) in MK II: `los` and `shoot` give one distance."""
    path = tmp_path / "w32.yaml"
    path.write_text("format: 1\nname: p\nruleset: wmh2\ntable: [24, 24]\nmodels: [{id: a1, "
                    "unit: A, player: 1, at: [12, 6], base: 32, height: 1.6}, {id: b1, unit: B, "
                    "player: 2, at: [12, 12.8], base: 32, height: 1.6, facing: 270}]\n")
    firer = shoot(capsys, path, "A", "B")["firers"][0]
    assert main(["los", str(path), "--from", "a1", "--to", "b1", "--json"]) == 0
    los = json.loads(capsys.readouterr().out)
    assert los["distance"] == pytest.approx(firer["distance"], abs=1e-3)
    assert los["distance"] > los["distance_plan"]  # the 30 mm class, not the 32 mm base
