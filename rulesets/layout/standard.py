"""The standard model of each ruleset: what stands on every cell of a layout analysis.

Each ruleset's standard model is a round base (mm), a height and an eye height (inches) and
its sight test: the segments that decide whether one standard model sees another, and whether
forest canopies block. The values and the rules they come from:

- wh40k6: a 32 mm infantry model, 1.6" tall, eye at 1.4" (the scene format's defaults). True
  line of sight from the eyes to any part of the body (§4.2, §4.3): eye to eye (the head), then
  eye to torso (0.85") for the pairs still blocked. Forests give cover but do not block (§5.5).
- wmh2: a small base (30 mm) with its standard volume 1.75" tall (§4); sight is volume to volume
  (§5.1, §5.2): top of the volume to top, then top to middle, either way. A model sees 3" into
  or out of a forest, never through one (§5.6, [GK-M]).
- whfb6: a 25 mm infantry model (round stand-in for the square base), 1.3" tall, eye 1.15";
  LoS blocked by intervening terrain (§4.2 LV-1): eye to eye, then eye to torso. Sight goes 2"
  into or out of a wood, never through it (§4.2 LV-4).
- aos2: a 32 mm infantry model, 1.6" tall, eye 1.4"; the model must see the target (§4.1):
  eye to eye, then eye to torso. Terrain blocks sight only physically (§6.5): canopies do not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from battlesight.geometry.viewshed import SightTest


@dataclass(frozen=True)
class StandardModel:
    """A ruleset's standard model and sight test.

    base: round base diameter (mm); height: top of the model (inches); eye: eye height;
    torso: a body point below the eye; canopy_limit: inches of forest a line may see into or
    out of, never through (None: forests never block); volume: sight is volume to volume
    (either way counts); rule: where the values come from.
    """

    ruleset: str
    base: float
    height: float
    eye: float
    torso: float
    canopy_limit: float | None
    volume: bool
    rule: str

    def sight_test(self) -> SightTest:
        """The geometric test for `geometry.viewshed.pair_sight`."""
        return SightTest(
            pairs=((self.eye, self.eye), (self.eye, self.torso)),
            canopy_limit=self.canopy_limit,
            symmetric=self.volume,
        )

    def describe(self) -> str:
        """One line: base, height, eye and the sight test."""
        forest = ("forests never block" if self.canopy_limit is None
                  else f'sight {self.canopy_limit:g}" into a forest, not through')
        way = "volume top to top or middle, either way" if self.volume else "eye to eye or torso"
        return (f'{self.base:g} mm base, {self.height:g}" tall, eye {self.eye:g}"; '
                f"sight {way}; {forest} ({self.rule})")

    def to_dict(self) -> dict:
        return {"base": self.base, "height": self.height, "eye": self.eye, "torso": self.torso,
                "canopy_limit": self.canopy_limit, "volume": self.volume, "rule": self.rule}


STANDARD: dict[str, StandardModel] = {
    "wh40k6": StandardModel("wh40k6", 32.0, 1.6, 1.4, 0.85, None, False,
                            "wh40k6 §4.2, §4.3, §5.5"),
    "wmh2": StandardModel("wmh2", 30.0, 1.75, 1.75, 0.9, 3.0, True,
                          "wmh2 §4, §5.1, §5.2, §5.6"),
    "whfb6": StandardModel("whfb6", 25.0, 1.3, 1.15, 0.7, 2.0, False,
                           "whfb6 §4.1, §4.2 LV-1, LV-4"),
    "aos2": StandardModel("aos2", 32.0, 1.6, 1.4, 0.85, None, False, "aos2 §4.1, §6.5"),
}


def standard_model(ruleset: str, base: float | None = None, height: float | None = None,
                   eye: float | None = None) -> StandardModel:
    """The ruleset's standard model, with base, height or eye overridden when given (the torso
    point and a volume's eye follow the height)."""
    if ruleset not in STANDARD:
        raise ValueError(f"unknown ruleset {ruleset!r}; known: {', '.join(STANDARD)}")
    model = STANDARD[ruleset]
    changes: dict = {}
    if base is not None:
        changes["base"] = float(base)
    if height is not None:
        scale = float(height) / model.height
        changes.update(height=float(height), torso=model.torso * scale,
                       eye=float(height) if model.volume else min(model.eye, float(height)))
    if eye is not None:
        changes["eye"] = float(eye)
    if changes:
        model = replace(model, **changes, rule=model.rule + " (overridden)")
    for name in ("base", "height", "eye"):
        if not getattr(model, name) > 0:
            raise ValueError(f"standard model {name} must be positive")
    return model
