"""The shared rules core: measuring, profiles, the registry and the phase engine."""

from __future__ import annotations

import math

import pytest
from battlesight.rulesets.core.game import Action, Game
from battlesight.rulesets.core.measure import (
    Outline,
    bearing,
    gap_3d,
    in_arc,
    plan_gap,
    vehicle_facing,
    wholly_within,
    within,
)
from battlesight.rulesets.core.profiles import ProfileError, load_data, resolve
from battlesight.rulesets.core.ruleset import REGISTRY, Ruleset, get_ruleset
from battlesight.scenes.model import ModelSpec

from tests.rules_helpers import Table

R32 = 32 / 25.4 / 2


def disc(x, y, r=R32, z=0.0, height=1.6):
    return Outline((x, y), z, height, (r, r))


def test_plan_and_3d_gaps():
    a, b = disc(0, 0), disc(3, 4)
    assert plan_gap(a, b) == pytest.approx(5 - 2 * R32)
    high = disc(3, 4, z=3.0)
    assert gap_3d(a, high) == pytest.approx(math.hypot(5 - 2 * R32, 3.0))
    assert gap_3d(a, high, a_body=True) == pytest.approx(math.hypot(5 - 2 * R32, 1.4))
    assert within(a, b, 5 - 2 * R32) and not within(a, b, 3.5)


def test_oval_and_hull_gaps():
    hull = Outline((0, 0), 0, 2, (2.5, 1.5), 0.0, rect=True)
    assert plan_gap(hull, disc(4, 0, r=0.5)) == pytest.approx(2.0)
    assert plan_gap(hull, disc(0, 5, r=0.5)) == pytest.approx(2.0)
    oval = Outline((0, 0), 0, 1, (1.0, 0.5), 90.0)  # long axis along x after turning 90
    assert plan_gap(oval, disc(3, 0, r=0.5)) == pytest.approx(1.5, abs=0.01)


def test_wholly_within():
    big = disc(0, 0, r=3.0)
    assert wholly_within(disc(1, 0, r=0.5), big, 0.0)
    assert not wholly_within(disc(3, 0, r=0.5), big, 0.0)
    assert wholly_within(disc(3, 0, r=0.5), big, 0.5)


def test_bearing_and_arcs():
    assert bearing((0, 0), (0, 5)) == pytest.approx(0.0)
    assert bearing((0, 0), (-5, 0)) == pytest.approx(90.0)  # facing 90 looks along -x
    assert in_arc((0, 0), 0.0, 180.0, (3, 1))
    assert not in_arc((0, 0), 0.0, 180.0, (3, -1))
    assert in_arc((0, 0), 0.0, 45.0, (math.tan(math.radians(20)), 1))
    assert not in_arc((0, 0), 0.0, 45.0, (math.tan(math.radians(30)), 1))


def test_vehicle_facings_by_135_degree_lines():
    """wh40k6 S13: hull 3" x 5", front to +y."""
    hull = Outline((0, 0), 0, 2, (2.5, 1.5), 0.0, rect=True)
    assert vehicle_facing(hull, (4, 6)) == "front"
    assert vehicle_facing(hull, (6, 6)) == "side"
    assert vehicle_facing(hull, (0, -10)) == "rear"
    assert vehicle_facing(hull, (3, 0)) == "side"
    assert vehicle_facing(hull, (0, 10)) == "front" and vehicle_facing(hull, (10, 0)) == "side"
    turned = Outline((0, 0), 0, 2, (2.5, 1.5), 90.0, rect=True)  # front now towards -x
    assert vehicle_facing(turned, (-10, 0)) == "front"


