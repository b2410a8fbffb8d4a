"""The sight-grid engine of the layout analysis: standing models on every cell of a grid
(`viewshed`), the pair sight between cells cast in batches (`caster`), refined coarse to fine
(`refine`, `lattice`, `shared_sight`) and shared over forked workers (`forked`).

Geometry only: it knows meshes and rays, never a ruleset; `battlesight.analysis` turns its
answers into the figures of a layout.
"""
