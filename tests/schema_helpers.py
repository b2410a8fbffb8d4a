"""JSON Schema helpers for tests: load a bundled schema (battlesight/schemas/NAME.schema.json,
its system ids filled from the registry by `battlesight.reports.schemas`) and validate data
against it, with every violation in the failure message. A schema may refer to another by its
file name (`{"$ref": "scene.schema.json"}`): every bundled schema is in the registry the
validator resolves them from."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

import jsonschema
from referencing import Registry, Resource

from battlesight.reports.schemas import schema as bundled


@cache
def schema(name: str) -> dict[str, Any]:
    """The bundled schema `name` ('scene', 'shoot', 'analyze', 'los', ...) as the package
    loads it, checked to be a valid Draft 2020-12 schema."""
    loaded = bundled(name)
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


@cache
def registry() -> Registry:
    """Every bundled schema under its $id, so that references between them resolve."""
    folder = files("battlesight").joinpath("schemas")
    names = sorted(p.name.removesuffix(".schema.json") for p in folder.iterdir()
                   if p.name.endswith(".schema.json"))
    loaded = [schema(n) for n in names]
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in loaded)


def as_json(data: Any) -> Any:
    """Data as JSON sees it (tuples become lists, mapping keys strings), as a command's
    --json output or a YAML scene read by a JSON tool would be."""
    return json.loads(json.dumps(data))


def errors(name: str, data: Any) -> list[str]:
    """Every violation of schema `name` by `data`, as 'path: message' lines."""
    validator = jsonschema.Draft202012Validator(schema(name), registry=registry())
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
            for e in sorted(validator.iter_errors(as_json(data)), key=lambda e: e.path)]


def assert_valid(name: str, data: Any) -> None:
    """Fail with every violation when `data` does not validate against schema `name`."""
    found = errors(name, data)
    assert not found, f"{name}.schema.json: {len(found)} violation(s):\n" + "\n".join(found[:20])
