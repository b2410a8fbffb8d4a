"""The whole suite keeps its mesh-file readings (`geometry.meshcache`) in a folder of its own,
never in the user's cache; subprocesses of the tests inherit it."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _session_mesh_cache(tmp_path_factory):
    before = os.environ.get("BATTLESIGHT_CACHE")
    os.environ["BATTLESIGHT_CACHE"] = str(tmp_path_factory.mktemp("mesh-cache"))
    yield
    if before is None:
        os.environ.pop("BATTLESIGHT_CACHE", None)
    else:
        os.environ["BATTLESIGHT_CACHE"] = before
