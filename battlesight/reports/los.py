"""The `los` report: one JSON-ready entry per (observer, target) pair, the plain ray cast beside
the ruleset's verdict, from its one judgement a chunk of pairs at a time
(`Battlefield.judge_chunks`). `los --from`, `los --all`, the bench and the one-verdict tests
read the same entries."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from battlesight.api import Battlefield
from battlesight.geometry.world import World
from battlesight.rulesets.core.profiles import profile_label
from battlesight.rulesets.core.verdict import Verdict
from battlesight.scenes.model import Scene
from battlesight.scenes.output import to_json

from .two_processes import in_two_processes, lines_in_two_processes


def los_reports(scene: Scene, world: World, pairs: list[tuple[str, str]],
                readings: Mapping[str, str] | None = None, every: bool = False,
                budget: int | None = None) -> list[dict]:
    """One JSON-ready report per (observer, target) pair from the ruleset's one judgement
    (`Battlefield.judge_chunks`): the plain ray cast from the eye at the whole target
    (visible, visible_fraction, blockers, through, rays, samples: geometry, nothing skipped),
    base distances (the system's own first), and the rule's verdict under `verdict`
    (visible by the rule, seen_share that counts, geometric_share, cover, reason, rule,
    modifiers), judged under `readings`. every: add `readings` to each report, the verdicts
    another reading of an ambiguous rule would change (`Battlefield.judge_readings_chunks`).
    Many pairs are judged in two processes, half each (`in_two_processes`: the pairs are
    independent, the reports the same), each half in chunks the memory `budget` sets."""
    field = Battlefield(scene, world)
    return in_two_processes(
        lambda part: [r for chunk in _report_chunks(field, part, readings, every, budget)
                      for r in chunk], pairs)


def los_json_lines(scene: Scene, world: World, pairs: list[tuple[str, str]],
                   readings: Mapping[str, str] | None = None, every: bool = False,
                   budget: int | None = None) -> Iterator[str]:
    """The reports of `los_reports`, each as one line of JSON text, as they are judged: a
    chunk's reports are encoded and let go before the next chunk is judged, and a second
    process's half comes back through a file (`lines_in_two_processes`), so memory stays
    bounded however many pairs there are (`los --all --json`)."""
    field = Battlefield(scene, world)
    return lines_in_two_processes(lambda part: json_lines(field, part, readings, every, budget),
                                  pairs)


def json_lines(field: Battlefield, pairs: list[tuple[str, str]],
               readings: Mapping[str, str] | None = None, every: bool = False,
               budget: int | None = None) -> Iterator[str]:
    """`los_json_lines` of these pairs in this process (a Dask task's work: `los_dask`)."""
    for chunk in _report_chunks(field, pairs, readings, every, budget):
        yield from (to_json(r, indent=None) for r in chunk)


def los_cells(scene: Scene, world: World, pairs: list[tuple[str, str]],
              readings: Mapping[str, str] | None = None, every: bool = False,
              budget: int | None = None) -> list[dict]:
    """Per pair only what the unit table of `los --all` prints (`unit_matrix.cell_facts` of
    the verdict, and of each other reading's verdict that differs, under `readings`), from
    the same reports as `los_reports`: a few fields a pair kept, not the whole report."""
    from battlesight.rulesets.core.unit_matrix import cell_facts  # the unit table's only

    field = Battlefield(scene, world)

    def cells(part: list[tuple[str, str]]) -> list[dict]:
        out = []
        for chunk in _report_chunks(field, part, readings, every, budget):
            for r in chunk:
                entry = {"observer": r["observer"], "target": r["target"],
                         "verdict": cell_facts(r["verdict"])}
                if every:
                    entry["readings"] = [{**e, "verdict": cell_facts(e["verdict"])}
                                         for e in r["readings"]]
                out.append(entry)
        return out

    return in_two_processes(cells, pairs)


def _report_chunks(field: Battlefield, pairs: list[tuple[str, str]],
                   readings: Mapping[str, str] | None, every: bool, budget: int | None
                   ) -> Iterator[list[dict]]:
    """`los_reports` of these pairs in one process, a chunk of pairs at a time."""
    labels = {m.id: profile_label(field.scene, m) for m in field.scene.models}
    if not every:
        for verdicts in field.judge_chunks(list(pairs), readings=readings, budget=budget):
            yield [report(field, v, labels) for v in verdicts]
        return
    for verdicts, others in field.judge_readings_chunks(list(pairs), readings=readings,
                                                        budget=budget):
        out = []
        for verdict, changed in zip(verdicts, others, strict=True):
            data = report(field, verdict, labels)
            data["readings"] = [{**entry, "verdict": {"system": field.scene.ruleset,
                                                      **entry["verdict"].to_dict()}}
                                for entry in changed]
            out.append(data)
        yield out


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
