"""The documentation in docs/ matches the code: its example scene validates, its action files
play as they say, and every rule section the rulesets cite has a heading on its rules page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from battlesight.scenes import EXAMPLES_DIR, validate_scene_file
from battlesight.scenes.systems import SYSTEMS

from battlesight.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: the systems whose rules pages are docs/rules/<id>.md: the built-in ones (an installed system
#: documents itself in its own distribution)
RULESETS = SYSTEMS
#: Worked examples of docs/actions.md: scene, seed the page gives, indices refused on purpose.
PLAYS = {
    "wh40k6": ("wh40k6_city_ruins.yaml", 8, [6]),
    "wmh2": ("wmh2_hills_forest.yaml", 2, []),
    "whfb6": ("whfb6_village.yaml", 4, []),
    "aos2": ("aos2_ruins_obstacles.yaml", 5, [6]),
}
CITATION = re.compile(rf"\b({'|'.join(RULESETS)}) §(\d+(?:\.\d+)*)")


def test_scene_format_example_is_the_file_and_validates(capsys) -> None:
    page = (DOCS / "scene-format.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert block is not None
    example = DOCS / "examples" / "scene.yaml"
    assert block.group(1) == example.read_text(encoding="utf-8")
    assert validate_scene_file(example) == []
    assert main(["validate", "--strict", str(example)]) == 0
    assert capsys.readouterr().out.strip() == f"{example}: ok"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_action_examples_play_as_documented(ruleset: str, capsys) -> None:
    scene, seed, refused = PLAYS[ruleset]
    actions = DOCS / "examples" / f"{ruleset}_actions.yaml"
    assert f"--seed {seed}" in (DOCS / "actions.md").read_text(encoding="utf-8")
    code = main(["play", str(EXAMPLES_DIR / scene), "--actions", str(actions),
                 "--seed", str(seed), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [r["index"] for r in out["results"] if not r["ok"]] == refused
    last = (f"{len(out['results'])} actions, {len(refused)} refused; now {out['where']}")
    assert last in (DOCS / "actions.md").read_text(encoding="utf-8")


def _cited_sections(ruleset: str) -> set[str]:
    """Every '§N' that code under rulesets/ cites for this system."""
    found: set[str] = set()
    for path in (ROOT / "rulesets").rglob("*.py"):
        for system, section in CITATION.findall(path.read_text(encoding="utf-8")):
            if system == ruleset and path.parent.name != "core":
                found.add(section)
    return found


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_cited_section_has_a_heading(ruleset: str) -> None:
    page = (DOCS / "rules" / f"{ruleset}.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#+ §(\d+(?:\.\d+)*)\b", page, re.M))
    cited = _cited_sections(ruleset)
    assert cited, ruleset
    assert sorted(cited - headings) == []


def test_readme_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/scene-format.md", "docs/actions.md", "docs/rules/README.md",
                   *(f"docs/rules/{r}.md" for r in RULESETS)):
        assert f"]({target})" in readme, target
        assert (ROOT / target).is_file(), target
    assert "shared notes" not in readme and "DESIGN.md" not in readme


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_between_pages_resolve() -> None:
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: {target}"
            if anchor and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)
                assert anchor in {_slug(h) for h in headings}, f"{page.name}: {target}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rules_page_lists_every_declared_reading(ruleset: str) -> None:
    """The Readings section is the one `readings_doc` generates from the ruleset (rerun it
    after changing a reading): every reading with its default and alternatives, every fixed
    register row with the reason."""
    from battlesight.rulesets.core.readings_doc import readings_section
    from battlesight.rulesets.core.ruleset import get_ruleset

    rs = get_ruleset(ruleset)
    page = (DOCS / "rules" / f"{ruleset}.md").read_text(encoding="utf-8")
    assert readings_section(rs) in page, "rerun python -m battlesight.rulesets.core.readings_doc"
    section = page[page.index("\n## Readings\n"):]
    for r in rs.readings:
        row = next(line for line in section.splitlines() if line.startswith(f"| `{r.id}` |"))
        assert all(f"`{v}`" in row for v in r.values), r.id
    for a in rs.ambiguities:
        assert f"| {a.id} |" in section and a.because[:40] in section, a.id
