"""A battlefield on a stage plus what is shown over it: the state both the window and the
offscreen renders drive (camera, selected model, sight lines, samples, ruler, heatmap, texts,
the figures panel and the outline of a terrain piece selected in edit mode).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from panda3d.core import NodePath

from . import lighting, matrix_view, move_overlays, overlays, palette
from .cameras import CameraPose, Orbit, parse_view, preset_orbit, view_pose, world_orbit
from .rulings import Judge, SightLine, drawn_sights, sight_lines
from .scenegraph import SceneGraph, build_scene_graph, draw_models, draw_terrain, ring_node
from .stage import ScreenLabel, Stage

#: In a model's-eye view, sight lines start this far (inches) from the eye.
EYE_VIEW_CLEARANCE = 6.0

class SceneView:
    """World + scene drawn on a Stage, with overlays; no window, no input."""

    def __init__(self, world, scene=None, width: int = 1280, height: int = 720,
                 look: lighting.Look = lighting.FLAT):
        self.world, self.scene = world, scene
        self.look = look  # lit (shader pipe) or flat (fixed function), mat, army colours
        self.stage = Stage(width, height)
        self.judge: Judge | None = None  # the scene's ruleset's one sight judgement
        self.graph: SceneGraph | None = None
        self.orbit: Orbit | None = preset_orbit("iso", world.table, self.stage.view_aspect)
        self.view_name = "iso"
        self.show_labels = False
        self.show_legend = True
        self.observer: str | None = None
        self.lines: list[SightLine] = []  # every target model's verdict
        self.sight_per_model = False  # a line per target model, not per unit (eye views do)
        self.target: str | None = None
        self.ruler: tuple[np.ndarray, np.ndarray, float, str] | None = None
        self.heatmap: np.ndarray | None = None
        self.heatmap_title = "Heatmap"
        self.heatmap_notes: list[str] = []  # under the colour key: what the field is
        self.info: list[str] = []  # lines of the info panel (bottom left)
        self.figures: list[str] = []  # the figures panel (top left): title, then lines
        self.highlight: tuple[np.ndarray, tuple[float, ...]] | None = None  # outline, heights
        self.legend_box: tuple[float, float, float, float] | None = None  # x, y, w, h pixels
        self.help: list[str] = []  # lines of the help panel (top right)
        self.matrix: tuple[list[str], dict] | None = None  # units, cells (`unit_matrix`)
        self.matrix_lines: list = []  # the half lines drawn for it (`matrix_view.line_halves`)
        self.drag_path = None  # a model drag in progress (`model_drag.DragPath`)
        self._sight_drawn: tuple | None = None  # (key, node, labels, lines) of the lines drawn
        self.rings: list[move_overlays.RangeRing] = []  # the selected unit's range rings
        self.hud = self.stage.overlay.attach_new_node("hud")
        self.build()

    # ---- building -----------------------------------------------------------------------

    def build(self) -> None:
        """(Re)build the battlefield nodes from the world, keeping what is shown over it."""
        if self.graph is not None:
            self.graph.root.remove_node()
        self.graph = build_scene_graph(self.world, self.scene, self.look)
        self.graph.root.reparent_to(self.stage.root)
        if self.look.shaded:
            self.stage.light(self.graph.root, self.world)
        self._follow_world()

    def update_world(self, world, scene=None, terrain: Iterable[str] = (),
                     models: Iterable[str] = (), redraw: bool = True) -> None:
        """Show an edited world, rebuilding only the nodes of the named terrain pieces and
        models (each removed, then drawn again when it is still in the world); sight lines,
        overlays and the camera follow (redraw False: the caller refreshes the overlays, the
        camera stays)."""
        graph = self.graph
        self.world, self.scene = world, scene
        terrain, models = set(terrain), set(models)
        for piece_id in terrain:
            node = graph.terrain.pop(piece_id, None)
            if node is not None:
                node.remove_node()
        for model_id in models:
            for nodes in (graph.models, graph.rings, graph.xrays):
                node = nodes.pop(model_id, None)
                if node is not None:
                    node.remove_node()
        draw_terrain(graph.root, [e for k, e in world.terrain.items() if k in terrain], graph,
                     world, scene)
        draw_models(graph.root, [m for k, m in world.models.items() if k in models], graph,
                    scene)
        self._follow_world(redraw)

    def offset_nodes(self, terrain: dict[str, tuple[float, float]],
                     models: dict[str, tuple[float, ...]]) -> None:
        """Draw terrain pieces and models shifted by (dx, dy) (models: (dx, dy[, dz])) from
        where the world has them (a drag preview; `update_world` draws them where they are)."""
        for piece_id, (dx, dy) in terrain.items():
            node = self.graph.terrain.get(piece_id)
            if node is not None:
                node.set_pos(float(dx), float(dy), 0.0)
        for model_id, shift in models.items():
            node, ring = self.graph.models.get(model_id), self.graph.rings.get(model_id)
            if node is None or model_id not in self.world.models:
                continue
            dx, dy, dz = (*map(float, shift), 0.0)[:3]
            node.set_pos(dx, dy, dz)
            x, y, z = map(float, self.world.models[model_id].position)
            if ring is not None:
                ring.set_pos(x + dx, y + dy, z + dz)

    def _follow_world(self, redraw: bool = True) -> None:
        """After the world changed: the judgement (the same board after models moved on it),
        sight lines, camera and overlays."""
        if self.judge is not None and self.judge.judges(self.scene, self.world):
            self.judge.forget()
        else:
            self.judge = Judge(self.scene, self.world)
        for name in (self.observer, self.target):
            if name is not None and name not in self.world.models:
                self.observer = self.target = None
                self.lines = []
        if self.observer is not None:
            self.lines = sight_lines(self.world, self.scene, self.observer, judge=self.judge)
        if redraw:
            self.apply_view()
            self.refresh()

    def replace_world(self, world, scene=None) -> None:
        """Show another world (a reloaded scene); selection kept when its models remain."""
        self.world, self.scene = world, scene
        self.build()

    # ---- camera -------------------------------------------------------------------------

    def set_view(self, view: str) -> None:
        """A preset or eye view by name (see `cameras.parse_view`); KeyError for a bad model."""
        kind, _, _ = parse_view(view)
        aspects = (self.stage.view_aspect, self.stage.aspect)
        self.orbit = None if kind == "eye" else world_orbit(self.world, kind, *aspects)
        pose = view_pose(self.world, view, *aspects) if self.orbit is None else self.orbit.pose()
        self.view_name = view
        eye = self.eye_model()
        self.set_pose(pose)
        if self.eye_model() != eye and (self.show_labels or self.lines):
            self.refresh()  # which labels are hidden markers depends on the eye

    def set_orbit(self, orbit: Orbit) -> None:
        self.orbit = orbit
        self.view_name = "orbit"
        self.set_pose(orbit.pose())

    def set_pose(self, pose: CameraPose) -> None:
        """Put the camera at pose. A model's eye view (pose.hide) shows what that eye sees:
        no x-ray silhouettes through terrain (its unseen targets are marked at the edge)."""
        for xray in self.graph.xrays.values():
            if pose.hide is None:
                xray.show()
            else:
                xray.hide()
        hide = self.graph.models.get(pose.hide) if pose.hide else None
        self.stage.hide_node(hide)
        if pose.hide and pose.hide in self.graph.rings:
            self.graph.rings[pose.hide].hide()
        self.stage.set_pose(pose)

    def apply_view(self) -> None:
        """Re-apply the current view (after a rebuild or resize)."""
        if self.orbit is not None and self.view_name == "orbit":
            self.set_pose(self.orbit.pose())
            return
        try:
            self.set_view(self.view_name)
        except (KeyError, ValueError):
            self.set_view("iso")

    def resize(self, width: int, height: int) -> None:
        self.stage.resize(width, height)
        self.refresh()

    # ---- what is shown ------------------------------------------------------------------

    def show_sight_lines(self, observer: str | None, target: str | None = None) -> None:
        """Sight lines from observer to every enemy (None clears), samples on target."""
        if observer is not None and observer not in self.world.models:
            raise KeyError(observer)
        self.observer = observer
        self.lines = [] if observer is None else sight_lines(
            self.world, self.scene, observer, judge=self.judge)
        self.target = target if observer is not None else None
        if target is not None and target not in self.world.models:
            raise KeyError(target)
        self.refresh()

    def line_to(self, target: str) -> SightLine | None:
        return next((line for line in self.lines if line.target == target), None)

    def set_target(self, target: str | None) -> None:
        """Show the sample points of the line from the observer to target."""
        self.target = target
        self.refresh()

    def set_ruler(self, a, b, gap: float = 0.0, note: str = "") -> None:
        """A ruler from a to b (None clears it); gap is taken off the lengths."""
        self.ruler = None if a is None else (np.asarray(a, float), np.asarray(b, float), gap, note)
        self.refresh()

    def set_heatmap(self, field: np.ndarray | None, title: str = "Heatmap",
                    notes: list[str] = ()) -> None:
        """An (ny, nx) field in [0, 1] over the table (row 0 along y = 0), or None; title
        heads its colour key, notes (which field, from where) follow it."""
        self.heatmap = None if field is None else np.asarray(field, dtype=np.float64)
        self.heatmap_title = title
        self.heatmap_notes = list(notes)
        self.refresh()

    def refresh(self) -> None:
        """Redraw every overlay from the current state."""
        graph = self.graph
        graph.overlays.node().remove_all_children()
        graph.decals.node().remove_all_children()
        self.hud.node().remove_all_children()
        labels: list[ScreenLabel] = []
        blocks: list[tuple[float, float, float, float]] = []  # panels labels keep clear of
        inset = 0.0
        self.legend_box = None
        lighting.ground_shadows(graph.ground, self.heatmap is None)
        if self.heatmap is not None:
            overlays.draw_heatmap(graph.decals, self.heatmap, self.world.table)
            _, box = overlays.heat_legend(self.hud, self.heatmap_title, self.stage.width,
                                          self.stage.height, self.stage.text_px * 0.9,
                                          self.heatmap_notes)
            blocks.append(box)
        if self.highlight is not None:
            overlays.draw_outline(graph.overlays, *self.highlight)
        if self.observer is not None:
            ring = ring_node(self.world.models[self.observer], palette.SELECTED, grow=0.1,
                             width=0.12)
            ring.reparent_to(graph.overlays)
            labels += self._sight_lines_drawn(graph.overlays)
            line = self.line_to(self.target) if self.target else None
            if line is not None:
                overlays.draw_samples(graph.overlays, line.visibility)
            if self.show_legend:
                _, (width, height) = overlays.sight_legend(
                    self.hud, self.observer, self.lines, size=self.stage.text_px)
                self.legend_box = (12.0, 12.0, width, height)
                blocks.append((12.0, 12.0, 12.0 + width, 12.0 + height))
                inset = width + 24
        if self.matrix is not None:
            inset = max(inset, self._draw_matrix(labels, blocks))
        if self.ruler is not None:
            labels += overlays.draw_ruler(graph.overlays, *self.ruler)
        if self.rings:
            labels += move_overlays.draw_range_rings(graph.overlays, self.rings)
        if self.drag_path is not None:
            labels += move_overlays.draw_drag_path(graph.overlays, self.drag_path)
        if self.show_labels:
            labels += self.model_labels({lab.model for lab in labels if lab.model})
        self.stage.label_blocks = blocks
        self.stage.model_points = np.array(
            [overlays.label_point(m) for m in self.world.models.values()]).reshape(-1, 3)
        self.stage.set_labels(self.eye_view_labels(labels))
        self._panels()
        widest = 0.62 if self.matrix is not None else 0.45
        inset = inset if inset < widest * self.stage.width else 0.0
        if inset != self.stage.inset_left:
            self.stage.inset_left = inset
            self.apply_view()

    def _sight_lines_drawn(self, parent: NodePath) -> list:
        """The sight lines' tubes under parent and their labels, drawn once per set of lines
        and view (a drag redraws the overlays every pointer move; the lines stay)."""
        from_eye = self.view_name.startswith(f"eye:{self.observer}")
        key = (id(self.lines), from_eye, self.sight_per_model)
        if self._sight_drawn is None or self._sight_drawn[0] != key:
            node = NodePath("sight-lines")
            # through the observer's eye, a line per model: each unseen one marked at the edge
            sights = drawn_sights(self.scene, self.lines, self.sight_per_model or from_eye)
            labels = overlays.draw_sight_lines(node, self.world, sights,
                                               clear_of_eye=EYE_VIEW_CLEARANCE if from_eye
                                               else 0.0)
            self._sight_drawn = (key, node, labels, self.lines)  # the lines kept: id stays
        _, node, labels, _ = self._sight_drawn
        node.reparent_to(parent)
        return list(labels)

    def _draw_matrix(self, labels: list[ScreenLabel], blocks: list) -> float:
        """Who sees whom: the unit lines over the table and the grid at the left; returns
        the pixels the grid keeps at the left."""
        units, cells = self.matrix
        centres = matrix_view.unit_centres(self.world, self.scene)
        halves = matrix_view.line_halves(centres, matrix_view.unit_players(self.scene), units,
                                         cells)
        self.matrix_lines = halves
        labels += matrix_view.draw_matrix_lines(self.graph.overlays, halves, centres)
        box = matrix_view.draw_grid(self.hud, units, cells, 12.0, 12.0, self.stage.text_px * 0.9)
        blocks.append(box)
        return box[2] + 12.0

    def model_labels(self, skip: set[str] = frozenset()) -> list[ScreenLabel]:
        """A label over every model (`show_labels` True or "model"), or over every unit
        ("unit": at its models' centre, with how many there are); models in `skip` (already
        named by a sight line's label) get none, nor units all of whose models are skipped."""
        if self.show_labels == "unit":
            units: dict[str, list] = {}
            for model in self.world.models.values():
                units.setdefault(model.unit or model.id, []).append(model)
            out = []
            for unit, models in units.items():
                if all(m.id in skip for m in models):
                    continue
                xy = np.mean([m.position[:2] for m in models], axis=0)
                top = max(float(m.mesh.bounds[1][2]) for m in models) + 0.3
                text = unit if len(models) == 1 else f"{unit} ({len(models)})"
                out.append(ScreenLabel(np.array([*xy, top]), text, palette.TEXT, kind="unit",
                                       model=models[0].id if len(models) == 1 else None))
            return out
        return [ScreenLabel(np.array([*m.position[:2], m.mesh.bounds[1][2] + 0.3]), m.id,
                            palette.TEXT, kind="model", model=m.id)
                for m in self.world.models.values() if m.id not in skip]

    def eye_model(self) -> str | None:
        """The model whose eye the camera is at (None for other views)."""
        pose = self.stage.pose
        return pose.hide if pose is not None and pose.hide in self.world.models else None

    def eye_view_labels(self, labels: list[ScreenLabel]) -> list[ScreenLabel]:
        """In a model's eye view, the labels of models that eye does not see at all (plain
        ray-cast share 0, the visibility its sight lines are drawn from) become "hidden"
        markers at the frame's edge; the eye's own model gets no label. Other views: as given."""
        eye = self.eye_model()
        if eye is None:
            return labels
        named = sorted({lab.model for lab in labels if lab.model and lab.model != eye})
        share = {v.target: v.geometric_share
                 for v in self.judge([(eye, m) for m in named])} if named else {}
        out = []
        for lab in labels:
            if lab.model == eye:
                continue
            if lab.model in share and share[lab.model] <= 0.0:
                text = lab.text if lab.kind == "sight" else f"{lab.text} hidden"
                lab = ScreenLabel(lab.point, text, palette.darker(lab.colour, 0.8),
                                  kind="hidden", model=lab.model)
            out.append(lab)
        return out

    def _panels(self) -> None:
        size = self.stage.text_px * 0.9
        if self.figures:
            top = 12.0 if self.legend_box is None else sum(self.legend_box[1::2]) + 12.0
            overlays.draw_legend(self.hud, self.figures[0],
                                 [(None, t) for t in self.figures[1:]], x=12, y=top, size=size)
        if self.info:
            height = size * 1.45 * len(self.info) + size * 0.8
            overlays.draw_legend(self.hud, self.info[0], [(None, t) for t in self.info[1:]],
                                 x=12, y=self.stage.height - height - 12, size=size)
        if self.help:
            width = max(overlays.text_width(t, size) for t in self.help) + 3.2 * size
            overlays.draw_legend(self.hud, self.help[0], [(None, t) for t in self.help[1:]],
                                 x=self.stage.width - width - 12, y=12, size=size)

    # ---- geometry helpers ---------------------------------------------------------------

    def model_screen_points(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Model ids, the pixel of each model's centre and whether it is in the image."""
        ids = list(self.world.models)
        if not ids:
            return [], np.zeros((0, 2)), np.zeros(0, dtype=bool)
        centres = np.array([self.world.models[i].mesh.bounds.mean(axis=0) for i in ids])
        pixels, ok = self.stage.project(centres)
        return ids, pixels, ok

    def ground_point(self, px: float, py: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the table plane z = 0 (None above the horizon)."""
        origin, direction = self.stage.ray(px, py)
        if direction[2] >= -1e-9:
            return None
        t = -origin[2] / direction[2]
        return origin + t * direction

    def table_point(self, px: float, py: float) -> tuple[float, float] | None:
        """The table point (x, y) under a pixel: the ray from the camera through it meets the
        plane z = 0 there (None above the horizon)."""
        point = self.ground_point(px, py)
        return None if point is None else (float(point[0]), float(point[1]))

    def node(self, name: str) -> NodePath:
        return self.stage.root.find(f"**/{name}")