def test_profiles_merge_inline_data():
    data = load_data("wh40k6")
    assert "tactical-marine" in data["models"] and "boltgun" in data["weapons"]
    spec = ModelSpec("m", "u", 1, (0, 0), profile="tactical-marine",
                     extra={"stats": {"BS": 5}, "weapons": ["heavy bolter"],
                            "keywords": ["Stealth"]})
    raw = resolve("wh40k6", spec, {"id": "u", "profile": "tactical-squad"})
    assert raw["stats"]["BS"] == 5 and raw["stats"]["WS"] == 4
    assert [w["name"] for w in raw["weapons"]] == ["heavy bolter"]
    assert "Stealth" in raw["keywords"]
    inline = ModelSpec("x", "u", 1, (0, 0), extra={
        "stats": {"WS": 3, "BS": 3, "S": 3, "T": 3, "W": 1, "I": 3, "A": 1, "Ld": 7, "Sv": 5},
        "weapons": [{"name": "custom gun", "range": 18, "S": 5, "AP": 4, "type": "Assault 2"}]})
    raw = resolve("wh40k6", inline)
    assert raw["weapons"][0]["type"] == "Assault 2"
    default = resolve("wh40k6", ModelSpec("y", "u", 1, (0, 0)), {"profile": "ork-boyz"})
    assert default["profile"] == "ork-boy"
    with pytest.raises(ProfileError):
        resolve("wh40k6", ModelSpec("z", "u", 1, (0, 0), profile="no-such-thing"))
    with pytest.raises(ProfileError):
        resolve("wh40k6", ModelSpec("z", "u", 1, (0, 0), extra={"weapons": ["no gun"]}))


def test_registry():
    rs = get_ruleset("wh40k6")
    assert rs.id == "wh40k6" and "wh40k6" in REGISTRY and isinstance(rs, Ruleset)
    assert [p.name for p in rs.phases] == ["movement", "shooting", "assault"]
    with pytest.raises(KeyError):
        get_ruleset("chess")


def small_game(seed: int = 1) -> Game:
    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 10 + 1.5 * i) for i in range(5)])
    t.squad("boyz", 2, "ork-boy", [(40, 10 + 1.5 * i) for i in range(5)])
    return t.game(seed)


def test_phase_engine_steps_turns_and_players():
    game = small_game()
    assert (game.game_turn, game.active_player, game.phase.name) == (1, 1, "movement")
    names = []
    for _ in range(5):
        names.append((game.game_turn, game.active_player, game.phase.name, game.step.name))
        assert game.apply({"do": "next"}).ok
    assert names == [(1, 1, "movement", "move"), (1, 1, "shooting", "shoot"),
                     (1, 1, "assault", "charge"), (1, 1, "assault", "fight"),
                     (1, 2, "movement", "move")]
    game.apply({"do": "end_phase"})
    game.apply({"do": "end_phase"})
    assert (game.game_turn, game.active_player, game.phase.name) == (2, 1, "movement")
    kinds = {e.kind for e in game.log}
    assert {"game_start", "turn_start", "phase", "step", "turn_end"} <= kinds


def test_wrong_phase_and_wrong_player_are_refused():
    game = small_game()
    result = game.apply({"do": "shoot", "unit": "tac", "target": "boyz"})
    assert not result.ok and "not allowed now" in result.reason
    assert game.log[-1].kind == "refused"
    ok, why = game.legal({"do": "move", "unit": "boyz", "by": [-1, 0]})
    assert not ok and "player 2" in why
    ok, why = game.legal({"do": "move", "unit": "nobody", "by": [1, 0]})
    assert not ok and "no unit" in why
    ok, why = game.legal({"unit": "tac"})
    assert not ok and "'do'" in why
    assert Action.from_dict({"do": "move", "unit": "tac", "by": [1, 0]}).params == {"by": [1, 0]}


def test_game_ends_after_last_turn():
    game = small_game(seed=5)
    for _ in range(7 * 2 * 3 + 2):
        if game.over:
            break
        game.apply({"do": "end_phase"})
    assert game.over
    assert not game.legal({"do": "next"})[0]
    assert any(e.kind == "game_length" for e in game.log)
