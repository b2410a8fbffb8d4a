"""The stage: a 3D root with lights and a camera, a 2D overlay in pixels, screen-space labels.

A Stage does not know where it is drawn: `attach(output)` adds its display regions to an
offscreen buffer or to a window, so the window and the offscreen renders share one scene graph.
The 2D overlay has its origin at the top-left pixel, x to the right and -z downwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import (
    AmbientLight,
    Camera,
    DirectionalLight,
    LPoint2f,
    LPoint3f,
    LVector3f,
    NodePath,
    OrthographicLens,
    PerspectiveLens,
    TextNode,
)

from . import palette
from .cameras import CameraPose


@dataclass
class ScreenLabel:
    """Text laid out next to the projection of a world point (`labels.layout`). kind: model,
    unit, sight, ruler or hidden (a model its eye view does not see: a marker at the frame's
    bottom edge); model: the model id it names, if any."""

    point: np.ndarray
    text: str
    colour: palette.Colour = palette.TEXT
    offset: tuple[float, float] = (8.0, -8.0)  # pixels right, up (kept for callers)
    kind: str = "label"
    model: str | None = None


@dataclass
class DrawnLabel:
    """A label as drawn: its text, pixel box (x0, y0, x1, y1; y down) and anchor pixel."""

    label: ScreenLabel
    box: tuple[float, float, float, float]
    anchor: tuple[float, float]
    leader: bool

    def to_dict(self) -> dict:
        """What `render --json` prints of it."""
        return {"text": self.label.text, "kind": self.label.kind, "model": self.label.model,
                "box": [round(v, 1) for v in self.box],
                "anchor": [round(v, 1) for v in self.anchor], "leader": self.leader}


class Stage:
    """Scene root, overlay root, camera and lights for an image of width x height pixels."""

    def __init__(self, width: int, height: int):
        self.width, self.height = int(width), int(height)
        self.root = NodePath("battlesight-3d")
        self.overlay = NodePath("battlesight-2d")
        self.overlay.set_depth_test(False)
        self.overlay.set_depth_write(False)
        self.overlay.set_light_off(1)
        self.overlay.set_material_off(1)
        self.overlay.set_bin("unsorted", 0, 1)  # draw in scene-graph order: panels, then text
        self.perspective = PerspectiveLens()
        self.orthographic = OrthographicLens()
        self.lens = self.perspective
        self.camera = self.root.attach_new_node(Camera("camera", self.lens))
        self.lens2d = OrthographicLens()
        self.lens2d.set_near_far(-1000.0, 1000.0)
        self.camera2d = self.overlay.attach_new_node(Camera("camera2d", self.lens2d))
        self.labels_root = self.overlay.attach_new_node("screen-labels")
        self.labels: list[ScreenLabel] = []
        self.drawn_labels: list[DrawnLabel] = []
        self.label_blocks: list[tuple[float, float, float, float]] = []  # legend panels
        #: (m, 3) the label point of every model: each label is laid out nearer its own
        #: model's than any other (`labels.layout`)
        self.model_points = np.zeros((0, 3))
        self.pose: CameraPose | None = None
        self.inset_left = 0.0  # pixels at the left kept for a legend; the view centres right
        self.hidden: NodePath | None = None
        self._regions: list = []
        self.key_light: NodePath | None = None  # the lit look's shadow caster (`light`)
        self._add_lights()
        self.resize(width, height)

    def _add_lights(self) -> None:
        ambient = AmbientLight("ambient")
        ambient.set_color((0.42, 0.42, 0.44, 1.0))
        sun = DirectionalLight("sun")
        sun.set_color((0.78, 0.76, 0.70, 1.0))
        sun_np = self.root.attach_new_node(sun)
        sun_np.set_hpr(-35.0, -55.0, 0.0)
        self.root.set_light(self.root.attach_new_node(ambient))
        self.root.set_light(sun_np)

    def light(self, battlefield: NodePath, world) -> None:
        """The lit look (`lighting`): a shadow-casting key light over world's table and its
        tallest piece, on battlefield only; the camera leaves shadow-only nodes out."""
        from . import lighting

        if self.key_light is not None:
            self.key_light.remove_node()
        meshes = [e.geometry.solid for e in world.terrain.values()]
        meshes += [e.geometry.area for e in world.terrain.values()]
        top = max([float(m.bounds[1][2]) for m in meshes if m is not None and len(m.faces)]
                  + [float(m.mesh.bounds[1][2]) for m in world.models.values()] + [1.0])
        self.key_light = lighting.light_battlefield(
            self.root, battlefield, world.table, top,
            size=lighting.shadow_map_for(self.width, self.height))
        self.camera.node().set_camera_mask(lighting.VIEW_MASK)

    def resize(self, width: int, height: int) -> None:
        """Match the lenses to a new image size."""
        self.width, self.height = int(width), int(height)
        self.perspective.set_aspect_ratio(self.width / self.height)
        self.lens2d.set_film_size(self.width, self.height)
        self.lens2d.set_film_offset(self.width / 2.0, -self.height / 2.0)
        if self.pose is not None:
            self.set_pose(self.pose)

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def text_px(self) -> float:
        """Text height for this image size: 11 px on small images up to 18 px on full HD."""
        return float(np.clip(self.height / 56.0, 11.0, 18.0))

    @property
    def view_aspect(self) -> float:
        """Aspect of the part of the image right of the inset (what presets fit into)."""
        return max(self.width - self.inset_left, 1.0) / self.height

    def attach(self, output, clear_colour: palette.Colour = palette.BACKGROUND) -> None:
        """Draw this stage into a GraphicsOutput (3D region, then the 2D overlay on top)."""
        output.set_clear_color_active(True)
        output.set_clear_color(clear_colour)
        region = output.make_display_region()
        region.set_camera(self.camera)
        region.set_sort(0)
        region2d = output.make_display_region()
        region2d.set_camera(self.camera2d)
        region2d.set_sort(10)
        region2d.set_clear_depth_active(True)
        self._regions += [region, region2d]

    def detach(self, output) -> None:
        """Remove this stage's display regions from output."""
        for region in self._regions:
            output.remove_display_region(region)
        self._regions = []

    # ---- camera -------------------------------------------------------------------------

    def set_pose(self, pose: CameraPose) -> None:
        """Place the camera; hide the model whose eye the pose is (see `hide_node`)."""
        self.pose = pose
        lens = self.orthographic if pose.ortho else self.perspective
        if lens is not self.lens:
            self.lens = lens
            self.camera.node().set_lens(lens)
        self.lens.set_near_far(pose.near, pose.far)
        if pose.ortho:
            self.lens.set_film_size(pose.ortho * self.aspect, pose.ortho)
        else:
            self.lens.set_aspect_ratio(self.aspect)
            self.lens.set_min_fov(pose.fov)
        film = self.lens.get_film_size()
        self.lens.set_film_offset(-film[0] * self.inset_left / (2.0 * self.width), 0.0)
        self.camera.set_pos(*map(float, pose.position))
        self.camera.look_at(LPoint3f(*map(float, pose.target)), LVector3f(*map(float, pose.up)))
        self.update_labels()

    def hide_node(self, node: NodePath | None) -> None:
        """Show the node hidden before, hide this one (None: hide nothing)."""
        if self.hidden is not None and not self.hidden.is_empty():
            self.hidden.show()
        self.hidden = node
        if node is not None:
            node.hide()

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (n, 2) (x right, y down) of world points (n, 3), and (n,) bool
        whether each is in front of the camera and inside the image."""
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        out = np.full((len(pts), 2), np.nan)
        ok = np.zeros(len(pts), dtype=bool)
        mat = self.root.get_mat(self.camera)  # world -> camera
        for i, p in enumerate(pts):
            local = mat.xform_point(LPoint3f(*map(float, p)))
            film = LPoint2f()
            inside = self.lens.project(local, film)
            if local.y > 0:
                out[i] = ((film.x + 1) / 2 * self.width, (1 - film.y) / 2 * self.height)
                ok[i] = bool(inside)
        return out, ok

    def ray(self, px: float, py: float) -> tuple[np.ndarray, np.ndarray]:
        """World origin and unit direction of the ray through pixel (px, py)."""
        film = LPoint2f(2 * px / self.width - 1, 1 - 2 * py / self.height)
        near, far = LPoint3f(), LPoint3f()
        self.lens.extrude(film, near, far)
        mat = self.camera.get_mat(self.root)
        a = np.array(mat.xform_point(near))
        b = np.array(mat.xform_point(far))
        d = b - a
        return a, d / np.linalg.norm(d)

    # ---- screen labels ------------------------------------------------------------------

    def set_labels(self, labels: list[ScreenLabel]) -> None:
        """Replace the screen labels and lay them out for the current pose."""
        self.labels = list(labels)
        self.update_labels()

    def update_labels(self) -> None:
        """Re-project and lay out every screen label (call after the camera moved): boxes
        inside the frame, none overlapping another or a legend panel (`labels.layout`), a
        leader line to each label moved off its anchor."""
        from .labels import edge_anchor, layout, leader_end

        self.labels_root.node().remove_all_children()
        self.drawn_labels = []
        if not self.labels:
            return
        pixels, ok = self.project(np.array([lab.point for lab in self.labels]))
        size = self.text_px
        shown, anchors, sizes = [], [], []
        for label, pixel, inside in zip(self.labels, pixels, ok, strict=True):
            if not inside:
                continue
            anchor = edge_anchor(pixel, self.width, self.height) if label.kind == "hidden" \
                else pixel
            shown.append(label)
            anchors.append(anchor)
            sizes.append(text_box(label.text, size))
        if not shown:
            return
        descent = 0.2
        leaders = []
        points = None
        if len(self.model_points):
            pixels, inside = self.project(self.model_points)
            points = pixels[inside]
        for placed in layout(np.array(anchors), np.array(sizes), self.width, self.height,
                             self.label_blocks, descent, points):
            label, anchor = shown[placed.index], anchors[placed.index]
            add_text(self.labels_root, label.text, *placed.baseline, size, label.colour,
                     shadow=True)
            if placed.leader:
                leaders.append((anchor, leader_end(placed.box, anchor)))
            self.drawn_labels.append(DrawnLabel(label, placed.box,
                                                (float(anchor[0]), float(anchor[1])),
                                                placed.leader))
        if leaders:
            from .geom import lines_node

            starts = np.array([[a[0], 0.0, -a[1]] for a, _ in leaders])
            ends = np.array([[b[0], 0.0, -b[1]] for _, b in leaders])
            node = self.labels_root.attach_new_node(lines_node("leaders", starts, ends))
            node.set_color(*palette.TEXT[:3], 0.8)


def text_box(text: str, size: float) -> tuple[float, float]:
    """(width, height) in pixels of text drawn at `size` (Panda3D's own font metrics)."""
    node = TextNode("measure")
    node.set_text(text)
    return node.get_width() * size + 0.06 * size, (node.get_top() - node.get_bottom()) * size


def add_text(parent: NodePath, text: str, x: float, y: float, size: float,
             colour: palette.Colour = palette.TEXT, shadow: bool = False,
             align: str = "left") -> NodePath:
    """Text on the 2D overlay with its baseline starting at pixel (x, y)."""
    node = TextNode("text")
    node.set_text(text)
    node.set_text_color(*colour)
    node.set_align({"left": TextNode.A_left, "right": TextNode.A_right,
                    "center": TextNode.A_center}[align])
    if shadow:
        node.set_shadow(0.06, 0.06)
        node.set_shadow_color(0, 0, 0, 0.9)
    path = parent.attach_new_node(node)
    path.set_scale(size)
    path.set_pos(x, 0, -y)
    return path
