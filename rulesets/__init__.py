"""Rules: the shared core (`rulesets.core`) and one package per game system."""
