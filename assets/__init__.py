"""Meshes used by scenes: `terrain/` and `models/` (regenerate with `make_assets.py`)."""
