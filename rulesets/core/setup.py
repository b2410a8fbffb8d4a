"""How a system sets up terrain for a random layout: table size, terrain kinds and their
weights, piece sizes, pieces per area or on the table, gaps and edge margins, and the rules data
each kind of piece gets. Each ruleset package declares its own (`Ruleset.setup_rules`);
`battlesight.analysis.generate` places pieces by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SetupRules:
    """A system's terrain set-up (`rule` says where the values come from).

    kinds: terrain kind -> weight; extent: (smallest, largest) plan size of a piece (inches);
    per_area: pieces per 2' x 2' area, or count: pieces on the table (inclusive ranges);
    min_gap: pieces are more than this apart; edge_margin: no piece within this of an edge;
    data: the scene keys each kind of piece gets; roll_map: the deployment map is rolled among
    the system's maps when none is given (else the first map is used).
    """

    ruleset: str
    table: tuple[float, float]
    kinds: dict[str, float]
    extent: tuple[float, float]
    per_area: tuple[int, int] | None = None
    count: tuple[int, int] | None = None
    min_gap: float = 3.0
    edge_margin: float = 0.0
    data: dict[str, dict] = field(default_factory=dict)
    rule: str = ""
    roll_map: bool = False
