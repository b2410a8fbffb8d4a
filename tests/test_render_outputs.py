"""What render writes: the matrix JSON lists the unit lines it draws, turntable frame patterns are
honoured or refused, numbered paths without a pattern keep the old names."""

from __future__ import annotations

import json

import pytest

from tests.helpers import DEMO, run_cli


def test_render_matrix_json_lists_the_unit_lines_it_draws(tmp_path):

    pytest.importorskip("panda3d")
    from tests.schema_helpers import assert_valid

    code, out, _ = run_cli("render", DEMO, "--out", str(tmp_path / "m.png"), "--matrix",
                           "--json", "--size", "480x270", "--renderer", "tiny")
    drawn = json.loads(out)
    assert code == 0
    assert_valid("render", drawn)
    lines, cells = drawn["matrix"]["lines"], drawn["matrix"]["cells"]
    status = {(c["observer"], c["target"]): c["status"] for c in cells}
    assert lines and all(status[(x["observer"], x["target"])] == x["status"] for x in lines)
    units = drawn["matrix"]["units"]
    assert len(lines) == len({(x["observer"], x["target"]) for x in lines})
    assert all(x["observer"] in units and x["target"] in units for x in lines)


def test_turntable_frame_patterns_are_honoured_or_refused(tmp_path):
    pytest.importorskip("panda3d")
    out = tmp_path / "spin_%03d.png"
    code, _, _ = run_cli("render", DEMO, "--out", str(out), "--turntable", "2",
                         "--size", "48x32", "--renderer", "tiny")
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spin_000.png", "spin_001.png"]
    for name in ("spin_%s.png", "spin_%d_%d.png", "spin_50%.png"):
        code, _, err = run_cli("render", DEMO, "--out", str(tmp_path / name),
                               "--turntable", "2", "--size", "48x32", "--renderer", "tiny")
        assert code == 2 and err.startswith("battlesight render: --out ") and \
            "a frame pattern has one number" in err, err
    assert len(list(tmp_path.iterdir())) == 2  # nothing more written


def test_numbered_paths_without_a_pattern_keep_the_old_names():
    from battlesight.scenes.output import numbered_paths

    assert [p.name for p in numbered_paths("a/spin.png", 2)] == ["spin_000.png", "spin_001.png"]
    assert [p.name for p in numbered_paths("x%d.png", 2)] == ["x0.png", "x1.png"]
