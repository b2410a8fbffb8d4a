"""The bundled example scenes validate and are laid out as a game would be."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from battlesight.geometry import planar
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes import (
    DEFAULT_SCENE,
    load_scene,
    piece_footprint,
    validate_scene_file,
)
from battlesight.scenes.footprints import base_polygon
from battlesight.scenes.systems import SYSTEMS

from tests.helpers import DEMO, EXAMPLE_FILES, RULESET_EXAMPLES

SOLID = ("wall", "box", "mesh")  # a base may not overlap these on the ground


def test_every_ruleset_has_an_example():
    assert set(RULESET_EXAMPLES) == set(SYSTEMS)
    for path in [DEMO, *RULESET_EXAMPLES.values()]:
        assert path in EXAMPLE_FILES
    assert DEFAULT_SCENE == DEMO


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_validates(path):
    assert validate_scene_file(path) == []
    scene = load_scene(path)
    assert scene.name and scene.format == 1
    assert scene.players == [1, 2]


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_ruleset_table_and_armies(ruleset):
    scene = load_scene(RULESET_EXAMPLES[ruleset])
    assert scene.ruleset == ruleset
    assert scene.table == get_ruleset(ruleset).setup_rules.table  # the system's own table
    for player in (1, 2):
        assert len(scene.models_of(player)) >= 10
    assert isinstance(scene.deployment, dict) and set(scene.deployment) == {1, 2}


def test_demo_scene():
    scene = load_scene(DEMO)
    assert scene.ruleset == "wh40k6" and scene.table in ((48, 48), (72, 48))
    kinds = {p.type for p in scene.terrain}
    assert {"ruin", "wall", "hill", "forest"} <= kinds
    assert any(p.type == "ruin" and p.get("floors") and p.get("windows") for p in scene.terrain)
    assert 4 <= len(scene.models_of(1)) <= 8 and 4 <= len(scene.models_of(2)) <= 8


def test_a_statue_mesh_is_used():
    pieces = [p for path in EXAMPLE_FILES for p in load_scene(path).terrain if p.type == "mesh"]
    assert any(p.get("file").endswith("terrain/statue.glb") for p in pieces)


def _outline(model):
    ry, rx = model.base_radii_in
    return base_polygon(model.at, ry, rx, model.facing, 48)


def _max_radius(model):
    return max(model.base_radii_in)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_bases_do_not_overlap(path):
    scene = load_scene(path)
    for a, b in itertools.combinations(scene.models, 2):
        if (a.floor or 0) != (b.floor or 0):
            continue
        gap = math.dist(a.at, b.at)
        if gap >= _max_radius(a) + _max_radius(b):
            continue
        pa, pb = _outline(a), _outline(b)
        assert not planar.covers(pa, pb).any() and not planar.covers(pb, pa).any(), (
            f"{a.id} and {b.id} overlap")


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_bases_clear_of_solid_terrain_and_ruin_edges(path):
    scene = load_scene(path)
    for piece in scene.terrain:
        fp = piece_footprint(piece)
        for m in scene.models:
            outline = _outline(m)
            inside = planar.covers(outline, fp)
            if piece.type in SOLID:
                assert not inside.any() and not planar.covers(fp, outline).any(), (
                    f"{m.id} stands on {piece.id}")
            elif piece.type == "ruin":
                # wholly inside (clear of its walls) or wholly outside, never across an edge
                clear = planar.edge_distance(np.array([m.at]), fp)[0] > _max_radius(m) + 0.3
                assert clear, f"{m.id} straddles the edge of {piece.id}"


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_armies_deploy_in_their_zones_facing_the_enemy(ruleset):
    scene = load_scene(RULESET_EXAMPLES[ruleset])
    centre = {p: np.mean(np.asarray(poly, float), axis=0) for p, poly in scene.deployment.items()}
    for m in scene.models:
        zone = scene.deployment[m.player]
        assert planar.covers(_outline(m), zone).all(), f"{m.id} outside its zone"
        enemy = centre[3 - m.player]
        look = np.array([-math.sin(math.radians(m.facing)), math.cos(math.radians(m.facing))])
        assert look @ (enemy - np.asarray(m.at)) > 0, f"{m.id} faces away from the enemy"


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_units_are_groups_of_one_player(ruleset):
    scene = load_scene(RULESET_EXAMPLES[ruleset])
    assert scene.units
    for unit in scene.units:
        members = scene.unit_models(unit["id"])
        assert members, unit["id"]
        assert {m.player for m in members} == {unit["player"]}
        # coherency: every model within 2" (base to base) of another model of its unit
        for m in members:
            others = [o for o in members if o is not m]
            if others:
                gaps = [math.dist(m.at, o.at) - _max_radius(m) - _max_radius(o) for o in others]
                assert min(gaps) <= 2.0, f"{m.id} is out of coherency"


def test_wh40k6_city_ruins():
    scene = load_scene(RULESET_EXAMPLES["wh40k6"])
    ruins = [p for p in scene.terrain if p.type == "ruin"]
    assert sum(1 for r in ruins if len(r.get("floors") or []) >= 2) >= 2
    assert all(r.get("cover") == 4 and r.get("walls") for r in ruins)
    assert any(p.type == "crater" for p in scene.terrain)
    assert any(p.type == "box" for p in scene.terrain)
    assert sum(1 for p in scene.terrain if p.type == "wall" and p.get("cover") == 4) >= 2
    tac = scene.unit_models("tac-1")
    assert scene.unit("tac-1")["profile"] == "tactical-squad"
    assert [m.profile for m in tac].count("space-marine-sergeant") == 1
    assert all(m.profile in ("tactical-marine", "space-marine-sergeant") for m in tac)
    assert all((m.base, m.shape, m.height) == (32, "humanoid", 1.6) for m in tac)
    devs = [m for m in scene.models if m.profile == "devastator-marine"]
    assert scene.unit(devs[0].unit)["profile"] == "devastator-squad"
    assert any(m.floor == 1 for m in devs) and any(not m.floor for m in devs)
    orks = scene.models_of(2)
    assert {"ork-boy", "ork-nob"} <= {m.profile for m in orks}
    assert all((m.base, m.height) == (32, 1.7) for m in orks if m.profile in ("ork-boy", "ork-nob"))
    assert any(u["profile"] == "lootas" for u in scene.units)


def test_wmh2_hills_forest():
    scene = load_scene(RULESET_EXAMPLES["wmh2"])
    kinds = [p.type for p in scene.terrain]
    assert kinds.count("hill") >= 2 and "forest" in kinds
    walls = [p for p in scene.terrain if p.type == "wall"]
    assert walls and all(w.get("obstacle") is True and w.get("cover") == "cover" for w in walls)
    assert any(p.type == "crater" and p.get("rough") is True for p in scene.terrain)  # rubble
    heights = {30: 1.75, 40: 2.25, 50: 2.75}
    for player in (1, 2):
        models = scene.models_of(player)
        assert {m.base for m in models} == {30, 40, 50} if player == 1 else True
        assert all(m.height == heights[m.base] and m.shape == "cylinder" for m in models)
        assert {"warcaster", "warjack-heavy", "trooper"} <= {m.profile for m in models}
    assert "warjack-light" in {m.profile for m in scene.models}


def test_whfb6_village_ranked_units():
    scene = load_scene(RULESET_EXAMPLES["whfb6"])
    kinds = [p.type for p in scene.terrain]
    assert kinds.count("forest") >= 1 and kinds.count("hill") >= 1
    hedges = [p for p in scene.terrain if p.type == "wall"]
    assert hedges and all(h.get("obstacle") is True and h.get("height") <= 1.2 for h in hedges)
    assert any(p.get("kind") == "building" for p in scene.terrain)
    for unit in scene.units:
        form = unit["formation"]
        members = scene.unit_models(unit["id"])
        assert len(members) == form["files"] * form["ranks"]
        assert all(m.facing == form["facing"] for m in members)
        # the front rank touches the formation's front edge
        ry = max(m.base_radii_in[0] for m in members)
        look = np.array([-math.sin(math.radians(form["facing"])),
                         math.cos(math.radians(form["facing"]))])
        depth = [(np.asarray(form["front"]) - m.at) @ look for m in members]
        assert min(depth) == pytest.approx(ry, abs=0.15)
    bases = {m.base for m in scene.models}
    assert (50, 25) in bases and bases <= {20, 25, (50, 25)}


def test_aos2_ruins_obstacles():
    scene = load_scene(RULESET_EXAMPLES["aos2"])
    kinds = [p.type for p in scene.terrain]
    assert kinds.count("ruin") >= 2 and "hill" in kinds and "forest" in kinds
    assert sum(1 for p in scene.terrain if p.type == "wall" and p.get("obstacle")) >= 2
    assert {m.base for m in scene.models} == {32, 40, 60}
