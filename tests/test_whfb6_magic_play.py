"""whfb6 spells in play (whfb6 §10.3-§10.5): the spell list, a magic missile, an augment and
a hex through the power dice / dispel / Irresistible Force / miscast flow, spells in play and
their end, with scripted dice and a replayable scripted game."""

from __future__ import annotations

from fractions import Fraction

from battlesight.rulesets.whfb6 import shooting, spells, tables

from tests.rules_helpers import ScriptedRoller
from tests.test_whfb6_psychology import _kinds, _unit
from tests.test_whfb6_scenes import game, loose, scene

END = {"do": "end_phase"}


def _magic_game(faces: list[int], wizard_facing: float = 0.0, enemy_front=(20, 22)):
    """Player 1: a level 2 wizard and a block; player 2: a block and a level 1 wizard."""
    e, em = _unit("e", 2, enemy_front, 180)
    f, fm_ = _unit("f", 1, (30, 10), 0)
    models = loose("w", 1, "archer", [(20, 10)], base=20, facing=wizard_facing,
                   rules=["wizard 2"])
    models += loose("ew", 2, "archer", [(60, 40)], base=20, facing=180, rules=["wizard 1"])
    g = game(scene("whfb6", units=[e, f], models=models + em + fm_), seed=4)
    g.roller = ScriptedRoller(faces, 4)
    g.play([END, END])  # -> magic: 4 power dice, 3 dispel dice
    return g


def _t(g, unit: str, stat: str) -> int:
    return g.board.profile(g.board.unit_models(unit)[0]).stat(stat)


def test_spell_list_has_a_missile_an_augment_and_a_hex():
    kinds = {s["kind"] for s in spells.spell_list().values()}
    assert kinds == {"magic missile", "augment", "hex"}
    assert all(isinstance(s["value"], int) for s in spells.spell_list().values())


def test_exact_casting_chances():
    assert tables.p_cast(1, 5) == Fraction(1, 3)
    assert tables.p_cast(2, 5) == Fraction(5, 6)
    assert tables.p_cast(2, 13) == Fraction(1, 36)  # only Irresistible Force


def test_magic_missile_hits_d6_at_its_strength_after_a_failed_dispel():
    # cast 3 + 4 = 7 >= 5; dispel 1 + 2 fails; D6 = 4 hits; S4 vs T3 wounds on 3+: three;
    # no armour; 3 of 10 lost: panic test (whfb6 §11 [GK✓], §8.5) passed on 1 + 1.
    g = _magic_game([3, 4, 1, 2, 4, 6, 5, 4, 1, 1, 1])
    assert g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 2,
                    "target": "e"}).ok
    assert g.apply({"do": "dispel", "dice": 2}).ok
    ev = _kinds(g, "spell")[0].data
    assert (ev["hits"], ev["S"], ev["wounds"], ev["unsaved"]) == (4, 4, 3, 3)
    assert len(g.board.unit_models("e")) == 7
    assert _kinds(g, "panic")[0].data["passed"]


def test_magic_missile_needs_the_arc_and_range():
    g = _magic_game([], wizard_facing=180)
    r = g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 2, "target": "e"})
    assert not r.ok and "90-degree arc" in r.reason
    g = _magic_game([], enemy_front=(20, 40))
    r = g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 2, "target": "e"})
    assert not r.ok and "reaches 24" in r.reason
    r = g.apply({"do": "cast", "unit": "w", "spell": "iron skin", "dice": 2, "target": "e"})
    assert not r.ok and "friendly" in r.reason


def test_irresistible_force_cannot_be_dispelled():
    g = _magic_game([6, 6, 3])  # two 6s; then D6 = 3 hits
    assert g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 2,
                    "target": "e"}).ok
    assert _kinds(g, "cast")[0].data["irresistible"]
    assert _kinds(g, "spell")[0].data["hits"] == 3
    r = g.apply({"do": "dispel", "dice": 2})
    assert not r.ok and "no spell is waiting" in r.reason


