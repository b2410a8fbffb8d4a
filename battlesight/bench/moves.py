"""The moves rows of `battlesight bench` (issue 23): what a player waits for when dragging a
model in the window, on the bench's generated table (100 models, 40 pieces):

- verdicts after a move: the model placed on the board (`Board.move`: the world's model scene
  rebuilt, never the terrain's) and its verdicts to every enemy judged again in one batch by
  the ruleset, through the view's `viewer.rulings.Judge` with its verdicts forgotten, as the
  window does after every move;
  against the issue's 50 ms budget (wall time, and this process's CPU time, which a queue of
  other work on a shared machine does not add to); and the window's whole release
  (`ModelDrag.place`: that, plus the model's nodes, sight lines and overlays drawn again) on
  an offscreen view;
- a drag frame: the move check of one pointer move (`MoveTrial.check`) for one model and for
  its whole unit, and the window's whole drag step (`Controller.drag`: the check plus the
  preview drawn) on an offscreen view.
"""

from __future__ import annotations

import time

import numpy as np

from battlesight.bench.timing import best_of

#: the issue's budget (issue 23), seconds
TARGETS = {"refresh_after_move": 0.050}


def moves_bench(seed: int = 1, models: int = 100, pieces: int = 40, repeat: int = 5) -> dict:
    """The moves figures (seconds) on a generated table; the first model of player 1 moves
    half an inch back and forth (each time to a place its verdicts were not judged at)."""
    from battlesight.rulesets.core.move_trial import MoveTrial, moved_to
    from battlesight.scenes.build import build_world
    from battlesight.scenes.generate import generate_table
    from battlesight.viewer.rulings import Judge, enemies_of

    scene = generate_table(seed, pieces=pieces, models=models)
    world = build_world(scene)
    mover = next(m.id for m in scene.models if m.player == 1 and m.id in world.models)
    enemies = enemies_of(world, mover)
    judge = Judge(scene, world)
    board = judge.board
    start = tuple(map(float, world.models[mover].position[:2]))
    steps = iter(range(1_000_000))

    def refresh() -> None:
        dy = 0.5 + 0.001 * next(steps)  # a new place each time: nothing judged before
        board.move(mover, (start[0], start[1] + dy))
        judge.forget()  # what the window does after a move (`SceneView._follow_world`)
        judge([(mover, t) for t in enemies])

    refresh()  # the ruleset's modules and tables, as the window has them by then
    refresh_s = best_of(refresh, repeat)
    refresh_cpu_s = best_of(refresh, repeat, clock=time.process_time)
    board.move(mover, start)
    trial = MoveTrial(scene, board.unit_of(mover))
    one = moved_to(board, mover, (start[0], start[1] + 2.0))
    unit = moved_to(board, mover, (start[0], start[1] + 2.0), whole_unit=True)
    check_one_s = best_of(lambda: trial.check(one), repeat)
    check_unit_s = best_of(lambda: trial.check(unit), repeat)
    window = _window_figures(scene, world, mover, repeat)
    return {"models": len(world.models), "enemies": len(enemies), "unit_models": len(unit),
            "refresh_after_move_s": refresh_s, "refresh_after_move_cpu_s": refresh_cpu_s,
            "drag_check_model_s": check_one_s,
            "drag_check_unit_s": check_unit_s, **window, "targets": TARGETS}


def _window_figures(scene, world, mover: str, repeat: int) -> dict:
    """The window's own release and drag step on an offscreen (software) view, top view."""
    from battlesight.viewer.interact import Controller
    from battlesight.viewer.render import OffscreenRenderer

    with OffscreenRenderer(world, scene, 960, 640, backend="tiny") as renderer:
        controller = Controller(renderer.view)
        renderer.view.set_view("top")
        controller.select(mover)
        x, y, z = map(float, world.models[mover].position)

        def pixel(dy: float) -> tuple[float, float]:
            pix, _ = renderer.view.stage.project(np.array([[x, y + dy, z]]))
            return float(pix[0, 0]), float(pix[0, 1])

        controller.press(*pixel(0.0))
        controller.drag(*pixel(1.0))  # the unit's move check made on the first pointer move
        frames = iter(range(1_000_000))
        drag_s = best_of(lambda: controller.drag(*pixel(1.0 + 0.01 * next(frames))), repeat)
        controller.moves.cancel()
        places = iter(range(1_000_000))

        def place() -> None:
            controller.moves.place({mover: ((x, y + 0.5 + 0.001 * next(places)), None, None)})

        place_s = best_of(place, repeat)
    return {"window_drag_frame_s": drag_s, "window_release_s": place_s}


def format_moves_bench(figures: dict) -> str:
    """The rows as text, the budget beside the refresh."""
    f, budget = figures, figures["targets"]["refresh_after_move"]
    ms = 1000.0
    return "\n".join([
        f"moves ({f['models']} models, the mover against {f['enemies']} enemies; its unit "
        f"{f['unit_models']} models):",
        f"  verdicts after a move (place + batch judge)  {f['refresh_after_move_s'] * ms:8.1f} ms"
        f"   budget {budget * ms:.0f} ms (CPU time {f['refresh_after_move_cpu_s'] * ms:.1f} ms)",
        f"  window release (that + redraw)               {f['window_release_s'] * ms:8.1f} ms",
        f"  drag frame: move check, one model            {f['drag_check_model_s'] * ms:8.1f} ms",
        f"  drag frame: move check, whole unit           {f['drag_check_unit_s'] * ms:8.1f} ms",
        f"  drag frame: window step (check + preview)    {f['window_drag_frame_s'] * ms:8.1f} ms",
    ])
