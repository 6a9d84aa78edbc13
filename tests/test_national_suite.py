"""The `national` suite samples every encoded state (issue 17), and its cases solve end to end there."""

from __future__ import annotations

from collections import Counter

import lexsym
from lexsym.generate.sampling import sample_scenario
from lexsym.generate.suites import SUITE_NAMES, load_suite
from lexsym.law.rules import encoded_states, rules_root
from lexsym.law.systems import system_parts
from lexsym.law.vocabulary import state_of


def test_national_covers_every_encoded_state_and_stays_out_of_the_nine():
    datasets = load_suite("national")
    assert [d.config.terminal_task.value for d in datasets] == ["AE", "EC", "EV", "NA", "OE"]
    states = set(datasets[0].config.state_jurisdictions)
    assert states == set(encoded_states(rules_root()))
    assert "national" not in SUITE_NAMES  # --all-suites stays OpenExempt's nine


def test_national_cases_land_in_every_state_and_solve_there():
    config = load_suite("national")[0].config
    landed: Counter[str] = Counter()
    for index in range(60):
        case = sample_scenario(config, index).case
        solution = lexsym.solve(case)
        for code in solution.allowable.jurisdictions:
            for part in system_parts(code):  # California's systems land in California
                landed[state_of(part)] += 1
        assert solution.optimal.non_exempt_total >= 0
        assert all(result.statutes_encoded for result in solution.jurisdictions if result.allowable)
    assert set(config.state_jurisdictions) <= set(landed), landed
