"""A game system is its package: `rulesets/wh40k6` copied under a new id (`wh40k7`, the text
`wh40k6` replaced in the copy, as a person copying it would) into a folder of its own, and
registered the way a third-party system is, by a distribution's entry point in the
`battlesight.rulesets` group (a `*.dist-info` folder on PYTHONPATH). With no line of battlesight
changed, `validate`, `los --json` (against the los schema as the package loads it), `shoot` and
`phases` run on a scene with `ruleset: wh40k7`, in subprocesses, and judge as wh40k6 does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema

import battlesight
from battlesight.cli.main import main
from tests.schema_helpers import errors
from tests.test_plain_scenes import PLAIN

ROOT = Path(__file__).resolve().parent.parent
OLD, NEW = "wh40k6", "wh40k7"


def install_copy(site: Path) -> None:
    """`rulesets/wh40k6` copied to `site/wh40k7` with its text renamed, and a distribution
    whose entry point registers it."""
    package = site / NEW
    shutil.copytree(ROOT / "rulesets" / OLD, package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in package.rglob("*"):
        if path.is_file():
            path.write_text(path.read_text(encoding="utf-8").replace(OLD, NEW), encoding="utf-8")
    dist = site / f"{NEW}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {NEW}\nVersion: 1.0\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[battlesight.rulesets]\n{NEW} = {NEW}\n",
                                           encoding="utf-8")


def battlesight_in(site: Path, *argv: str) -> subprocess.CompletedProcess:
    """`python -m battlesight ARGV` with `site` on PYTHONPATH beside battlesight itself."""
    path = [str(site), str(Path(battlesight.__file__).resolve().parent.parent),
            os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env,
                          cwd=site, timeout=120)


def test_a_copied_system_registered_by_an_entry_point_runs_every_command(tmp_path, capsys):
    site = tmp_path / "site"
    install_copy(site)
    scene = tmp_path / "scene.yaml"
    scene.write_text(PLAIN.format(ruleset=NEW), encoding="utf-8")
    original = tmp_path / "original.yaml"
    original.write_text(PLAIN.format(ruleset=OLD), encoding="utf-8")

    checked = battlesight_in(site, "-m", "battlesight", "validate", str(scene))
    assert checked.returncode == 0 and checked.stdout.strip() == f"{scene}: ok", checked.stderr

    los = battlesight_in(site, "-m", "battlesight", "los", str(scene), "--from", "a", "--json")
    assert los.returncode == 0, los.stderr
    entries = json.loads(los.stdout)
    assert {e["verdict"]["system"] for e in entries} == {NEW}
    assert all(e["verdict"]["rule"].startswith(f"{NEW} §") for e in entries)
    loaded = battlesight_in(site, "-c", "import json; from battlesight.reports.schemas import "
                            "schema; print(json.dumps([schema('los'), schema('shoot')]))")
    los_schema, shoot_schema = json.loads(loaded.stdout)
    jsonschema.validate(entries, los_schema)
    assert errors("los", entries)  # the built-in registry's schema does not know the copy
    # the copy judges as the system it was copied from, every verdict renamed
    assert main(["los", str(original), "--from", "a", "--json"]) == 0
    assert los.stdout.replace(NEW, OLD) == capsys.readouterr().out.replace(str(original),
                                                                           str(scene))

    shot = battlesight_in(site, "-m", "battlesight", "shoot", str(scene), "--unit", "ua",
                          "--target", "ub", "--json")
    assert shot.returncode == 0, shot.stderr
    report = json.loads(shot.stdout)
    jsonschema.validate(report, shoot_schema)
    assert report["eligible"] and report["expected_unsaved"] > 0

    phases = battlesight_in(site, "-m", "battlesight", "phases", NEW)
    assert phases.returncode == 0, phases.stderr
    assert main(["phases", OLD]) == 0
    assert phases.stdout == capsys.readouterr().out.replace(OLD, NEW)
