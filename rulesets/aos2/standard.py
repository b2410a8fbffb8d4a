"""The AoS standard model (aos2 §4.1, §6.5): a 32 mm infantry model 1.6" tall, eye 1.4", an
archer with a bow. The model must see the target (§4.1): eye to eye, then eye to torso.
Terrain blocks sight only physically (§6.5): canopies do not."""

from battlesight.rulesets.core.standard import StandardModel

STANDARD = StandardModel("aos2", 32.0, 1.6, 1.4, 0.85, None, False, "aos2 §4.1, §6.5",
                         profile="archer")
