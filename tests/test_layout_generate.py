"""Random legal layouts and the layout checks that judge them."""

import pytest
from battlesight.scenes import load_scene, save_scene, scene_from_dict
from battlesight.scenes.footprints import footprints, piece_span, polygon_gap
from battlesight.scenes.systems import system_ids

from battlesight.analysis import (
    generate_layout,
    layout_checks,
    legal,
    scene_deployment,
    setup_systems,
)

SEEDS = range(8)


@pytest.mark.parametrize("ruleset", sorted(setup_systems()))
def test_generated_layouts_follow_the_setup_rules(ruleset, tmp_path):
    rules = setup_systems()[ruleset]
    maps = set()
    for seed in SEEDS:
        scene = generate_layout(ruleset, seed)
        checks = layout_checks(scene, scene_deployment(scene))
        assert legal(checks), [c for c in checks if not c.passed]
        assert all(c.passed for c in checks)
        assert tuple(scene.table) == rules.table and scene.models == []
        prints = list(footprints(scene).values())
        gaps = [polygon_gap(a, b) for i, a in enumerate(prints) for b in prints[i + 1:]]
        assert min(gaps) > rules.min_gap
        maps.add(scene.deployment)
        path = tmp_path / f"{ruleset}-{seed}.yaml"
        save_scene(scene, path)
        back = load_scene(path)
        assert back.terrain == scene.terrain and back.deployment == scene.deployment
    if ruleset == "wh40k6":
        assert maps == {"dawn-of-war", "hammer-and-anvil", "vanguard-strike"}  # the D3 roll
    if ruleset == "wmh2":
        assert all(3 <= piece_span(p) <= 6 for p in scene.terrain)


def test_generation_is_deterministic_and_seeds_differ():
    a, b = generate_layout("aos2", 5), generate_layout("aos2", 5)
    assert a.terrain == b.terrain
    assert generate_layout("aos2", 6).terrain != a.terrain
    assert generate_layout("wh40k6", 5, "Vanguard Strike").deployment == "Vanguard Strike"
    with pytest.raises(ValueError):
        generate_layout("chess", 1)


def doc(ruleset, table, terrain, deployment=None):
    return scene_from_dict({"format": 1, "name": "t", "ruleset": ruleset, "table": table,
                            "terrain": terrain, "models": [], "deployment": deployment})


def failed(scene):
    return {c.rule for c in layout_checks(scene, scene_deployment(scene)) if not c.passed}


def box(pid, x, y, size=4):
    return {"id": pid, "type": "box", "at": [x, y], "size": [size, size, 3]}


def test_wh40k6_checks_cite_their_rules():
    areas = [box(f"b{i}{j}", 12 + 24 * i, 12 + 24 * j) for i in range(3) for j in range(2)]
    assert failed(doc("wh40k6", [72, 48], areas, "dawn-of-war")) == set()
    close = [*areas, box("near", 17, 12)]  # 1" from b00
    assert failed(doc("wh40k6", [72, 48], close, "dawn-of-war")) == {"wh40k6 §6.8"}
    empty_area = areas[1:]
    assert "wh40k6 §6.8" in failed(doc("wh40k6", [72, 48], empty_area))
    custom = {1: [[0, 0], [72, 0], [72, 6], [0, 6]], 2: [[0, 42], [72, 42], [72, 48], [0, 48]]}
    assert failed(doc("wh40k6", [72, 48], areas, custom)) == {"wh40k6 §2.3"}
    off = [*areas, box("off", 71, 40)]
    assert "scene format v1 (table)" in failed(doc("wh40k6", [72, 48], off))


def test_wmh2_aos2_whfb6_checks():
    pieces = [box(f"b{i}", 10 + 6 * i, 24) for i in range(6)]
    assert failed(doc("wmh2", [48, 48], pieces)) == set()
    assert failed(doc("wmh2", [48, 48], pieces[:5])) != set()  # 5 pieces: too few
    edge = [*pieces[:5], box("edge", 44, 24)]
    assert any("Steamroller" in r for r in failed(doc("wmh2", [48, 48], edge)))
    assert "wmh2 §13 (S p.16)" in failed(doc("wmh2", [60, 44], pieces))
    near = {1: [[0, 0], [48, 0], [48, 12], [0, 12]], 2: [[0, 30], [48, 30], [48, 48], [0, 48]]}
    assert "wmh2 §13 (S p.16)" in failed(doc("wmh2", [48, 48], pieces, near))
    areas = [box(f"b{i}{j}", 12 + 24 * i, 12 + 24 * j) for i in range(3) for j in range(2)]
    assert failed(doc("aos2", [72, 48], areas)) == set()
    assert failed(doc("aos2", [72, 48], areas[:-1])) == {"aos2 §6.1"}
    assert failed(doc("whfb6", [72, 48], [])) == set()
    assert failed(doc("whfb6", [48, 48], [])) != set()


@pytest.mark.parametrize("ruleset", system_ids())
def test_generated_layouts_pass_validate_strict(tmp_path, ruleset):
    """What `generate` writes is a scene `validate --strict` accepts: no unread keys."""
    from battlesight.cli.main import main

    out = tmp_path / f"{ruleset}.yaml"
    assert main(["generate", "--ruleset", ruleset, "--seed", "5", "--out", str(out)]) == 0
    assert main(["validate", "--strict", str(out)]) == 0
