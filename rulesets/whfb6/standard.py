"""The WHFB standard model (whfb6 §4.1, §4.2 LV-1, LV-4): a 25 mm infantry model (a round
stand-in for the square base) 1.3" tall, eye 1.15", an archer with a bow. Sight is blocked by
intervening terrain (LV-1): eye to eye, then eye to torso. Sight goes 2" into or out of a
wood, never through it (LV-4)."""

from battlesight.rulesets.core.standard import StandardModel

STANDARD = StandardModel("whfb6", 25.0, 1.3, 1.15, 0.7, 2.0, False,
                         "whfb6 §4.1, §4.2 LV-1, LV-4", profile="archer")
