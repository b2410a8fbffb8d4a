"""The API takes readings as the command line does: id=value texts, and other shapes refused
clearly."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("chosen", ["wh40k6.A5=whole-model", ["wh40k6.A5=whole-model"],
                                    ("wh40k6.A5=whole-model", "wh40k6.A2=seen-only")])
def test_api_readings_take_id_value_texts_as_the_cli(chosen):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    readings = field.readings(chosen)
    assert readings["wh40k6.A5"] == "whole-model"
    assert readings == field.readings({"wh40k6.A5": "whole-model", **(
        {"wh40k6.A2": "seen-only"} if isinstance(chosen, tuple) else {})})


@pytest.mark.parametrize("chosen, says", [
    ("wh40k6.A5", "expected ID=VALUE"), (42, "expected a mapping of reading id to value"),
    ([1, 2], "expected a mapping of reading id to value"),
])
def test_api_readings_of_another_shape_are_refused_clearly(chosen, says):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    with pytest.raises(ValueError, match=says):
        field.readings(chosen)
