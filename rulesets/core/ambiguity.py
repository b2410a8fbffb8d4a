"""A rules ambiguity the code does not switch: where the rulebook can be read more than one
way, the readings, the one the system's package implements and why no other can be chosen.
Each ruleset declares its own (`Ruleset.ambiguities`) beside the switchable ones
(`Ruleset.readings`, `core.readings`), so the docs list every register row one way or the
other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ambiguity:
    """One open question of a system's rules.

    id: short stable key (unique within the system); rule: the section it concerns; question:
    what is unclear; readings: the possible answers, each one sentence; chosen: the reading
    implemented (one of `readings`); code: where the choice is made (module, constant);
    because: why it is not a switchable reading (`core.readings.Reading`).
    """

    id: str
    rule: str
    question: str
    readings: tuple[str, ...]
    chosen: str
    code: str = ""
    because: str = ""

    def __post_init__(self) -> None:
        if len(self.readings) < 2:
            raise ValueError(f"ambiguity {self.id!r}: an ambiguity has at least two readings")
        if self.chosen not in self.readings:
            raise ValueError(f"ambiguity {self.id!r}: the chosen reading is not one of its "
                             "readings")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "rule": self.rule, "question": self.question,
                "readings": list(self.readings), "chosen": self.chosen, "code": self.code,
                "because": self.because}
