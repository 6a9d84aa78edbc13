"""`lexsym.check.checker`: every violation kind is triggered by a schedule just past its limit, and a schedule
just inside it passes. Cases are built with tests/clintests.build_case (single filing, Oregon domicile,
petition 2023-06-01, federal 2022 figures: (d)(2) $4,450, (d)(3) $700 per item / $14,875, (d)(5) $1,475
+ up to $13,950 of unused (d)(1) $27,900)."""

from __future__ import annotations

import pytest

from lexsym import parse_case, solve
from lexsym.check.checker import ClaimedSchedule, check_schedules
from tests.clintests import build_case

D = {n: f"11 U.S.C. § 522(d)({n})" for n in (1, 2, 3, 4, 5)}


def _names(spec: dict, *schedules: ClaimedSchedule) -> list[set[str]]:
    case = parse_case(build_case(spec))
    verdicts = check_schedules(case, list(schedules))
    return [{v.name for v in verdict.violations} for verdict in verdicts]


def us(*claims) -> ClaimedSchedule:
    return ClaimedSchedule("US", list(claims))


CAR = {"assets": [{"id": "car", "kind": "motor_vehicle", "value": 5000}]}
SOFA = {"assets": [{"id": "sofa", "kind": "household_furnishing", "use": "personal", "value": 1000}]}
CASH = {
    "assets": [
        {"id": "cash", "kind": "cash", "value": 20000},
        {"id": "home", "kind": "real_property", "use": "residence", "value": 20000},
    ]
}


def test_single_claim_cap():
    inside, past = _names(CAR, us(("car", D[2], 4450)), us(("car", D[2], 4451)))
    assert inside == set()
    assert {"exceeds_single_claim", "aggregate_exceeded"} <= past


def test_per_item_cap():
    inside, past = _names(SOFA, us(("sofa", D[3], 700)), us(("sofa", D[3], 701)))
    assert inside == set() and "per_item_exceeded" in past


def test_aggregate_limit():
    goods = [{"id": f"item{i}", "kind": "household_good", "use": "personal", "value": 700} for i in range(22)]
    spec = {"assets": goods}
    inside = us(*[(f"item{i}", D[3], 700) for i in range(21)], ("item21", D[3], 175))
    past = us(*[(f"item{i}", D[3], 700) for i in range(21)], ("item21", D[3], 176))
    ok, bad = _names(spec, inside, past)
    assert ok == set() and bad == {"aggregate_exceeded"}


def test_item_count():
    spec = {
        "assets": [
            {"id": "car1", "kind": "motor_vehicle", "value": 2000},
            {"id": "car2", "kind": "motor_vehicle", "value": 2000},
        ]
    }
    one, two = _names(
        spec, us(("car1", D[2], 2000), ("car2", D[5], 1475)), us(("car1", D[2], 2000), ("car2", D[2], 2000))
    )
    assert one == set()
    assert "item_count_exceeded" in two


def test_fallback_limit_and_unused_base():
    inside, past = _names(CASH, us(("cash", D[5], 15425)), us(("cash", D[5], 15426)))
    assert inside == set() and "fallback_exceeded" in past
    # Claiming $20,000 of (d)(1) on the home leaves $7,900 unused: (d)(5) may then reach $9,375.
    shared_ok, shared_bad = _names(
        CASH, us(("home", D[1], 20000), ("cash", D[5], 9375)), us(("home", D[1], 20000), ("cash", D[5], 9376))
    )
    assert shared_ok == set() and shared_bad == {"fallback_exceeded"}


def test_value_of_the_asset():
    ok, bad = _names(
        CAR, us(("car", D[2], 4450), ("car", D[5], 550)), us(("car", D[2], 4450), ("car", D[5], 551))
    )
    assert ok == set() and "exceeds_value" in bad


def test_eligibility():
    ok, bad = _names(CAR, us(("car", D[5], 100)), us(("car", D[4], 100)))
    assert ok == set() and bad == {"not_eligible"}


def test_jurisdiction_must_be_allowable_and_single():
    az = {**CAR, "domicile": [{"state": "AZ", "start": "2000-01-01"}]}
    (wrong,) = _names(az, us(("car", D[2], 100)))
    assert "jurisdiction_not_allowable" in wrong
    (mixed,) = _names(CAR, us(("car", "Or. Rev. Stat. § 18.345(1)(d)", 100)))
    assert "other_jurisdiction" in mixed
    (inferred,) = _names(CAR, ClaimedSchedule(None, [("car", "Or. Rev. Stat. § 18.345(1)(d)", 3000)]))
    assert inferred == set()


