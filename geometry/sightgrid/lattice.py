"""The boxes of grid cells a layout refinement fills coarse to fine (`refine`): a rectangle
of cells with its lower corner on the lattice, its cell <-> slot maps, and the levels of new
cells with the cells each takes its answer from."""

from __future__ import annotations

import numpy as np

#: Largest step (inches) of the foot's height between cells that share answers (a box's top
#: and the table beside it do not).
STEP_Z = 0.1


class LatticeBox:
    """A rectangle of grid cells, its lower corner on the lattice, with cell <-> slot maps."""

    def __init__(self, y0: int, x0: int, ny: int, nx: int, shape: tuple[int, int]):
        self.y0, self.x0, self.ny, self.nx, self.shape = y0, x0, ny, nx, shape

    @classmethod
    def around(cls, cells: np.ndarray, shape: tuple[int, int], stride: int) -> LatticeBox:
        iy, ix = np.divmod(cells, shape[1])
        y0 = int(iy.min()) // stride * stride
        x0 = int(ix.min()) // stride * stride
        return cls(y0, x0, int(iy.max()) - y0 + 1, int(ix.max()) - x0 + 1, shape)

    @property
    def size(self) -> int:
        return self.ny * self.nx

    def index(self, cells: np.ndarray) -> np.ndarray:
        """Slots of grid cells (which must lie in the box)."""
        iy, ix = np.divmod(np.asarray(cells, dtype=np.int64), self.shape[1])
        return (iy - self.y0) * self.nx + (ix - self.x0)

    def cells(self) -> np.ndarray:
        """Grid cell of every slot."""
        y, x = np.divmod(np.arange(self.size), self.nx)
        return (y + self.y0) * self.shape[1] + (x + self.x0)

    def levels(self, valid: np.ndarray, z: np.ndarray, stride: int) -> list[tuple]:
        """Per level, coarse to fine: (slots, parents, backing, last). slots: those new at the
        level (valid cells only); parents (k, 4): the corners of the coarser square around
        each (twice the two ends for a cell between two lattice cells); backing (k, 4): for
        a cell between two lattice cells, its four neighbours half a step away (its ends,
        and the squares' centres beside it, filled at the level before; else an empty (0, 0)
        array); a parent or neighbour outside the box, invalid or standing at another height
        (z: the foot's, per grid cell) is -1; last: the level is of the last halving. Level 0
        (the lattice) has no parents ((k, 0)). Each halving has two levels: the squares'
        centres, then the cells between two lattice cells."""
        y, x = np.divmod(np.arange(self.size), self.nx)
        ok = valid[self.cells()]
        zs = z[self.cells()]
        none = np.empty((0, 0), dtype=np.int64)

        def slot_of(slots, a, b):
            inside = (a >= 0) & (a < self.ny) & (b >= 0) & (b < self.nx)
            slot = np.where(inside, a * self.nx + b, 0)
            good = inside & ok[slot] & (np.abs(zs[slot] - zs[slots]) <= STEP_Z)
            return np.where(good, slot, -1)

        s = stride
        top = np.flatnonzero(ok & (y % s == 0) & (x % s == 0))
        out = [(top, np.empty((len(top), 0), dtype=np.int64), none, False)]
        while s > 1:
            h = s // 2
            on_y, on_x = y % s == 0, x % s == 0
            fine = ok & (y % h == 0) & (x % h == 0)
            for centre in (True, False):
                slots = np.flatnonzero(fine & (~on_y & ~on_x if centre else on_y ^ on_x))
                py, px = y[slots], x[slots]
                ylo, xlo = py - py % s, px - px % s
                yhi = np.where(py % s == 0, ylo, ylo + s)
                xhi = np.where(px % s == 0, xlo, xlo + s)
                parents = np.column_stack([slot_of(slots, a, b) for a in (ylo, yhi)
                                           for b in (xlo, xhi)])
                backing = none
                if not centre:
                    backing = np.column_stack([slot_of(slots, py + dy, px + dx) for dy, dx
                                               in ((-h, 0), (h, 0), (0, -h), (0, h))])
                out.append((slots, bridged(parents), backing, h == 1))
            s = h
        return out


def bridged(parents: np.ndarray) -> np.ndarray:
    """Parents (k, 4) (corners lo-lo, lo-hi, hi-lo, hi-hi) with a missing corner replaced by
    a corner of the other diagonal where that diagonal is whole: the cell lies on it, between
    two known cells (a square's centre beside a wall or the table's edge)."""
    parents = parents.copy()
    for a, b, c, d in ((0, 3, 1, 2), (1, 2, 0, 3)):  # diagonal (a, b) whole, (c, d) not
        whole = (parents[:, a] >= 0) & (parents[:, b] >= 0)
        for m in (c, d):
            fill = whole & (parents[:, m] < 0)
            parents[fill, m] = parents[fill, a]
    return parents
