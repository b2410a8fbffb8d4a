"""The lit look on the shader pipe: one GLSL program for every lit surface, a key light with a
shadow map fitted to the table, hemisphere ambient, baked ambient occlusion (vertex colours
and the mat texture, see `ambient`), a rim light on models and multisampling.

Why a hand-written program rather than Panda3D's shader generator or panda3d-simplepbr: the
generator writes Cg, which the Mesa llvmpipe EGL pipe here refuses ("The profile is not
supported"), and simplepbr is not among this project's packages; one GLSL 1.20 program runs on
llvmpipe, on GPUs and in the window alike. Where no GLSL exists (`p3tinydisplay`) the stage keeps
its fixed-function lights: the flat look is the fallback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from panda3d.core import (
    AntialiasAttrib,
    BitMask32,
    ColorWriteAttrib,
    DirectionalLight,
    NodePath,
    OrthographicLens,
    RenderState,
    Shader,
    ShaderAttrib,
)

from . import palette, textures

SHADOW_MASK = BitMask32.bit(5)  # nodes hidden from this camera mask cast no shadow
VIEW_MASK = BitMask32.bit(0)  # the view camera's mask (clear of SHADOW_MASK)
SHADOW_MAP = 2048  # the key light's shadow map, texels a side, for frames over 1280 pixels
SHADOW_MAP_SMALL = 1024  # ... and up to 1280x720: a pixel there covers about a texel of it


def shadow_map_for(width: int, height: int) -> int:
    """Texels a side of the shadow map for a frame: no finer than its pixels need (a
    1280x720 replay draws 2.5% faster with the smaller map, the same shadows to the eye)."""
    return SHADOW_MAP if max(width, height) > 1280 else SHADOW_MAP_SMALL
MULTISAMPLES = 4
SUN_HPR = (-35.0, -55.0, 0.0)  # from the front left, high: shadows fall back and to the right
SUN_COLOUR = (1.05, 0.99, 0.88, 1.0)
SKY = (0.40, 0.43, 0.50)  # hemisphere ambient: light from above ...
GROUND = (0.22, 0.20, 0.18)  # ... and bounced up from the table
MODEL_RIM = 0.55
DETAIL = 0.3  # how much finer grain the table mat gets close up
GRAIN_INCHES = 2.0  # one tile of the grain (`textures.grain`) covers this many inches

VERTEX = """
#version 120
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat3 p3d_NormalMatrix;
uniform mat4 p3d_ModelMatrix;
attribute vec4 p3d_Vertex;
attribute vec3 p3d_Normal;
attribute vec2 p3d_MultiTexCoord0;
attribute vec4 p3d_Color;
varying vec3 v_pos;
varying vec3 v_normal;
varying float v_up;
varying vec2 v_uv;
varying vec4 v_colour;
varying vec2 v_plan;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_plan = (p3d_ModelMatrix * p3d_Vertex).xy;
    v_pos = (p3d_ModelViewMatrix * p3d_Vertex).xyz;
    v_normal = normalize(p3d_NormalMatrix * p3d_Normal);
    v_up = normalize(mat3(p3d_ModelMatrix) * p3d_Normal).z;
    v_uv = p3d_MultiTexCoord0;
    v_colour = p3d_Color;
}
"""

FRAGMENT = """
#version 120
#define GRAIN_INCHES @GRAIN@
uniform struct p3d_MaterialParameters { vec4 ambient; vec4 diffuse; } p3d_Material;
uniform struct p3d_LightSourceParameters {
    vec4 color; vec4 position; sampler2DShadow shadowMap; mat4 shadowViewMatrix;
} p3d_LightSource[1];
uniform vec4 p3d_ColorScale;
uniform sampler2D p3d_Texture0;
uniform vec3 sky;
uniform vec3 ground;
uniform float rim;
uniform float texel;
uniform float grid;
uniform float detail;
uniform sampler2D grain;
uniform float shadowed;
varying vec2 v_plan;
varying vec3 v_pos;
varying vec3 v_normal;
varying float v_up;
varying vec2 v_uv;
varying vec4 v_colour;
void main() {
    vec4 tex = texture2D(p3d_Texture0, v_uv);
    if (tex.a < 0.5) discard;
    vec3 n = normalize(v_normal);
    float up = v_up;
    if (!gl_FrontFacing) { n = -n; up = -up; }
    vec3 base = p3d_Material.diffuse.rgb * tex.rgb * p3d_ColorScale.rgb;
    float ao = v_colour.r;
    vec3 l = normalize(p3d_LightSource[0].position.xyz);
    float lambert = max(dot(n, l), 0.0);
    vec4 sc = p3d_LightSource[0].shadowViewMatrix * vec4(v_pos + n * 0.04, 1.0);
    vec2 d = vec2(0.75 * texel * sc.w, -0.75 * texel * sc.w);
    float lit = 0.25 * (shadow2DProj(p3d_LightSource[0].shadowMap, sc + d.xxyy).r
                        + shadow2DProj(p3d_LightSource[0].shadowMap, sc + d.xyyy).r
                        + shadow2DProj(p3d_LightSource[0].shadowMap, sc + d.yxyy).r
                        + shadow2DProj(p3d_LightSource[0].shadowMap, sc + d.yyyy).r);
    lit = mix(1.0, lit, shadowed);
    if (detail > 0.0) {  // a tiling grain (mean 0.5) in table inches, seen close up
        base *= mix(1.0, 2.0 * texture2D(grain, v_plan / GRAIN_INCHES).r, detail);
    }
    if (grid > 0.0) {  // inch lines, stronger every 6", a pixel wide at any distance
        vec2 w = fwidth(v_plan);
        vec2 inch = abs(fract(v_plan + 0.5) - 0.5) / w;
        vec2 foot = abs(fract(v_plan / 6.0 + 0.5) - 0.5) * 6.0 / w;
        float line = 1.0 - clamp(min(inch.x, inch.y) - 0.5, 0.0, 1.0);
        float major = 1.0 - clamp(min(foot.x, foot.y) - 0.7, 0.0, 1.0);
        base *= 1.0 - grid * max(0.07 * line, 0.2 * major);
    }
    vec3 ambient = mix(ground, sky, 0.5 + 0.5 * up) * ao;
    vec3 sun = p3d_LightSource[0].color.rgb * lambert * lit * (0.55 + 0.45 * ao);
    vec3 colour = base * (ambient + sun);
    vec3 view = normalize(-v_pos);
    float edge = pow(1.0 - max(dot(n, view), 0.0), 3.0);
    colour += rim * edge * vec3(1.0, 0.97, 0.9);
    gl_FragColor = vec4(colour, p3d_Material.diffuse.a * tex.a * p3d_ColorScale.a);
}
""".replace("@GRAIN@", f"{GRAIN_INCHES:.3f}")

DEPTH_VERTEX = """
#version 120
uniform mat4 p3d_ModelViewProjectionMatrix;
attribute vec4 p3d_Vertex;
attribute vec2 p3d_MultiTexCoord0;
varying vec2 v_uv;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_uv = p3d_MultiTexCoord0;
}
"""

DEPTH_FRAGMENT = """
#version 120
void main() {
    gl_FragColor = vec4(1.0);
}
"""

CUTOUT_FRAGMENT = """
#version 120
uniform sampler2D p3d_Texture0;
varying vec2 v_uv;
void main() {
    if (texture2D(p3d_Texture0, v_uv).a < 0.5) discard;
    gl_FragColor = vec4(1.0);
}
"""
SHADOW_TAG = "shadow"  # nodes tagged SHADOW_TAG=cutout cast shadows with holes (leaves)


@dataclass(frozen=True)
class Look:
    """How the battlefield is drawn: the lit shader look or the flat fixed-function one, the
    table mat and its grid, and each player's army colour."""

    shaded: bool = True
    mat: str = "auto"
    grid: bool = True
    armies: dict[int, palette.Colour] = field(default_factory=dict)

    def army(self, player: int | None) -> palette.Colour:
        """A player's colour: the one chosen for it (RGBA, or a name / #rrggbb as
        `palette.parse_colour` reads), else the palette's."""
        if player is not None and player in self.armies:
            colour = self.armies[player]
            if isinstance(colour, str):
                return palette.parse_colour(colour)
            return tuple(float(c) for c in (*colour, 1.0)[:4])
        return palette.player_colour(player)


