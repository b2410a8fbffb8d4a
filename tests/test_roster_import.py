"""BattleScribe rosters as players have them (issue 26): a selection the importer cannot place
is a warning naming it and what was kept, never a refusal of the whole roster; `*` stats from
the damage table's first row; `-` and empty values as none; the roster's game system and
edition checked; every dropped weapon listed; the BattleScribe ids kept under `x-source`; and
what the gate accepts from an import, `shoot` handles. Each roster is written here to the
published roster structure (no third-party files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from battlesight.scenes import load_scene

from battlesight.cli.main import main
from tests.test_importers import EXAMPLES, LIBERATORS, chars, roster

AOS2 = str(EXAMPLES / "aos2_ruins_obstacles.yaml")
WH40K6 = str(EXAMPLES / "wh40k6_city_ruins.yaml")

ALLEGIANCE = """
<selection id="a1" name="Allegiance" entryId="ea" number="1" type="unit">
  <selections><selection id="a2" name="Order" entryId="eo" number="1" type="upgrade"/>
  </selections>
</selection>"""

BUNKER = """
<selection id="b1" name="Bunker" entryId="eb" number="1" type="upgrade">
  <profiles><profile id="bp" name="Bunker" typeId="t" typeName="Fortification">
    <characteristics><characteristic name="Armour" typeId="t">12</characteristic>
    </characteristics></profile></profiles>
</selection>"""

#: a monster whose Move and claws' Damage are '*': its damage table gives them, first row first
MONSTER = f"""
<selection id="m1" name="Gryph-hound Alpha" entryId="em" number="1" type="upgrade">
  <profiles>
    <profile id="p1" name="Gryph-hound Alpha" typeId="t1" typeName="Unit">
      <characteristics>{chars(Move="*", Wounds="10", Bravery="8", Save="")}</characteristics>
    </profile>
    <profile id="p2" name="Claws" typeId="t2" typeName="Melee Weapons">
      <characteristics>{chars(Range='1&quot;', Attacks="4", To_Hit="3+", To_Wound="3+",
                              Rend="", Damage="*")}</characteristics>
    </profile>
    <profile id="p3" name="Bite" typeId="t2" typeName="Melee Weapons">
      <characteristics>{chars(Range='1&quot;', Attacks="*", To_Hit="3+", To_Wound="3+",
                              Rend="-1", Damage="1")}</characteristics>
    </profile>
    <profile id="d1" name="0-3" typeId="t3" typeName="Damage Table">
      <characteristics>{chars(Wounds_Suffered="0-3", Move='10&quot;', Claws="2")}
      </characteristics></profile>
    <profile id="d2" name="4-6" typeId="t3" typeName="Damage Table">
      <characteristics>{chars(Wounds_Suffered="4-6", Move='8&quot;', Claws="1")}
      </characteristics></profile>
  </profiles>
</selection>"""


def run_import(tmp_path: Path, content: str, onto: str, *extra: str) -> tuple[int, Path]:
    src = tmp_path / "army.ros"
    src.write_text(content)
    out = tmp_path / "army-scene.yaml"
    code = main(["import", str(src), "--format", "battlescribe", "--onto", onto, *extra,
                 "--out", str(out)])
    return code, out


def test_a_selection_the_importer_cannot_place_is_a_warning_not_a_refusal(tmp_path, capsys):
    code, out = run_import(tmp_path, roster("Age of Sigmar", ALLEGIANCE + BUNKER + LIBERATORS),
                           AOS2)
    err = capsys.readouterr().err
    assert code == 0 and out.exists()
    assert "selection[Allegiance]: left out: no unit/model/warscroll profile" in err
    assert "selection[Bunker]: left out: not a unit (no stat line)" in err
    assert "kept 1 of 3 selections (5 models)" in err
    scene = load_scene(out)
    assert scene.units[-1]["x-source"]["name"] == "Liberators"


def test_star_stats_come_from_the_damage_tables_first_row_and_say_so(tmp_path, capsys):
    code, out = run_import(tmp_path, roster("Age of Sigmar", MONSTER), AOS2)
    err = capsys.readouterr().err
    assert code == 0, err
    unit = load_scene(out).units[-1]
    assert unit["stats"]["move"] == 10 and unit["stats"]["save"] == "-"  # '' is none
    weapons = {w["name"]: w for w in unit.get("weapons", [])}
    assert weapons["claws"]["damage"] == 2 and weapons["claws"]["rend"] == 0
    assert "bite" not in weapons  # its '*' attacks: no row gives them
    assert "move '*' read from the damage table's first row (0-3: 10\")" in err
    assert "weapon 'claws' damage '*' read from the damage table's first row (0-3: 2)" in err
    assert "weapon 'bite' left out: its attacks is '*' and no damage table gives it" in err
    # a warscroll unit BattleScribe types `upgrade` is a unit all the same
    assert unit["x-source"] == {"format": "battlescribe", "roster": "Test",
                                "game": "Age of Sigmar", "name": "Gryph-hound Alpha",
                                "id": "m1", "entryId": "em"}


@pytest.mark.parametrize("game, onto", [
    ("Warhammer Age of Sigmar: Warcry", AOS2),
    ("Warhammer 40,000: Kill Team (2021)", WH40K6),
    ("Warhammer 40,000 8th Edition", WH40K6),
    ("Horus Heresy (2022)", WH40K6),
])
def test_a_roster_of_another_game_is_refused_unless_forced(tmp_path, capsys, game, onto):
    code, out = run_import(tmp_path, roster(game, LIBERATORS), onto)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists()
    assert len(err) == 1 and f"roster.gameSystemName: the roster is for '{game}'" in err[0]
    assert "--force" in err[0]
    if onto == AOS2:
        code, out = run_import(tmp_path, roster(game, LIBERATORS), onto, "--force")
        assert code == 0 and "read anyway (--force)" in capsys.readouterr().err


def test_every_weapon_the_system_does_not_know_is_listed(tmp_path, capsys):
    reivers = f"""