def test_unknown_citation_and_bad_amounts():
    (unknown,) = _names(CAR, us(("car", "11 U.S.C. § 522(z)(9)", 100)))
    assert unknown == {"unknown_citation"}
    bad = _names(CAR, us(("car", D[2], -5)), us(("car", D[2], 12.5)), us(("car", D[2], "lots")))
    assert bad == [{"bad_amount"}] * 3


def test_a_claim_on_an_asset_the_case_does_not_have_is_a_violation():
    """Issue 18 survivor: dollars claimed in a made-up asset must not pass as a valid schedule."""
    case = parse_case(build_case(CAR))
    ghost, mixed = check_schedules(
        case, [us(("yacht moored in Monaco", D[5], 100)), us(("car", D[2], 100), ("yacht", D[5], 100))]
    )
    for verdict in (ghost, mixed):
        assert not verdict.valid
        assert [v.name for v in verdict.violations] == ["unknown_asset"]


def test_mutual_exclusion():
    spec = {
        "domicile": [{"state": "AZ", "start": "2000-01-01"}],
        "assets": [
            {"id": "home", "kind": "real_property", "use": "residence", "value": 100000},
            {"id": "cash", "kind": "homestead_proceeds", "value": 50000, "sold_on": "2023-01-10"},
        ],
    }
    a, c = "Ariz. Rev. Stat. § 33-1101(A)", "Ariz. Rev. Stat. § 33-1101(C)"
    one, both = _names(
        spec,
        ClaimedSchedule("AZ", [("home", a, 100000)]),
        ClaimedSchedule("AZ", [("home", a, 100000), ("cash", c, 50000)]),
    )
    assert one == set() and both == {"exclusion_broken"}


def test_group_cap_of_522p():
    spec = {
        "domicile": [{"state": "AZ", "start": "2000-01-01"}],
        "petition_date": "2024-06-01",
        "assets": [
            {
                "id": "home",
                "kind": "real_property",
                "use": "residence",
                "value": 500000,
                "acquired_on": "2023-01-01",
            }
        ],
    }
    a = "Ariz. Rev. Stat. § 33-1101(A)"
    ok, bad = _names(
        spec, ClaimedSchedule("AZ", [("home", a, 189050)]), ClaimedSchedule("AZ", [("home", a, 189051)])
    )
    assert ok == set() and "group_exceeded" in bad


def test_no_stacking_in_oregon():
    spec = {"assets": [{"id": "tv", "kind": "television", "use": "personal", "value": 3500}]}
    f, p = "Or. Rev. Stat. § 18.345(1)(f)", "Or. Rev. Stat. § 18.345(1)(p)"
    alone, stacked = _names(
        spec,
        ClaimedSchedule("OR", [("tv", f, 3000)]),
        ClaimedSchedule("OR", [("tv", f, 3000), ("tv", p, 400)]),
    )
    assert alone == set() and stacked == {"stacking_not_allowed"}


def test_joint_claims_must_split_between_the_debtors():
    goods = [
        {"id": f"g{i}", "kind": "household_good", "use": "personal", "value": 700, "owner": "debtor"}
        for i in range(22)
    ]
    spec = {"filing": "joint", "assets": goods}
    inside = us(*[(f"g{i}", D[3], 700) for i in range(21)], ("g21", D[3], 175))
    past = us(*[(f"g{i}", D[3], 700) for i in range(22)])
    ok, bad = _names(spec, inside, past)
    assert ok == set()
    assert bad == {"no_valid_split"}  # $15,400 fits the couple's $29,750 but not the debtor's own $14,875


def test_gold_schedules_check_valid_with_zero_gap():
    case = parse_case(build_case({**CASH, "filing": "joint"}))
    solution = solve(case)
    gold = ClaimedSchedule(
        solution.optimal.jurisdiction, [(c.asset_id, c.citation, c.amount) for c in solution.optimal.schedule]
    )
    (verdict,) = check_schedules(case, [gold], solution=solution)
    assert verdict.valid and verdict.gap == 0 and verdict.optimal


def test_suboptimal_schedule_reports_the_gap():
    case = parse_case(build_case(CASH))
    (verdict,) = check_schedules(case, [us(("home", D[1], 20000))])
    assert verdict.valid and not verdict.optimal
    assert verdict.gap == 9375 and verdict.gap_percent == pytest.approx(100 * 9375 / 29375)


def test_huge_amounts_are_bad_amounts_not_wrapped_integers():
    (verdict,) = _names(CAR, us(("car", D[2], 2**40)))
    assert verdict == {"bad_amount"}
    (summed,) = _names(CAR, us(("car", D[2], 2**31 - 10), ("car", D[5], 2**31 - 10)))
    assert "bad_amount" in summed


def test_unknown_jurisdiction_names_are_not_allowable_not_program_text():
    case = parse_case(build_case(CAR))
    for name in ("New Zealand", "x). #false.", "U.K."):
        (verdict,) = check_schedules(case, [ClaimedSchedule(name, [("car", D[2], 100)])])
        assert "jurisdiction_not_allowable" in {v.name for v in verdict.violations}


