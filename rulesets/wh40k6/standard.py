"""The 40k standard model (wh40k6 §4.2, §4.3, §5.5): a 32 mm infantry model 1.6" tall, eye at
1.4" (the scene format's defaults), a tactical marine with a boltgun (§11 sample profiles).
True line of sight from the eyes to any part of the body: eye to eye (the head), then eye to
torso (0.85") for the pairs still blocked. Forests give cover but do not block (§5.5)."""

from battlesight.rulesets.core.standard import StandardModel

STANDARD = StandardModel("wh40k6", 32.0, 1.6, 1.4, 0.85, None, False,
                         "wh40k6 §4.2, §4.3, §5.5", profile="tactical-marine")
