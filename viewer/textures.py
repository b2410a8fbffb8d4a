"""Textures generated in code (numpy): the table mat (grass, desert, city), stone, bark, earth
and leaves; and numpy images handed to Panda3D as Textures.

Every pattern is value noise summed over octaves, seeded, so the same scene always gets the
same picture. Images are (h, w, 3|4) uint8 with row 0 at the top, like any image file.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import SamplerState, Texture

MATS = ("grass", "desert", "city", "plain")
MAT_PX_PER_INCH = 8  # table mat resolution (a 72x48 table: 576x384 pixels)
MAX_MAT_SIDE = 2048


def value_noise(shape: tuple[int, int], cells: int, rng: np.random.Generator) -> np.ndarray:
    """(h, w) smooth noise in [0, 1]: a random lattice of `cells` across, bicubic-smoothed,
    tiling at the edges (so surfaces repeat without seams)."""
    h, w = shape
    cy = max(1, round(cells * h / max(w, 1)))
    grid = rng.random((cy, cells), dtype=np.float32)
    y = np.arange(h, dtype=np.float32) * np.float32(cy / h)
    x = np.arange(w, dtype=np.float32) * np.float32(cells / w)
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    fy, fx = y - y0, x - x0
    fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)  # smoothstep
    y1, x1 = (y0 + 1) % cy, (x0 + 1) % cells
    rows = grid[:, x0] * (1 - fx) + grid[:, x1] * fx  # (cy, w): across first, then down
    return rows[y0] * (1 - fy)[:, None] + rows[y1] * fy[:, None]


def fbm(shape: tuple[int, int], cells: int, octaves: int = 4, seed: int = 0) -> np.ndarray:
    """(h, w) fractal noise in [0, 1]: octaves of value noise, each finer and fainter."""
    rng = np.random.default_rng(seed)
    total = np.zeros(shape, dtype=np.float32)
    weight, amp = 0.0, 1.0
    for octave in range(octaves):
        total += amp * value_noise(shape, cells * 2 ** octave, rng)
        weight += amp
        amp *= 0.5
    return total / weight


def _mix(a, b, t: np.ndarray) -> np.ndarray:
    """Blend colours a -> b by t (h, w): (h, w, 3) floats."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a + (b - a) * t[..., None]


def _to_uint8(rgb: np.ndarray) -> np.ndarray:
    return np.clip(np.round(rgb * 255.0), 0, 255).astype(np.uint8)


def mat_shape(table: tuple[float, float], px_per_inch: int = MAT_PX_PER_INCH) -> tuple[int, int]:
    """(h, w) pixels of a mat for a width x depth table (capped at MAX_MAT_SIDE a side)."""
    width, depth = table
    scale = min(float(px_per_inch), MAX_MAT_SIDE / max(width, depth))
    return max(8, round(depth * scale)), max(8, round(width * scale))