FLAT = Look(shaded=False, mat="plain")


def supports_shaders(output) -> bool:
    """Whether an output's graphics state draws GLSL (EGL, a GPU; not p3tinydisplay)."""
    gsg = output.get_gsg() if output is not None else None
    return bool(gsg is not None and gsg.get_supports_glsl())


def for_output(look: Look, output) -> Look:
    """look as an output can draw it: shaded only where it has GLSL (else the flat look, the
    mat, grid and army colours kept for when it is drawn elsewhere)."""
    from dataclasses import replace

    return replace(look, shaded=look.shaded and supports_shaders(output))


_programs: dict[str, Shader] = {}


def program(name: str = "lit") -> Shader:
    """The lit, depth-only or cutout depth GLSL program (made once per process)."""
    if name not in _programs:
        sources = {"lit": (VERTEX, FRAGMENT), "depth": (DEPTH_VERTEX, DEPTH_FRAGMENT),
                   "cutout": (DEPTH_VERTEX, CUTOUT_FRAGMENT)}[name]
        _programs[name] = Shader.make(Shader.SL_GLSL, *sources)
    return _programs[name]


def sun_basis(hpr: tuple[float, float, float] = SUN_HPR) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """(forward, right, up) unit vectors of a node turned by hpr (Panda3D: heading about z,
    then pitch about the turned x; forward is +y)."""
    h, p = math.radians(hpr[0]), math.radians(hpr[1])
    forward = np.array([-math.sin(h) * math.cos(p), math.cos(h) * math.cos(p), math.sin(p)])
    right = np.array([math.cos(h), math.sin(h), 0.0])
    return forward, right, np.cross(right, forward)


