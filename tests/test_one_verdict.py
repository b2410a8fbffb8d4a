"""One sight verdict everywhere: for every ordered pair of models of every bundled example (its
units thinned to two models each: every unit and piece stays, a tenth of the pairs), the
picture (`render --los`), the `los` command, the `demo` table and the window's selection all
give the ruleset's one answer (`Ruleset.judge`); `render --los --json` prints the lines drawn;
`los --json` follows los.schema.json.
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("panda3d")

from battlesight.rulesets.core.board import Board  # noqa: E402
from battlesight.rulesets.core.ruleset import get_ruleset  # noqa: E402
from battlesight.viewer.interact import Controller  # noqa: E402
from battlesight.viewer.render import OffscreenRenderer, RenderSettings, apply_settings  # noqa: E402

from battlesight.cli.commands.demo import summary  # noqa: E402
from battlesight.cli.common import load  # noqa: E402
from battlesight.cli.main import main  # noqa: E402
from battlesight.reports.los import los_reports  # noqa: E402
from tests.helpers import EXAMPLE_FILES, thinned_example  # noqa: E402
from tests.schema_helpers import assert_valid, errors  # noqa: E402

#: one observer per system whose picture JSON is compared with `los --json`
OBSERVERS = {"demo.yaml": "sgt", "wh40k6_city_ruins.yaml": "sergeant",
             "wmh2_hills_forest.yaml": "stryker", "whfb6_village.yaml": "kn-1",
             "aos2_ruins_obstacles.yaml": "jud-1"}


def demo_counts(text: str) -> dict[str, tuple[int, int]]:
    """{model: (enemies seen, enemies)} from the `demo` table."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+player \d+\s+(\d+)/(\d+)\s", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_picture_los_demo_and_window_agree_on_every_pair(path):
    scene, world = thinned_example(path, per_unit=2)
    ids = [m.id for m in scene.models if m.id in world.models]
    player = {m.id: m.player for m in scene.models}
    # every ordered pair the picture, the window and the demo table show: observer -> enemy
    enemies = {a: [t for t in ids if player[t] != player[a]] for a in ids}
    pairs = [(a, t) for a in ids for t in enemies[a]]
    # (b) what `battlesight los --from A --json` builds for those pairs
    los = {p: r["verdict"] for p, r in zip(pairs, los_reports(scene, world, pairs),
                                          strict=True)}
    seen = {a: sum(los[(a, t)]["visible"] for t in enemies[a]) for a in ids}
    assert len({r["status"] for r in los.values()}) >= 2  # seen and hidden pairs both compared
    bad: list[str] = []
    with OffscreenRenderer(world, scene, 64, 64, "tiny") as renderer:
        controller = Controller(renderer.view)
        # the view's one judgement (what the picture and the window read) judges every enemy
        # pair in one batch; test_verdicts_do_not_depend_on_the_batch shows batching changes
        # no verdict
        renderer.view.judge(pairs)
        for a in ids:
            # (a) the picture: what `render --los A` sets up and draws
            apply_settings(renderer.view, RenderSettings(64, 64, "top", los=a))
            drawn = {line.target: line for line in renderer.view.lines}
            # (d) the window showing that picture: a click selecting A
            controller.select(a)
            clicked = {line.target: line for line in renderer.view.lines}
            assert set(drawn) == set(clicked) == set(enemies[a]), a
            for t in enemies[a]:
                ruling = los[(a, t)]
                for where, line in (("picture", drawn[t]), ("window", clicked[t])):
                    if (line.status, line.label) != (ruling["status"], ruling["label"]):
                        bad.append(f"{where} {a}->{t}: {line.label} / los {ruling['label']}")
            info = f"sees {seen[a]} of {len(enemies[a])} enemy models"
            if not any(info in text for text in renderer.view.info):
                bad.append(f"window info {a}: {renderer.view.info} / los {info}")
    counts = demo_counts(summary(scene, world))  # (c) the `demo` table
    for a in ids:
        if counts.get(a) != (seen[a], len(enemies[a])):
            bad.append(f"demo {a}: {counts.get(a)} / los {(seen[a], len(enemies[a]))}")
    assert bad == [], f"{len(bad)} disagreements:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("name", ["demo.yaml", "aos2_ruins_obstacles.yaml"])