def test_miscast_logs_its_roll_and_says_the_table_is_missing():
    g = _magic_game([1, 1, 5, 2, 3])
    assert g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 3,
                    "target": "e"}).ok
    assert not _kinds(g, "cast")[0].data["cast"]
    miscast = _kinds(g, "miscast")[0].data
    assert miscast["roll"] == [2, 3] and miscast["table"] is None
    assert "not in the seed" in miscast["note"]
    assert not _kinds(g, "spell")


# iron skin 3 + 4 = 7 >= 6; curse 4 + 4 = 8 >= 7; player 2 dispels iron skin in play on 3 + 3.
SCRIPT_FACES = [3, 4, 4, 4, 3, 3]


def _augment_and_hex():
    g = _magic_game(list(SCRIPT_FACES))
    need = shooting.analyse(g.board, "e", "f").firing[0].need
    results = g.play([
        {"do": "cast", "unit": "w", "spell": "iron skin", "dice": 2, "target": "f"},
        {"do": "cast", "unit": "w", "spell": "curse of clumsiness", "dice": 2, "target": "e"},
        END,
    ])
    return g, results, need


def test_augment_and_hex_apply_to_play_until_the_casters_next_turn():
    g, results, need = _augment_and_hex()
    assert all(r.ok for r in results)
    assert _t(g, "f", "T") == 4 and _t(g, "e", "WS") == 2 and _t(g, "e", "BS") == 2
    assert shooting.analyse(g.board, "e", "f").firing[0].need == need + 1  # BS 2
    assert len(spells.in_play(g)) == 2
    g.play([END, END, END, END])  # player 2's turn, to its magic phase
    assert _t(g, "f", "T") == 4  # still in play in the opponent's turn
    r = g.apply({"do": "dispel_in_play", "spell": "iron skin", "dice": 2})
    assert r.ok
    ev = _kinds(g, "dispel_in_play")[0].data
    assert ev["pool"] == "power" and ev["dispelled"] and ev["dice"] == [3, 3]
    assert _t(g, "f", "T") == 3
    g.play([END, END, END])  # -> player 1's next turn: the curse ends
    ends = _kinds(g, "spell_ends")
    assert [e.data["spell"] for e in ends] == ["curse of clumsiness"]
    assert _t(g, "e", "WS") == 3 and not spells.in_play(g)


def test_dispel_in_play_needs_the_casting_value():
    g, _, _ = _augment_and_hex()
    g.roller = ScriptedRoller([2, 3])
    g.play([END, END, END, END])
    assert g.apply({"do": "dispel_in_play", "spell": "iron skin", "dice": 2}).ok
    assert not _kinds(g, "dispel_in_play")[0].data["dispelled"]  # 5 < 6
    assert _t(g, "f", "T") == 4
    r = g.apply({"do": "dispel_in_play", "spell": "fireball", "dice": 1})
    assert not r.ok and "in play" in r.reason


def test_scripted_magic_game_replays():
    g1, _, _ = _augment_and_hex()
    g2, _, _ = _augment_and_hex()
    assert g1.log_dicts() == g2.log_dicts()


def test_a_seeded_magic_game_replays_from_its_seed():
    def play():
        e, em = _unit("e", 2, (20, 22), 180)
        models = loose("w", 1, "archer", [(20, 10)], base=20, rules=["wizard 2"])
        models += loose("ew", 2, "archer", [(60, 40)], base=20, facing=180,
                        rules=["wizard 1"])
        g = game(scene("whfb6", units=[e], models=models + em), seed=11)
        g.play([END, END,
                {"do": "cast", "unit": "w", "spell": "curse of clumsiness", "dice": 3,
                 "target": "e"},
                {"do": "dispel", "dice": 3},
                {"do": "cast", "unit": "w", "spell": "fireball", "dice": 1, "target": "e"},
                END, END, END, END, END,
                {"do": "dispel_in_play", "spell": "curse of clumsiness", "dice": 2},
                END, END, END])
        return g

    g1, g2 = play(), play()
    assert [e.kind for e in g1.log if e.kind in ("cast", "magic_dice")]
    assert g1.log_dicts() == g2.log_dicts()