def test_item_classes_of_ors_18_362_one_long_gun():
    spec = {
        "assets": [
            {"id": "rifle", "kind": "rifle", "use": "personal", "value": 400},
            {"id": "shotgun", "kind": "shotgun", "use": "personal", "value": 400},
            {"id": "pistol", "kind": "pistol", "use": "personal", "value": 400},
        ]
    }
    f = "Or. Rev. Stat. § 18.362"
    one_each, two_long_guns = _names(
        spec,
        ClaimedSchedule("OR", [("rifle", f, 400), ("pistol", f, 400)]),
        ClaimedSchedule("OR", [("rifle", f, 400), ("shotgun", f, 400)]),
    )
    assert one_each == set() and two_long_guns == {"class_count_exceeded"}


def test_a_per_debtor_exclusion_binds_one_debtor_but_lets_spouses_take_each_side():
    b1, b2 = "Wis. Stat. § 815.18(3)(b)(1)", "Wis. Stat. § 815.18(3)(b)(2)"
    assets = [
        {"id": "tools", "kind": "tool", "use": "trade", "value": 15000},
        {"id": "shares", "kind": "business_interest", "closely_held": True, "value": 15000},
    ]
    single = {"domicile": [{"state": "WI", "start": "2000-01-01"}], "assets": assets}
    (both,) = _names(single, ClaimedSchedule("WI", [("tools", b1, 15000), ("shares", b2, 15000)]))
    assert both == {"exclusion_broken"}
    joint = {
        "domicile": [{"state": "WI", "start": "2000-01-01"}],
        "filing": "joint",
        "assets": [{**assets[0], "owner": "debtor"}, {**assets[1], "owner": "spouse"}],
    }
    (crossed,) = _names(joint, ClaimedSchedule("WI", [("tools", b1, 15000), ("shares", b2, 15000)]))
    assert crossed == set()
    # Both assets the debtor's alone: only the debtor can claim them, on both sides; no split helps.
    debtors_only = {**joint, "assets": [{**assets[0], "owner": "debtor"}, {**assets[1], "owner": "debtor"}]}
    (one_debtor,) = _names(debtors_only, ClaimedSchedule("WI", [("tools", b1, 15000), ("shares", b2, 15000)]))
    assert one_debtor == {"no_valid_split"}


def test_a_composite_system_of_spouses_under_two_laws_is_checked_as_one_schedule():
    case = parse_case(
        {
            "petition_date": "2025-06-02",
            "filing": "joint",
            "domicile": [{"state": "AZ", "start": "2015-01-01"}],
            "spouse_domicile": [{"state": "IL", "start": "2015-01-01"}],
            "assets": [
                {
                    "id": "car",
                    "description": "car",
                    "kind": "motor_vehicle",
                    "use": "personal",
                    "value": 2000,
                },
                {
                    "id": "ira",
                    "description": "the spouse's IRA",
                    "kind": "retirement_account",
                    "plan": "irc_408",
                    "owner": "spouse",
                    "value": 50000,
                },
            ],
        }
    )
    solution = solve(case)
    assert solution.optimal.jurisdiction == "AZ+IL"
    totals: dict[tuple[str, str], int] = {}
    for claim in solution.optimal.schedule:
        key = (claim.asset_id, claim.citation)
        totals[key] = totals.get(key, 0) + claim.amount
    gold = [(a, c, v) for (a, c), v in totals.items()]
    arizona_on_the_ira = [*gold, ("ira", "Ariz. Rev. Stat. § 33-1126(B)", 1)]
    ok, wrong_law, arizona_only = check_schedules(
        case,
        [
            ClaimedSchedule("AZ+IL", gold),
            ClaimedSchedule("AZ+IL", arizona_on_the_ira),
            ClaimedSchedule("AZ", gold),
        ],
        solution=solution,
    )
    assert ok.valid and ok.gap == 0
    assert not wrong_law.valid  # the IRA is the spouse's, who claims under Illinois law
    assert {v.name for v in arizona_only.violations} >= {"jurisdiction_not_allowable", "other_jurisdiction"}


def test_a_nul_in_an_answer_string_is_judged_not_a_clingo_abort():
    """Issue 19 #1 (found by issue 18's stronger property test): a NUL cut clingo's program text inside a
    "§" and clingo aborted the whole process on the half character in its error message."""
    case = parse_case(build_case(CAR))
    (verdict,) = check_schedules(case, [us(("car\x00", D[5] + "\x00", 100), ("car", D[2] + "\x00", 5))])
    assert not verdict.valid
    assert {v.name for v in verdict.violations} <= {"unknown_asset", "unknown_citation", "not_eligible"}
