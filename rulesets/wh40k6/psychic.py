"""Psychic powers (wh40k6 §8.11, timing §2.4, sight §4.1 quote 11 and §4.2): the power data,
mastery level and Warp Charge, the exact odds of the psychic test, Perils of the Warp and Deny
the Witch, and `Cast`, a cast being planned (`targets.plan` says whether it is legal now).

A power is cast with `{do: psychic, unit: U, model: M, power: NAME, target: T}` (model: the
psyker, default the unit's only psyker; target: a unit; `pick: MODEL` for a focused witchfire,
`point: [x, y]` for a beam's end point). Blessings and maledictions are cast in the movement
phase's `powers` step (its start), witchfire powers (focused, nova, beam, maelstrom too) in the
shooting phase instead of firing a weapon. `powers.py` rolls them out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.dice import Dist, d6, nd6
from battlesight.rulesets.core.profiles import ProfileError
from battlesight.scenes.yamlread import package_data

from .profile import Profile, Weapon, parse_weapon

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.game import Game

RULE_PSYCHIC = "wh40k6 §8.11"
RULE_TIMING = "wh40k6 §2.4"
RULE_SIGHT = "wh40k6 §4.2"
DATA = Path(__file__).resolve().parent / "data" / "psychic.yaml"
START_KINDS = ("blessing", "malediction")  # cast at the start of the movement phase
WITCHFIRE_KINDS = ("witchfire", "focused witchfire", "nova", "beam", "maelstrom")
KINDS = (*START_KINDS, *WITCHFIRE_KINDS)
POWERS_STEP, SHOOT_STEP = "powers", "shoot"
HOOD_RANGE = 6.0


@dataclass(frozen=True)
class Power:
    """One psychic power as data."""

    key: str
    name: str
    kind: str
    discipline: str = ""
    warp_charge: int = 1
    range: float | str | None = None  # inches, 'template', or None (the psyker himself)
    target: str = "enemy"  # self | own unit | friendly | enemy | all
    weapon: Weapon | None = None
    effect: dict[str, Any] = field(default_factory=dict)
    special: str | None = None

    @property
    def witchfire(self) -> bool:
        return self.kind in WITCHFIRE_KINDS

    @property
    def step(self) -> str:
        return POWERS_STEP if self.kind in START_KINDS else SHOOT_STEP

    @property
    def reach(self) -> float:
        """Range in inches for measuring (a template reaches 8")."""
        if self.range == "template":
            return 8.0
        return float(self.range) if self.range is not None else 0.0


def make_power(key: str, raw: dict[str, Any]) -> Power:
    """A Power from a data mapping (see data/psychic.yaml)."""
    kind = str(raw.get("type", "")).strip().lower()
    if kind not in KINDS:
        raise ProfileError(f"psychic power {key!r}: unknown type {raw.get('type')!r} "
                           f"(known: {', '.join(KINDS)})")
    rng = raw.get("range")
    rng = None if rng is None else "template" if str(rng).lower() == "template" else float(rng)
    name = str(raw.get("name", key.title()))
    default_target = {"blessing": "friendly", "nova": "all", "maelstrom": "all"}.get(kind,
                                                                                     "enemy")
    weapon = None
    if raw.get("weapon"):
        weapon = parse_weapon({"name": name, "range": rng if rng is not None else "-",
                               **raw["weapon"]})
    elif kind in WITCHFIRE_KINDS:  # a power that makes no to-hit roll (Shriek, Haemorrhage)
        weapon = Weapon(name, float(rng or 0), "X", None, "assault", 1)
    if weapon is not None:
        extra = {"psychic"} | ({"auto hit"} if kind in ("nova", "maelstrom") else set())
        weapon = replace(weapon, rules=weapon.rules | extra)
    return Power(key, name, kind, str(raw.get("discipline", "")),
                 int(raw.get("warp_charge", 1)), rng, str(raw.get("target", default_target)),
                 weapon, dict(raw.get("effect") or {}), raw.get("special"))


@lru_cache(maxsize=1)
def power_table() -> dict[str, Power]:
    """Every power of data/psychic.yaml by lower-case key."""
    data = package_data(DATA.read_text(encoding="utf-8")) or {}
    return {str(k).lower(): make_power(str(k).lower(), v)
            for k, v in (data.get("powers") or {}).items()}


def power(entry: str | dict[str, Any]) -> Power:
    """A power by name (data table), or an inline mapping with a `name`."""
    if isinstance(entry, dict):
        key = str(entry.get("name", "?")).lower()
        base = power_table().get(key)
        if base is not None and set(entry) <= {"name"}:
            return base
        return make_power(key, entry)
    key = str(entry).strip().lower()
    if key not in power_table():
        raise ProfileError(f"unknown psychic power {entry!r} (known: "
                           f"{', '.join(sorted(power_table()))})")
    return power_table()[key]


def powers_of(profile: Profile) -> list[Power]:
    return [power(p) for p in profile.powers]


def known_power(profile: Profile, name: str) -> Power | None:
    for p in powers_of(profile):
        if name.strip().lower() in (p.key, p.name.lower()):
            return p
    return None


def check_profile(profile: Profile) -> None:
    """A psyker knows at most as many powers as its mastery level (§8.11)."""
    if profile.powers and not profile.mastery:
        raise ProfileError(f"{profile.name or 'a model'} has psychic powers but no mastery "
                           "level (give it `ML` or the Psyker keyword)")
    if len(profile.powers) > profile.mastery:
        raise ProfileError(f"{profile.name or 'a psyker'} of mastery level {profile.mastery} "
                           f"knows {len(profile.powers)} powers (at most {profile.mastery})")
    for p in profile.powers:
        power(p)


# ---- exact odds (§8.11) ---------------------------------------------------------------------


def passes_test(dice: list[int], ld: int) -> bool:
    """The psychic test: 2D6 <= the psyker's own Ld; a double 1 always passes."""
    return sum(dice) <= ld or dice == [1, 1]


def perils(dice: list[int]) -> bool:
    """Perils of the Warp on a double 1 or a double 6."""
    return len(dice) == 2 and dice[0] == dice[1] and dice[0] in (1, 6)


def p_test(ld: int) -> Fraction:
    """P(the psychic test passes) = P(2D6 <= Ld), a double 1 included."""
    faces = list(itertools.product(range(1, 7), repeat=2))
    return Fraction(sum(passes_test(list(f), ld) for f in faces), len(faces))


P_PERILS = Fraction(2, 36)  # a double 1 or a double 6


def deny_modifier(caster_ml: int, denier_ml: int) -> int:
    """+1 with a psyker of equal or lower mastery, +2 with a higher one (not cumulative)."""
    if denier_ml <= 0:
        return 0
    return 2 if denier_ml > caster_ml else 1


def p_deny(modifier: int) -> Fraction:
    """P(Deny the Witch): D6 + modifier of 6 or more cancels the power."""
    return d6().at_least(6 - modifier)


def p_cast(ld: int, modifier: int | None = None) -> Fraction:
    """P(the power takes effect): the test passes and, against an enemy unit that denies
    with `modifier`, the deny fails."""
    return p_test(ld) * (1 if modifier is None else 1 - p_deny(modifier))


def shriek_wounds(ld: int) -> Dist:
    """Psychic Shriek: 3D6 - the target's Ld wounds (none below 0)."""
    return nd6(3).map(lambda v: max(0, v - ld))


def characteristic_passes(roll: int, value: int | None) -> bool:
    """A characteristic test (§10): D6 <= value; a 1 always passes, a 6 always fails."""
    return roll == 1 or (roll != 6 and value is not None and roll <= value)


def deny_options(board: Board, caster: str, unit: str) -> tuple[int, str | None]:
    """Best Deny the Witch for `unit` against `caster`: (modifier, the psyker or psychic hood
    wearer denying, None for the unit's own plain roll). A psychic hood denies for a unit
    within 6" of its wearer (§8.11)."""
    ml = board.profile(caster).mastery
    best: tuple[int, str | None] = (0, None)
    player = board.unit_player(unit)
    targets = board.unit_models(unit)
    for m, state in board.models.items():
        if not state.alive or not state.on_table or state.player != player:
            continue
        prof = board.profile(m)
        if not prof.mastery:
            continue
        ours = state.unit == unit
        hood = prof.has("psychic hood") and targets and min(
            board.gap(m, t) for t in targets) <= HOOD_RANGE + 1e-9
        if ours or hood:
            mod = deny_modifier(ml, prof.mastery)
            if mod > best[0]:
                best = (mod, m)
    return best


# ---- game state ----------------------------------------------------------------------------


def psykers(board: Board, unit: str) -> list[str]:
    return [m for m in board.unit_models(unit) if board.profile(m).mastery]


def refresh_warp_charge(game: Game) -> None:
    """Start of the player's turn: each psyker's Warp Charge becomes its mastery level (unused
    points do not carry over) (§2.4)."""
    for unit, state in game.units.items():
        if state.player != game.active_player:
            continue
        for m in psykers(game.board, unit):
            ml = game.board.profile(m).mastery
            game.board.model(m).status["warp_charge"] = ml
            game.emit("warp_charge", unit, model=m, warp_charge=ml, rule=RULE_TIMING)


def used(game: Game, unit: str, model: str) -> list[str]:
    return game.unit(unit).turn.setdefault("powers_used", {}).setdefault(model, [])


def can_cast_in_step(game: Game, step: str) -> bool:
    """Whether any psyker of the active player still has a power for this step that it can
    pay for (the powers step is passed over otherwise)."""
    for unit, state in game.units.items():
        if state.player != game.active_player:
            continue
        for m in psykers(game.board, unit):
            charge = game.board.model(m).status.get("warp_charge", 0)
            done = game.unit(unit).turn.get("powers_used", {}).get(m, [])
            if any(p.step == step and p.key not in done and p.warp_charge <= charge
                   for p in powers_of(game.board.profile(m))):
                return True
    return False


# ---- a cast --------------------------------------------------------------------------------


@dataclass
class Cast:
    """A legal cast: who, what, at whom (affected units), and the shooting analysis."""

    psyker: str
    unit: str
    power: Power
    target: str | None
    targets: list[str]
    report: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