<selection id="r1" name="Reiver Squad" entryId="er" number="1" type="unit">
  <profiles>
    <profile id="p1" name="Reiver" typeId="t" typeName="Unit">
      <characteristics>{chars(Unit_Type="Infantry", WS="4", BS="4", S="4", T="4", W="1",
                              I="4", A="1", Ld="8", Save="3+")}</characteristics></profile>
    <profile id="w1" name="Bolt carbine" typeId="w" typeName="Weapon">
      <characteristics>{chars(Range='24&quot;', S="4", AP="5")}</characteristics></profile>
    <profile id="w2" name="Frag grenade" typeId="w" typeName="Weapon">
      <characteristics>{chars(Range='8&quot;', S="3", AP="-")}</characteristics></profile>
  </profiles>
  <selections><selection id="r2" name="Reiver" entryId="e2" number="5" type="model"/>
  </selections>
</selection>"""
    code, out = run_import(tmp_path, roster("Warhammer 40,000 6th Edition", reivers), WH40K6)
    err = capsys.readouterr().err
    assert code == 0, err
    assert load_scene(out).units[-1]["weapons"] == ["frag grenade"]
    assert ("selection[Reiver Squad]: weapons left out (not in wh40k6's weapon data): "
            "bolt carbine; kept: frag grenade") in err


def test_a_roster_with_nothing_to_place_is_refused_in_one_line(tmp_path, capsys):
    code, out = run_import(tmp_path, roster("Age of Sigmar", ALLEGIANCE), AOS2)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists()
    assert err[-1].endswith("forces: the roster has no unit the importer can place "
                            "(1 selections left out: see above)")


def test_what_the_gate_accepts_from_an_import_shoot_handles(tmp_path, capsys):
    """A '*' damage no table gave is refused at the gate at its key; a 6-36 range band is read
    and shot with."""
    scene = tmp_path / "s.yaml"
    base = ("format: 1\nname: t\nruleset: aos2\ntable: [48, 48]\nunits:\n"
            "  - {id: guns, player: 1, stats: {move: 4, wounds: 1, bravery: 5, save: 5},\n"
            "     weapons: [{name: cannon, range: %s, attacks: 1, to_hit: 4, to_wound: 3,\n"
            "                rend: -1, damage: %s, type: missile}]}\n"
            "  - {id: foes, player: 2, stats: {move: 4, wounds: 1, bravery: 5, save: 5}}\n"
            "models:\n"
            "  - {id: g1, unit: guns, at: [10, 24], base: 32, height: 1.6}\n"
            "  - {id: f1, unit: foes, at: [30, 24], base: 32, height: 1.6}\n")
    scene.write_text(base % ("6-36", "'*'"))
    assert main(["validate", str(scene)]) == 2
    err = capsys.readouterr().err
    assert "units[guns].weapons[cannon].damage: must be a number or dice" in err
    assert "Traceback" not in err
    scene.write_text(base % ("6-36", "D3"))
    assert main(["validate", "--strict", str(scene)]) == 0
    assert main(["shoot", str(scene), "--unit", "guns", "--target", "foes"]) == 0
    assert "cannon" in capsys.readouterr().out


def test_a_model_selection_named_for_its_count_is_that_many_models(tmp_path, capsys):
    """AoS data writes a unit's models as one selection named for them ("6 Sneaky Snufflers",
    number 1); a plural weapon name is the system's singular one ("Frag grenades")."""
    snufflers = f"""
<selection id="u1" name="Sneaky Snufflers" entryId="e1" number="1" type="unit">
  <profiles><profile id="p1" name="Sneaky Snufflers" typeId="t1" typeName="Unit">
    <characteristics>{chars(Move='5&quot;', Wounds="1", Bravery="4", Save="6+")}
    </characteristics></profile></profiles>
  <selections><selection id="m1" name="6 Sneaky Snufflers" entryId="e2" number="1"
    type="model"/></selections>
</selection>"""
    code, out = run_import(tmp_path, roster("Age of Sigmar", snufflers), AOS2)
    assert code == 0, capsys.readouterr().err
    scene = load_scene(out)
    assert len(scene.unit_models(scene.units[-1]["id"])) == 6
    grenadiers = f"""
<selection id="g1" name="Scouts" entryId="e1" number="5" type="model">
  <profiles><profile id="p1" name="Scout" typeId="t" typeName="Unit">
    <characteristics>{chars(WS="4", BS="4", S="4", T="4", W="1", I="4", A="1", Ld="8",
                            Save="4+")}</characteristics></profile>
    <profile id="w" name="Frag grenades" typeId="w" typeName="Weapon">
      <characteristics>{chars(Range='8&quot;')}</characteristics></profile></profiles>
</selection>"""
    code, out = run_import(tmp_path, roster("Warhammer 40,000 6th Edition", grenadiers), WH40K6)
    assert code == 0, capsys.readouterr().err
    assert load_scene(out).units[-1]["weapons"] == ["frag grenade"]
