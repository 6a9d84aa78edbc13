"""Property tests of the checker: gold schedules are valid with zero gap, and single mutations that break
a limit are reported under the right violation name."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lexsym import solve
from lexsym.check.checker import ClaimedSchedule, check_schedules
from lexsym.testing import federal_cases

SINGLE_CAP = {"exceeds_single_claim", "per_item_exceeded"}


def _gold(solution) -> ClaimedSchedule:
    return ClaimedSchedule(
        solution.optimal.jurisdiction, [(c.asset_id, c.citation, c.amount) for c in solution.optimal.schedule]
    )


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(federal_cases(max_assets=6))
def test_gold_schedules_are_valid_and_optimal(case):
    solution = solve(case)
    (verdict,) = check_schedules(case, [_gold(solution)], solution=solution)
    assert verdict.valid, [v.message for v in verdict.violations]
    assert verdict.gap == 0 and not verdict.beats_optimum


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(federal_cases(max_assets=6), st.data())
def test_raising_a_claim_past_its_single_claim_cap_is_named(case, data):
    solution = solve(case)
    us = solution.result("US") if "US" in solution.allowable.jurisdictions else solution.jurisdictions[0]
    options = [(asset, v.citation, v.max_claim) for asset, values in us.valuation.items() for v in values]
    options = [o for o in options if o[2] < next(a.value for a in case.assets if a.id == o[0])]
    assume(options)
    asset, citation, cap = data.draw(st.sampled_from(sorted(options)))
    mutated = ClaimedSchedule(us.jurisdiction, [(asset, citation, cap + 1)])
    (verdict,) = check_schedules(case, [mutated], solution=solution)
    assert {v.name for v in verdict.violations} & SINGLE_CAP


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(federal_cases(max_assets=6), st.data())
def test_claiming_an_inapplicable_exemption_is_named(case, data):
    solution = solve(case)
    us = solution.result("US") if "US" in solution.allowable.jurisdictions else solution.jurisdictions[0]
    every = {f"11 U.S.C. § 522(d)({n})" for n in range(1, 10)}
    options = [
        (a.id, c)
        for a in case.assets
        for c in sorted(every - {m.citation for m in us.classification.get(a.id, [])})
    ]
    asset, citation = data.draw(st.sampled_from(options))
    (verdict,) = check_schedules(case, [ClaimedSchedule("US", [(asset, citation, 1)])], solution=solution)
    assert "not_eligible" in {v.name for v in verdict.violations}


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(500, 4000), st.sampled_from(["2020-06-01", "2023-06-01", "2026-06-01"]))
def test_a_second_vehicle_claim_is_named(cars, value, petition):
    from lexsym import parse_case
    from tests.clintests import build_case

    spec = {
        "petition_date": petition,
        "assets": [{"id": f"car{i}", "kind": "motor_vehicle", "value": value} for i in range(cars)],
    }
    case = parse_case(build_case(spec))
    claims = [(f"car{i}", "11 U.S.C. § 522(d)(2)", 1) for i in range(2)]
    (verdict,) = check_schedules(case, [ClaimedSchedule("US", claims)])
    assert "item_count_exceeded" in {v.name for v in verdict.violations}


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1000, 300000), st.integers(1000, 90000), st.integers(1, 17))
def test_breaking_a_mutual_exclusion_is_named(home, proceeds, months):
    import datetime as dt

    from lexsym import parse_case
    from tests.clintests import build_case

    petition = dt.date(2024, 6, 1)
    year, month = divmod(petition.year * 12 + petition.month - 1 - months, 12)
    sold = dt.date(year, month + 1, 1)
    spec = {
        "petition_date": str(petition),
        "domicile": [{"state": "AZ", "start": "2000-01-01"}],
        "assets": [
            {"id": "home", "kind": "real_property", "use": "residence", "value": home},
            {"id": "cash", "kind": "homestead_proceeds", "value": proceeds, "sold_on": str(sold)},
        ],
    }
    case = parse_case(build_case(spec))
    claims = [("home", "Ariz. Rev. Stat. § 33-1101(A)", 1), ("cash", "Ariz. Rev. Stat. § 33-1101(C)", 1)]
    (verdict,) = check_schedules(case, [ClaimedSchedule("AZ", claims)])
    assert "exclusion_broken" in {v.name for v in verdict.violations}
