"""Fuzz every command with mutated bundled scenes and actions files (hypothesis, a bounded
number of examples): each run exits 0 or 2, lets no exception or traceback out, answers in
time and leaves no temporary file, nor any output when it failed. The long run is
`tests/fuzz/run_fuzz.py --minutes N`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.mutate import COMMANDS, fuzz_once

#: seconds one run may take (the slowest, play, takes about 2 s on the examples)
TIME_BOUND = 30.0
#: a fixed (derandomized) sample per command, small enough for every test run; the long search
#: for new failures is run_fuzz.py's
EXAMPLES_PER_COMMAND = {"los": 20, "shoot": 15, "render": 12, "export": 20, "analyze": 20,
                        "play": 12}


@pytest.mark.parametrize("command", COMMANDS)
def test_fuzzed_inputs_exit_0_or_2_without_traceback(command):
    @settings(max_examples=EXAMPLES_PER_COMMAND[command], deadline=None, database=None,
              derandomize=True, suppress_health_check=list(HealthCheck))
    @given(rng=st.randoms(use_true_random=False))
    def check(rng):
        outcome = fuzz_once(rng, command, timeout=TIME_BOUND, max_actions=8)
        detail = (f"{outcome.argv[0]} on a mutated {outcome.example} -> {outcome.code} in "
                  f"{outcome.seconds:.1f} s\n{outcome.traceback or outcome.stderr[-1500:]}\n"
                  f"input:\n{outcome.input[:3000]}")
        assert not outcome.crashed, detail
        assert not outcome.hung and outcome.seconds < TIME_BOUND, detail
        assert outcome.code in (0, 2), detail
        assert not outcome.temp_left and not outcome.written_on_failure, detail

    check()
