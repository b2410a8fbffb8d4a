"""The MK II standard model (wmh2 §4, §5.1, §5.2, §5.6): a trooper with a rifle on a small base
(30 mm) whose standard volume is 1.75" tall. Sight is volume to volume: top of the volume to
top, then top to middle, either way. A model sees 3" into or out of a forest, never through
one (§5.6, [GK-M])."""

from battlesight.rulesets.core.standard import StandardModel

STANDARD = StandardModel("wmh2", 30.0, 1.75, 1.75, 0.9, 3.0, True,
                         "wmh2 §4, §5.1, §5.2, §5.6", profile="trooper")