def fit_shadow_lens(lens: OrthographicLens, low: np.ndarray, high: np.ndarray,
                    hpr: tuple[float, float, float] = SUN_HPR) -> np.ndarray:
    """Fit an orthographic light lens around the box low..high (3,) seen along the sun; returns
    the centre the light node is placed at."""
    forward, right, up = sun_basis(hpr)
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                        for z in (low[2], high[2])], dtype=np.float64)
    centre = corners.mean(axis=0)
    rel = corners - centre
    half_x = np.abs(rel @ right).max() * 1.02 + 0.5
    half_y = np.abs(rel @ up).max() * 1.02 + 0.5
    depth = np.abs(rel @ forward).max() + 1.0
    lens.set_film_size(2 * half_x, 2 * half_y)
    lens.set_near_far(-depth, depth)
    return centre


def table_sun(table: tuple[float, float]) -> tuple[float, float, float]:
    """The sun's hpr over a width x depth table: SUN_HPR turned with the stream view's heading
    (`cameras.preset_heading`), so a portrait table, watched from its long side, is lit from
    the front left of that view as a landscape one is (not from behind the camera)."""
    from .cameras import preset_heading

    return (SUN_HPR[0] + preset_heading("stream", table)[0], SUN_HPR[1], SUN_HPR[2])