def mat_colours(kind: str, shape: tuple[int, int], seed: int = 0) -> np.ndarray:
    """(h, w, 3) float colours of a table mat without its grid (row 0 at y = depth)."""
    h, w = shape
    cells = max(4, w // 48)
    if kind == "grass":
        broad = fbm(shape, cells, 4, seed)
        fine = fbm(shape, cells * 8, 2, seed + 1)
        rgb = _mix((0.20, 0.31, 0.13), (0.36, 0.45, 0.20), broad)
        rgb = _mix(rgb, (0.43, 0.40, 0.24), np.clip((fbm(shape, cells, 3, seed + 2) - 0.62) * 4,
                                                    0, 1))  # dry patches
        return rgb * (0.85 + 0.3 * fine)[..., None]
    if kind == "desert":
        broad = fbm(shape, cells, 4, seed)
        ripples = 0.5 + 0.5 * np.sin(np.arange(h)[:, None] * 0.9 + 6.0 * broad)
        rgb = _mix((0.62, 0.49, 0.32), (0.80, 0.67, 0.46), broad)
        return rgb * (0.92 + 0.08 * ripples)[..., None] * (
            0.9 + 0.2 * fbm(shape, cells * 8, 2, seed + 1))[..., None]
    if kind == "city":
        broad = fbm(shape, cells, 4, seed)
        rgb = _mix((0.27, 0.27, 0.28), (0.42, 0.41, 0.39), broad)
        slab = max(4, int(round(w * 6 / 72)))  # 6" paving slabs on a 72" table
        yy, xx = np.mgrid[0:h, 0:w]
        seam = ((xx % slab) < 1) | ((yy % slab) < 1)
        rgb[seam] *= 0.55
        cracks = (np.abs(fbm(shape, cells * 3, 3, seed + 3) - 0.5) < 0.008) & (
            fbm(shape, cells, 2, seed + 4) > 0.55)
        rgb[cracks] *= 0.72
        return rgb * (0.9 + 0.2 * fbm(shape, cells * 8, 2, seed + 1))[..., None]
    if kind == "plain":
        from .palette import TABLE

        return np.tile(np.asarray(TABLE[:3], float), (h, w, 1))
    raise ValueError(f"unknown mat {kind!r}; use {', '.join(MATS)}")


def table_mat(kind: str, table: tuple[float, float], occlusion: np.ndarray | None = None,
              seed: int = 0) -> np.ndarray:
    """(h, w, 3) uint8 mat image for a width x depth table, row 0 at the far edge (y = depth);
    occlusion (ny, nx) in [0, 1] over the table (row 0 at y = 0) darkens the ground where
    terrain stands close (baked ambient occlusion). The inch grid is drawn by the lit program
    (`lighting.grid_lines`), sharp at any distance."""
    shape = mat_shape(table)
    rgb = mat_colours(kind, shape, seed)
    if occlusion is not None:
        rgb *= resample(np.asarray(occlusion, float)[::-1], shape)[..., None]
    return _to_uint8(rgb)


def resample(field: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A (ny, nx) field resampled bilinearly (cell centres) to (h, w)."""
    ny, nx = field.shape
    h, w = shape
    y = np.clip((np.arange(h) + 0.5) * ny / h - 0.5, 0, ny - 1)
    x = np.clip((np.arange(w) + 0.5) * nx / w - 0.5, 0, nx - 1)
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    y1, x1 = np.minimum(y0 + 1, ny - 1), np.minimum(x0 + 1, nx - 1)
    fy, fx = (y - y0)[:, None], (x - x0)[None, :]
    a = field[y0][:, x0] * (1 - fx) + field[y0][:, x1] * fx
    b = field[y1][:, x0] * (1 - fx) + field[y1][:, x1] * fx
    return a * (1 - fy) + b * fy


# ---- surface materials (tiling, 128 px, one world inch = SURFACE_INCHES / 128 px) ---------

SURFACE_PX = 128
SURFACE_INCHES = 6.0  # one tile of a surface texture covers this many inches


def stone(seed: int = 0) -> np.ndarray:
    """Grey stone blocks in courses (ruins, walls)."""
    n = SURFACE_PX
    rgb = _mix((0.46, 0.45, 0.43), (0.66, 0.65, 0.62), fbm((n, n), 4, 4, seed))
    yy, xx = np.mgrid[0:n, 0:n]
    course = n // 8
    row = yy // course
    shift = (row % 2) * (n // 8)
    mortar = ((yy % course) < 2) | (((xx + shift) % (n // 4)) < 2)
    tint = np.random.default_rng(seed).uniform(0.88, 1.08, (8, 8))
    rgb *= tint[row % 8, ((xx + shift) // (n // 4)) % 8][..., None]
    rgb[mortar] *= 0.62
    return _to_uint8(rgb)


def bark(seed: int = 0) -> np.ndarray:
    """Dark brown bark with vertical furrows (tree trunks); v runs up the trunk."""
    n = SURFACE_PX
    streak = fbm((n // 8, n), 16, 3, seed)
    streak = np.repeat(streak, 8, axis=0)
    rgb = _mix((0.20, 0.13, 0.07), (0.42, 0.29, 0.16), streak)
    return _to_uint8(rgb * (0.85 + 0.3 * fbm((n, n), 8, 2, seed + 1))[..., None])


def earth(seed: int = 0) -> np.ndarray:
    """Brown earth with grass tufts and pebbles (hills, craters)."""
    n = SURFACE_PX
    rgb = _mix((0.33, 0.25, 0.15), (0.50, 0.40, 0.24), fbm((n, n), 4, 4, seed))
    grass = np.clip((fbm((n, n), 6, 3, seed + 1) - 0.55) * 5, 0, 1)
    rgb = _mix(rgb, (0.30, 0.38, 0.16), grass * 0.8)
    pebbles = fbm((n, n), 32, 1, seed + 2) > 0.84
    rgb[pebbles] = rgb[pebbles] * 0.8 + 0.1
    return _to_uint8(rgb)


def leaves(seed: int = 0) -> np.ndarray:
    """(n, n, 4) leafy clusters, transparent between the leaves (alpha 0 or 255)."""
    n = SURFACE_PX
    density = fbm((n, n), 12, 3, seed)
    alpha = np.where(density > 0.5, 255, 0).astype(np.uint8)
    rgb = _mix((0.16, 0.36, 0.10), (0.38, 0.62, 0.20), fbm((n, n), 24, 2, seed + 1))
    return np.dstack([_to_uint8(rgb), alpha])


SURFACES = {"stone": stone, "bark": bark, "earth": earth, "leaves": leaves}
_cache: dict[tuple, Texture] = {}


def surface_texture(name: str, seed: int = 0) -> Texture:
    """The Panda3D texture of a named surface (made once per process), repeating."""
    key = ("surface", name, seed)
    if key not in _cache:
        _cache[key] = image_texture(SURFACES[name](seed), name, repeat=True)
    return _cache[key]


def image_texture(image: np.ndarray, name: str = "image", repeat: bool = False,
                  mipmap: bool = True) -> Texture:
    """A Panda3D texture of an (h, w, 3|4) uint8 image (row 0 at the top), mipmapped."""
    image = np.asarray(image, dtype=np.uint8)
    h, w = image.shape[:2]
    channels = 1 if image.ndim == 2 else image.shape[2]
    if channels not in (3, 4):
        image = np.dstack([image] * 3) if channels == 1 else image[..., :3]
        channels = 3
    texture = Texture(name)
    fmt = Texture.F_rgba8 if channels == 4 else Texture.F_rgb8
    texture.setup_2d_texture(w, h, Texture.T_unsigned_byte, fmt)
    # Panda3D keeps rows bottom first and channels as BGR(A)
    data = image[::-1, :, [2, 1, 0, 3][:channels]]
    texture.set_ram_image(np.ascontiguousarray(data).tobytes())
    texture.set_minfilter(SamplerState.FT_linear_mipmap_linear if mipmap
                          else SamplerState.FT_linear)
    texture.set_magfilter(SamplerState.FT_linear)
    wrap = SamplerState.WM_repeat if repeat else SamplerState.WM_clamp
    texture.set_wrap_u(wrap)
    texture.set_wrap_v(wrap)
    return texture


GRAIN_PX = 128


def grain(seed: int = 0, size: int = GRAIN_PX) -> np.ndarray:
    """(size, size) uint8 fine grain with mean 128 that tiles seamlessly (band-passed white
    noise through the FFT, periodic by construction): the close-up detail of the table mat,
    free of the mat's own features and baked occlusion."""
    rng = np.random.default_rng(seed)
    spectrum = np.fft.fft2(rng.normal(size=(size, size)))
    f = np.hypot(*np.meshgrid(np.fft.fftfreq(size), np.fft.fftfreq(size)))
    spectrum *= np.exp(-((f - 0.12) / 0.08) ** 2)  # features a few pixels across
    noise = np.real(np.fft.ifft2(spectrum))
    noise = (noise - noise.mean()) / max(float(noise.std()), 1e-9)
    return np.clip(128.0 + 12.0 * noise, 0, 255).astype(np.uint8)


_grain: dict[int, Texture] = {}


def grain_texture(seed: int = 0) -> Texture:
    """The grain as a repeating texture (one per seed, shared by every frame)."""
    if seed not in _grain:
        _grain[seed] = image_texture(np.dstack([grain(seed)] * 3), f"grain-{seed}", repeat=True)
    return _grain[seed]
