"""The `los` report: one JSON-ready entry per (observer, target) pair, the plain ray cast beside
the ruleset's verdict, from one call of its judgement (`Battlefield.judge_many`). `los --from`,
`los --all`, the bench and the one-verdict tests read the same entries."""

from __future__ import annotations

from collections.abc import Mapping

from battlesight.api import Battlefield
from battlesight.geometry.world import World
from battlesight.rulesets.core.profiles import profile_label
from battlesight.rulesets.core.verdict import Verdict
from battlesight.scenes.model import Scene
from battlesight.scenes.output import to_json

from .two_processes import in_two_processes


def los_reports(scene: Scene, world: World, pairs: list[tuple[str, str]],
                readings: Mapping[str, str] | None = None, every: bool = False) -> list[dict]:
    """One JSON-ready report per (observer, target) pair from one call of the ruleset's
    judgement (`Battlefield.judge_many`): the plain ray cast from the eye at the whole target
    (visible, visible_fraction, blockers, through, rays, samples: geometry, nothing skipped),
    base distances (the system's own first), and the rule's verdict under `verdict`
    (visible by the rule, seen_share that counts, geometric_share, cover, reason, rule,
    modifiers), judged under `readings`. every: add `readings` to each report, the verdicts
    another reading of an ambiguous rule would change (`Battlefield.judge_readings`).
    Many pairs are judged in two processes, half each (`in_two_processes`: the pairs are
    independent, the reports the same)."""
    field = Battlefield(scene, world)
    return in_two_processes(lambda part: _reports(field, part, readings, every), pairs)


def los_json(scene: Scene, world: World, pairs: list[tuple[str, str]],
             readings: Mapping[str, str] | None = None, every: bool = False) -> list[str]:
    """The reports of `los_reports`, each as one line of JSON text, encoded in the process
    that judged it (a second process sends its half as text: less to pickle, and both halves
    encode at once)."""
    field = Battlefield(scene, world)
    return in_two_processes(
        lambda part: [to_json(r, indent=None) for r in _reports(field, part, readings, every)],
        pairs)


def _reports(field: Battlefield, pairs: list[tuple[str, str]],
             readings: Mapping[str, str] | None, every: bool) -> list[dict]:
    """`los_reports` of these pairs, in one process."""
    labels = {m.id: profile_label(field.scene, m) for m in field.scene.models}
    if not every:
        return [report(field, v, labels)
                for v in field.judge_many(list(pairs), readings=readings)]
    verdicts, others = field.judge_readings(list(pairs), readings=readings)
    out = []
    for verdict, changed in zip(verdicts, others, strict=True):
        data = report(field, verdict, labels)
        data["readings"] = [{**entry, "verdict": {"system": field.scene.ruleset,
                                                  **entry["verdict"].to_dict()}}
                            for entry in changed]
        out.append(data)
    return out


def report(field: Battlefield, verdict: Verdict, labels: Mapping[str, str] | None = None
           ) -> dict:
    """The plain sight summary, the base-edge distances (the system's measure, plan, 3D) and
    the verdict; labels: each model's profile label (`profile_label`), worked out once for
    many reports."""
    data = verdict.visibility.to_dict()
    a, b, board = verdict.observer, verdict.target, field.board
    data["distance"] = round(field.ruleset.distance(board, a, b), 3)
    data["distance_plan"] = round(board.gap(a, b, "plan"), 3)
    data["distance_3d"] = round(board.gap(a, b, "3d"), 3)
    scene = field.scene
    if labels is None:
        labels = {m: profile_label(scene, scene.model(m)) for m in (a, b)}
    data["profiles"] = {"observer": labels[a], "target": labels[b]}
    data["verdict"] = {"system": field.scene.ruleset, **verdict.to_dict()}
    return data
