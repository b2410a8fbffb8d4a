"""A ruleset owns its system: one registry list, and everything about a system in its package.

The built-in ids are listed once (`scenes.systems.SYSTEMS`), installed systems come from entry
points (`system_ids`); each is a package that declares its deployment maps, terrain set-up,
layout checks and ambiguities (read by the base `Ruleset` from its modules); the layout
designer reads them from there. No other module lists the ids or branches on one, so a fifth
system is its package and one registry entry (tests/test_copy_system.py: none at all through
an entry point).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from battlesight.rulesets.core.ambiguity import Ambiguity
from battlesight.rulesets.core.deployment import DeploymentMap, long_edges
from battlesight.rulesets.core.ruleset import REGISTRY, Ruleset, get_ruleset
from battlesight.rulesets.core.setup import SetupRules
from battlesight.rulesets.core.setup_checks import Check, table_size
from battlesight.scenes import systems, validate
from battlesight.scenes.systems import SYSTEMS, system_ids, system_package

from battlesight.analysis import (
    deployment_map,
    generate_layout,
    layout_checks,
    scene_deployment,
    setup_rules,
)

ROOT = Path(__file__).resolve().parent.parent
CODE = ("battlesight", "geometry", "scenes", "rulesets", "viewer")
#: where the ids may be written: the registry, and each system's own package
OWNERS = {ROOT / "scenes" / "systems.py", *(ROOT / "rulesets" / sid for sid in SYSTEMS)}


def test_one_registry_list():
    assert SYSTEMS == ("wh40k6", "wmh2", "whfb6", "aos2")
    assert system_ids()[:len(SYSTEMS)] == SYSTEMS  # built-in first, then any installed
    assert all(validate.is_system(sid) for sid in system_ids())  # what a scene may name
    assert not validate.is_system("chess") and not validate.is_system(None)


@pytest.mark.parametrize("sid", system_ids())
def test_each_system_is_its_package_and_declares_its_parts(sid):
    rs = get_ruleset(sid)
    assert type(rs).__module__ == f"{system_package(sid)}.ruleset" and rs.id == sid
    assert rs.deployment_maps and all(isinstance(m, DeploymentMap) for m in rs.deployment_maps)
    assert all(m.rule for m in rs.deployment_maps)
    assert isinstance(rs.setup_rules, SetupRules) and rs.setup_rules.ruleset == sid
    assert deployment_map(sid) is rs.deployment_maps[0] and setup_rules(sid) is rs.setup_rules
    ids = [a.id for a in rs.ambiguities]
    assert ids and len(set(ids)) == len(ids)
    for a in rs.ambiguities:
        assert isinstance(a, Ambiguity) and a.rule.startswith(sid) and a.chosen in a.readings
        assert a.to_dict()["chosen"] == a.chosen
    scene = generate_layout(sid, 3)
    own = rs.layout_checks(scene, scene_deployment(scene))
    assert own and all(isinstance(c, Check) and c.rule.startswith(sid) for c in own)
    assert [c.rule for c in layout_checks(scene, scene_deployment(scene))][1:] == \
        [c.rule for c in own]  # the layout designer adds only the shared on-table check


def test_an_ambiguity_must_choose_one_of_its_readings():
    with pytest.raises(ValueError, match="chosen reading"):
        Ambiguity("x", "toy §1", "which?", ("a", "b"), "c")
    with pytest.raises(ValueError, match="two readings"):
        Ambiguity("x", "toy §1", "which?", ("a",), "a")


def _id_literals(path: Path) -> tuple[set[str], list[int]]:
    """(system ids written as string constants, lines that compare something with one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {n.value for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and n.value in SYSTEMS}
    compared = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Compare)
                and any(isinstance(c, ast.Constant) and c.value in SYSTEMS
                        for c in [n.left, *n.comparators])]
    return named, compared


def _owned(path: Path) -> bool:
    return any(path == owner or owner in path.parents for owner in OWNERS)


def test_the_finder_sees_hard_coded_ids(tmp_path):
    listed = tmp_path / "x.py"
    listed.write_text('IDS = ("wh40k6", "aos2")\nif r == "wmh2":\n    pass\n')
    named, compared = _id_literals(listed)
    assert named == {"wh40k6", "aos2", "wmh2"} and compared == [2]


def test_no_module_outside_the_systems_lists_or_branches_on_ids():
    """A module may name one id as a default (`ruleset="wh40k6"`), but never lists several
    and never tests for one: that knowledge belongs to the system's package."""
    wrong = []
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if _owned(path):
                continue
            named, compared = _id_literals(path)
            rel = path.relative_to(ROOT)
            if len(named) > 1:
                wrong.append(f"{rel}: lists {sorted(named)}")
            wrong += [f"{rel}:{line}: branches on a system id" for line in compared]
    assert not wrong, "system ids outside the registry and the systems:\n" + "\n".join(wrong)


class Toy(Ruleset):
    """A fifth system, declared in one place: what the layout designer needs of it."""

    id = "toy"
    name = "Toy wargame"
    deployment_maps = (DeploymentMap("edges", "Edges", "toy §2", long_edges(8.0)),)
    setup_rules = SetupRules("toy", (36.0, 36.0), {"box": 1}, (3.0, 5.0), count=(2, 3),
                             rule="toy §3")

    @staticmethod
    def layout_checks(scene, deployment, facts=None):
        return [table_size(scene, (36.0, 36.0), "toy §3")]


def test_a_fifth_system_needs_its_package_and_one_registry_entry(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy", Toy)  # what `register` does on import of its package
    monkeypatch.setattr(systems, "SYSTEMS", (*SYSTEMS, "toy"))  # the registry line
    scene = generate_layout("toy", 1)
    assert scene.ruleset == "toy" and tuple(scene.table) == (36.0, 36.0)
    assert 2 <= len(scene.terrain) <= 3
    dep = scene_deployment(scene)
    assert dep.source == "edges" and np.isclose(dep.zones[1][:, 1].max(), 8.0)
    checks = layout_checks(scene, dep)
    assert [c.rule for c in checks] == ["scene format v1 (table)", "toy §3"]
    assert all(c.passed for c in checks)


def test_what_pictures_need_is_an_attribute_of_the_ruleset(monkeypatch, tmp_path):
    """The mat under ruins (`table_mat`) and the figures drawn in plain cylinders
    (`proxy_figures`) are read from the scene's `Ruleset`: a system that declares them gets
    them, whatever its id."""
    from battlesight.viewer.materials import auto_mat
    from battlesight.viewer.proxies import display_figure

    import battlesight
    from tests.helpers import MINIMAL, write_scene

    class Drawn(Ruleset):
        id = "drawn"
        table_mat = "city"
        proxy_figures = True

    monkeypatch.setitem(REGISTRY, "drawn", Drawn)
    world = battlesight.load(write_scene(tmp_path, MINIMAL)).world  # a wall and a ruin
    assert [auto_mat(world, sid) for sid in SYSTEMS] == \
        [get_ruleset(sid).table_mat for sid in SYSTEMS]
    assert auto_mat(world, "wh40k6") == "city" and auto_mat(world, "wmh2") == "grass"
    assert auto_mat(world, "drawn") == "city"
    plain = world.models["boy"]  # no profile: the plain cylinder
    assert display_figure(plain, "wh40k6") is None
    figure = display_figure(plain, "drawn")
    assert figure is not None and len(figure.faces) > len(plain.volume.mesh.faces)
