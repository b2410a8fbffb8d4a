"""The README's promises: its Python example runs as printed, its first lines are the two
commands."""

from __future__ import annotations

import contextlib
import io
import re

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text()


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_the_python_example_runs_and_agrees_with_the_commands(monkeypatch, tmp_path):
    """The example runs as printed, from anywhere; what it prints is the API's one judgement:
    the share is the sight's, the reason the verdict's, and the batch's list of seen models is
    what judging each of stryker's pairs alone gives."""
    blocks = _python_blocks()
    assert len(blocks) == 1
    code = blocks[0]
    assert len(code.strip().splitlines()) == 5
    monkeypatch.chdir(tmp_path)  # as a user would: anywhere, not in the checkout
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own README
    share, reason, seen = out.getvalue().splitlines()
    import battlesight

    bf = battlesight.load(ROOT / "scenes/examples/wmh2_hills_forest.yaml")
    verdict = bf.judge("stryker", "sorscha")
    assert float(share) == bf.sight("stryker", "sorscha").visible_fraction
    assert reason == verdict.reason and "ironclad" in reason
    assert not verdict.visible and "sorscha" not in seen
    alone = [t for t in bf.models if t != "stryker" and bf.judge("stryker", t).visible]
    assert alone and eval(seen) == alone  # noqa: S307 - a printed list


#: the suite on both cores, an idle worker taking tests from the busy one (the suite's long
#: files would otherwise leave one core idle); pytest-xdist is in the test extra
TEST_COMMAND = "pytest -q -n 2 --dist worksteal"


def test_the_readme_starts_with_the_two_commands():
    first = re.search(r"```bash\n(.*?)```", README, flags=re.S)
    assert first is not None and README.index(first.group(0)) < README.index("\n## ")
    lines = first.group(1).strip().splitlines()
    assert len(lines) == 2
    assert lines[0].endswith("battlesight demo") and "pip install -q ." in lines[0]
    assert " -e " not in lines[0]  # what a user installs: the real package, not a link
    assert lines[1].endswith(TEST_COMMAND) and '-e ".[test]"' in lines[1]
    # CI runs the README's test command, not one of its own
    assert f".venv/bin/python -m {TEST_COMMAND}\n" in (ROOT / ".ci" / "run").read_text()