def test_verdicts_do_not_depend_on_the_batch(name):
    """Judging one observer at a time (as `los --from A` and a click do) or every pair at once
    (as `demo` does) gives the same verdicts."""
    scene, world = load(str(next(p for p in EXAMPLE_FILES if p.name == name)))
    ruleset = get_ruleset(scene.ruleset)
    ids = [m.id for m in scene.models][:12]
    pairs = [(a, t) for a in ids for t in ids if a != t]
    together = ruleset.judge(Board(scene, world, ruleset), pairs)
    board = Board(scene, world, ruleset)
    alone = [v for a in ids for v in ruleset.judge(board, [p for p in pairs if p[0] == a])]
    assert [v.to_dict() for v in together] == [v.to_dict() for v in alone]


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_render_json_prints_the_lines_drawn_as_los_rules_them(path, tmp_path, capsys):
    observer = OBSERVERS[path.name]
    out = tmp_path / "los.png"
    assert main(["render", str(path), "--out", str(out), "--los", observer, "--json",
                 "--size", "96x64", "--renderer", "tiny", "--view", "top"]) == 0
    drawn = json.loads(capsys.readouterr().out)["lines"]
    assert out.is_file() and drawn
    assert main(["los", str(path), "--from", observer, "--json"]) == 0
    los = {r["target"]: r["verdict"] for r in json.loads(capsys.readouterr().out)}
    for line in drawn:
        assert set(line) == {"observer", "target", "status", "label", "seen_share",
                             "geometric_share", "rule"}
        ruling = los[line["target"]]
        assert line["observer"] == observer
        for key in ("status", "label", "seen_share", "geometric_share", "rule"):
            assert line[key] == ruling[key], (line["target"], key)


def test_stryker_does_not_see_sorscha_anywhere(tmp_path, capsys):
    """The issue's case: the Ironclad's base intervenes (wmh2 §5.1), in `los` and the picture;
    the `demo` table's count for stryker is checked against `los` on the thinned table by
    test_picture_los_demo_and_window_agree_on_every_pair (stryker and the ironclad are kept)."""
    path = next(p for p in EXAMPLE_FILES if p.name == "wmh2_hills_forest.yaml")
    assert main(["los", str(path), "--from", "stryker", "--to", "sorscha", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert verdict["visible"] is False and verdict["rule"] == "wmh2 §5.1"
    assert "ironclad" in verdict["reason"] and verdict["label"] == "not visible"
    assert main(["render", str(path), "--out", str(tmp_path / "s.png"), "--los", "stryker",
                 "--json", "--size", "96x64", "--renderer", "tiny"]) == 0
    drawn = {d["target"]: d for d in json.loads(capsys.readouterr().out)["lines"]}
    assert drawn["sorscha"]["status"] == "hidden" and drawn["sorscha"]["label"] == "not visible"
    assert main(["los", str(path), "--from", "stryker", "--json"]) == 0
    los = json.loads(capsys.readouterr().out)
    scene, _ = thinned_example(path, per_unit=2)
    assert {"stryker", "sorscha", "ironclad"} <= {m.id for m in scene.models}
    scene, world = load(str(path))
    enemies = [r for r in los if scene.model(r["target"]).player != scene.model("stryker").player]
    seen = sum(r["verdict"]["visible"] for r in enemies)
    assert seen == sum(d["status"] != "hidden" for d in drawn.values())


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_los_json_follows_its_schema(path, capsys):
    observer = OBSERVERS[path.name]
    assert main(["los", str(path), "--from", observer, "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert_valid("los", reports)
    assert_valid("los", reports[0])
    for r in reports:
        assert r["verdict"]["geometric_share"] == r["visible_fraction"]
        if not r["verdict"]["visible"]:
            assert r["verdict"]["seen_share"] == 0 and r["verdict"]["cover"] is None


def test_los_schema_refuses_a_verdict_without_its_shares(capsys):
    path = EXAMPLE_FILES[0]
    assert main(["los", str(path), "--from", OBSERVERS[path.name], "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert errors("los", report) == []
    del report["verdict"]["seen_share"]
    assert errors("los", report)


def test_every_system_names_its_modifiers_with_their_rule():
    """A cover modifier in each system's verdicts: 4+ save, +4 DEF, -1/-2 to hit, +1 save."""
    texts = {"wh40k6": re.compile(r"^\d\+ save$"), "wmh2": re.compile(r"^\+\d DEF$"),
             "whfb6": re.compile(r"^-[12] to hit$"), "aos2": re.compile(r"^\+1 save$")}
    found = {}
    for path in EXAMPLE_FILES:
        scene, world = load(str(path))
        ruleset = get_ruleset(scene.ruleset)
        board = Board(scene, world, ruleset)
        observer = "reaver-1" if scene.ruleset == "aos2" else OBSERVERS[path.name]
        pairs = [(observer, m.id) for m in scene.models
                 if m.player != scene.model(observer).player]
        for v in ruleset.judge(board, pairs):
            for m in v.modifiers:
                assert v.in_cover and m.rule.startswith(scene.ruleset + " §")
                assert texts[scene.ruleset].match(m.text), m.text
                found[scene.ruleset] = True
    assert set(found) >= {"wh40k6", "whfb6", "aos2"}
