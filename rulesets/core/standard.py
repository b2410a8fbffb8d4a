"""A system's standard model: what stands on every cell of a layout analysis, and what a scene
model without `profile` or `stats` is judged as.

Each ruleset package declares one (`Ruleset.standard_profile`): a round base (mm), a height
and an eye height (inches), its sight test (the segments that decide whether one standard
model sees another, and whether forest canopies block), and the data profile (stats and
weapons of `rulesets/<id>/data/*.yaml`) a plain model gets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from battlesight.geometry.sightgrid.viewshed import SightTest

#: What a report says of a model whose scene entry names no profile and gives no stats.
STANDARD_LABEL = "standard model (none given)"


@dataclass(frozen=True)
class StandardModel:
    """A ruleset's standard model, sight test and game profile.

    base: round base diameter (mm); height: top of the model (inches); eye: eye height;
    torso: a body point below the eye; canopy_limit: inches of forest a line may see into or
    out of, never through (None: forests never block); volume: sight is volume to volume
    (either way counts); rule: where the values come from; profile: the data profile a model
    without `profile` or `stats` is given (its stats and weapons).
    """

    ruleset: str
    base: float
    height: float
    eye: float
    torso: float
    canopy_limit: float | None
    volume: bool
    rule: str
    profile: str = ""

    def sight_test(self) -> SightTest:
        """The geometric test for `geometry.viewshed.pair_sight`."""
        from battlesight.geometry.sightgrid.viewshed import SightTest

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
                "canopy_limit": self.canopy_limit, "volume": self.volume, "rule": self.rule,
                "profile": self.profile}

    def resized(self, base: float | None = None, height: float | None = None,
                eye: float | None = None) -> StandardModel:
        """This model with base, height or eye overridden when given (the torso point and a
        volume's eye follow the height)."""
        changes: dict = {}
        if base is not None:
            changes["base"] = float(base)
        if height is not None:
            scale = float(height) / self.height
            changes.update(height=float(height), torso=self.torso * scale,
                           eye=float(height) if self.volume else min(self.eye, float(height)))
        if eye is not None:
            changes["eye"] = float(eye)
        model = replace(self, **changes, rule=self.rule + " (overridden)") if changes else self
        for name in ("base", "height", "eye"):
            if not getattr(model, name) > 0:
                raise ValueError(f"standard model {name} must be positive")
        return model