def add_sun(root: NodePath, low: np.ndarray, high: np.ndarray,
            size: int = SHADOW_MAP, hpr: tuple[float, float, float] = SUN_HPR) -> NodePath:
    """A shadow-casting key light turned by hpr over the box low..high, lighting root."""
    sun = DirectionalLight("key-light")
    sun.set_color(SUN_COLOUR)
    sun.set_priority(100)  # first among any lights a node gets
    lens = OrthographicLens()
    centre = fit_shadow_lens(lens, np.asarray(low, float), np.asarray(high, float), hpr)
    sun.set_lens(lens)
    sun.set_shadow_caster(True, size, size)
    sun.set_camera_mask(SHADOW_MASK)
    no_colour = ColorWriteAttrib.make(ColorWriteAttrib.C_off)
    sun.set_initial_state(RenderState.make(ShaderAttrib.make(program("depth")), no_colour, 100))
    sun.set_tag_state_key(SHADOW_TAG)
    sun.set_tag_state("cutout", RenderState.make(ShaderAttrib.make(program("cutout")),
                                                 no_colour, 101))
    node = root.attach_new_node(sun)
    node.set_pos(*map(float, centre))
    node.set_hpr(*hpr)
    return node


def light_battlefield(stage_root: NodePath, battlefield: NodePath, table: tuple[float, float],
                      top: float, size: int = SHADOW_MAP) -> NodePath:
    """Put the lit look on a battlefield: the GLSL program on every lit node under it (decals
    and overlays opt out with `unlit`), a shadow-casting sun over the table up to height top,
    its shadow map `size` texels a side (`shadow_map_for`)."""
    width, depth = table
    sun = add_sun(stage_root, np.array([-2.0, -2.0, -1.0]),
                  np.array([width + 2.0, depth + 2.0, max(top, 1.0) + 0.5]), size=size,
                  hpr=table_sun(table))
    stage_root.set_antialias(AntialiasAttrib.M_multisample)  # the buffer's samples are used
    battlefield.set_light_off()  # the stage's fixed-function lights: not p3d_LightSource[0]
    battlefield.set_light(sun)
    battlefield.set_shader(program("lit"))
    battlefield.set_shader_input("sky", SKY)
    battlefield.set_shader_input("ground", GROUND)
    battlefield.set_shader_input("rim", 0.0)
    battlefield.set_shader_input("texel", 1.0 / size)
    battlefield.set_shader_input("grid", 0.0)
    battlefield.set_shader_input("detail", 0.0)
    battlefield.set_shader_input("grain", textures.grain_texture())  # bound for every node
    battlefield.set_shader_input("shadowed", 1.0)
    return sun


def warm_up(engine, stage) -> bool:
    """Draw one frame into a corner of the stage's regions: the shadow buffer is made (and
    the programs compiled) by that frame, so the next full frame is already shadowed.
    Returns False when a program failed to compile here (draw the flat look instead)."""
    regions = list(getattr(stage, "_regions", ()))
    for region in regions:
        region.set_dimensions(0.0, 0.02, 0.0, 0.02)
    engine.render_frame()
    for region in regions:
        region.set_dimensions(0.0, 1.0, 0.0, 1.0)
    return not any(shader.get_error_flag() for shader in _programs.values())


def grid_lines(node: NodePath, on: bool = True) -> NodePath:
    """Draw the inch grid (every 6" stronger) on node's surface, in world inches."""
    node.set_shader_input("grid", 1.0 if on else 0.0)
    node.set_shader_input("detail", DETAIL)
    return node


def ground_shadows(ground: NodePath, on: bool) -> NodePath:
    """Shadows on the table top on or off: off under a heatmap, so its colours read true (a
    shadowed yellow would pass for the key's green)."""
    ground.set_shader_input("shadowed", 1.0 if on else 0.0)
    return ground


def cutout(node: NodePath) -> NodePath:
    """Let node's texture alpha cut holes in its shadow (leaves), not only in its colour."""
    node.set_tag(SHADOW_TAG, "cutout")
    return node


def unlit(node: NodePath) -> NodePath:
    """Keep node on the fixed-function pipe (exact flat colours) and out of the shadow map."""
    node.set_shader_off(1)
    node.hide(SHADOW_MASK)
    return node


def rim_light(node: NodePath, strength: float = MODEL_RIM) -> NodePath:
    """A bright rim on node's silhouette edges so it reads against any ground."""
    node.set_shader_input("rim", float(strength))
    return node
