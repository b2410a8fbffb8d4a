"""`battlesight phases RULESET [--json]`: the phases, steps and actions of a ruleset's turn."""

from __future__ import annotations

from battlesight.cli.common import print_json
from battlesight.cli.errors import UsageError
from battlesight.rulesets.core.ruleset import CORE_ACTIONS, get_ruleset


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="the phase and step sequence of a ruleset")
    parser.add_argument("ruleset", metavar="RULESET", help="ruleset id, e.g. wh40k6")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args) -> int:
    try:
        ruleset = get_ruleset(args.ruleset)
    except KeyError as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    phases = ruleset.describe_phases()
    if args.json:
        print_json({"ruleset": ruleset.id, "name": ruleset.name, "phases": phases,
                    "core_actions": list(CORE_ACTIONS)})
        return 0
    print(f"{ruleset.name} ({ruleset.id}): one player turn")
    for i, phase in enumerate(phases, 1):
        rule = f"  [{phase['rule']}]" if phase["rule"] else ""
        print(f"{i}. {phase['phase']}{rule}")
        if phase["doc"]:
            print(f"   {phase['doc']}")
        for step in phase["steps"]:
            acts = ", ".join(step["actions"])
            acts = f"actions {acts}" if acts else "automatic, no actions"
            print(f"   - {step['step']}: {acts}")
            if step["doc"]:
                print(f"     {step['doc']}")
    print(f"any time: {', '.join(CORE_ACTIONS)}")
    return 0
