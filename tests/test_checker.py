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


# --- issue 18 (second sweep): survivors of the mutation sweep of encodings/check.lp ---------------------


AZ_HOMESTEAD = {
    "domicile": [{"state": "AZ", "start": "2000-01-01"}],
    "assets": [
        {"id": "home", "kind": "real_property", "use": "residence", "value": 100000},
        {"id": "cash", "kind": "homestead_proceeds", "value": 50000, "sold_on": "2023-01-10"},
    ],
}


WI_TRADE = {
    "domicile": [{"state": "WI", "start": "2000-01-01"}],
    "assets": [
        {"id": "tools", "kind": "tool", "use": "trade", "value": 15000},
        {"id": "shares", "kind": "business_interest", "closely_held": True, "value": 15000},
    ],
}


def test_a_zero_dollar_claim_is_no_claim():
    """A $0 line claims nothing, so it cannot break eligibility or the one-jurisdiction rule (check.lp:22,
    `V > 0`): models often list every exemption they considered, with 0 against those they do not use."""
    ineligible_zero, foreign_zero = _names(
        CAR,
        us(("car", D[2], 100), ("car", D[4], 0)),
        us(("car", D[2], 100), ("car", "Or. Rev. Stat. § 18.345(1)(d)", 0)),
    )
    assert ineligible_zero == set() and foreign_zero == set()


@pytest.mark.parametrize(
    ("spec", "system", "first", "second"),
    [
        # Ariz. Rev. Stat. § 33-1101(A) and (C) exclude each other (check.lp:85).
        (
            "AZ",
            "AZ",
            ("home", "Ariz. Rev. Stat. § 33-1101(A)", 100000),
            ("cash", "Ariz. Rev. Stat. § 33-1101(C)", 50000),
        ),
        # Wis. Stat. § 815.18(3)(b)(1) and (2) exclude each other for one debtor (check.lp:90).
        (
            "WI",
            "WI",
            ("tools", "Wis. Stat. § 815.18(3)(b)(1)", 15000),
            ("shares", "Wis. Stat. § 815.18(3)(b)(2)", 15000),
        ),
    ],
)
def test_either_side_of_an_exclusion_may_be_claimed_alone(spec, system, first, second):
    """Claiming both sides of an exclusion breaks it; claiming either alone does not: the rule needs a claim
    under each side of the pair."""
    case = {"AZ": AZ_HOMESTEAD, "WI": WI_TRADE}[spec]
    alone = _names(case, ClaimedSchedule(system, [first]), ClaimedSchedule(system, [second]))
    assert alone == [set(), set()]


def test_a_stacking_bar_binds_only_answers_under_its_own_law():
    """ORS 18.345's bar on stacking is Oregon law: an answer electing § 522(d) that cites two Oregon
    exemptions on one asset breaks the one-jurisdiction rule, not Oregon's stacking rule (check.lp:104
    joins the bar to the answer's own jurisdiction)."""
    spec = {"assets": [{"id": "tv", "kind": "television", "use": "personal", "value": 3500}]}
    f, p = "Or. Rev. Stat. § 18.345(1)(f)", "Or. Rev. Stat. § 18.345(1)(p)"
    (federal,) = _names(spec, us(("tv", f, 3000), ("tv", p, 400)))
    assert federal == {"other_jurisdiction"}


def test_a_claim_past_the_per_item_cap_is_named_once():
    """Past a per-item cap the claim is named per_item_exceeded only: the single-claim rule gives way to it
    (check.lp:69), so one fault is not reported twice."""
    (past,) = _names(SOFA, us(("sofa", D[3], 701)))
    assert past == {"per_item_exceeded"}


def test_the_fallback_may_use_all_of_its_cap_when_the_base_leaves_exactly_that_much():
    """(d)(5) adds at most $13,950 of what (d)(1) leaves unused. Claiming $13,950 of (d)(1) leaves exactly
    $13,950: the fallback room is then the cap itself (check.lp:78, R <= F), one dollar more is too much."""
    inside, past = _names(
        CASH,
        us(("home", D[1], 13950), ("cash", D[5], 1475 + 13950)),
        us(("home", D[1], 13950), ("cash", D[5], 1475 + 13951)),
    )
    assert inside == set()
    assert "fallback_exceeded" in past


def test_a_spouse_with_no_interest_in_an_item_adds_no_per_item_cap():
    """(d)(3)'s $700 per item is each debtor's, on their own interest. A jointly held $1 item splits as $1
    for the debtor and $0 for the spouse (interests.lp rounds the halves), so only the debtor's $700 caps a
    claim on it, not 2 x $700 (check.lp:36 counts the pools of claimants whose interest is above 0)."""
    spec = {
        "filing": "joint",
        "assets": [
            {"id": "sofa", "kind": "household_furnishing", "use": "personal", "value": 1, "owner": "joint"}
        ],
    }
    case = parse_case(build_case(spec))
    (verdict,) = check_schedules(case, [us(("sofa", D[3], 1000))])
    per_item = [v.arguments for v in verdict.violations if v.name == "per_item_exceeded"]
    assert per_item == [("sofa", "usc11_522_d_3", 1000, 700)]


def test_a_broken_exclusion_is_reported_once_even_for_one_dollar():
    """Claiming both sides of Ariz. Rev. Stat. § 33-1101(A)/(C) is one broken rule, named once (check.lp:86
    orders the pair), and a $1 claim on one side is a claim like any other (check.lp:25, T > 0)."""
    a, c = "Ariz. Rev. Stat. § 33-1101(A)", "Ariz. Rev. Stat. § 33-1101(C)"
    case = parse_case(build_case(AZ_HOMESTEAD))
    both, one_dollar = check_schedules(
        case,
        [
            ClaimedSchedule("AZ", [("home", a, 100000), ("cash", c, 50000)]),
            ClaimedSchedule("AZ", [("home", a, 100000), ("cash", c, 1)]),
        ],
    )
    assert [v.name for v in both.violations] == ["exclusion_broken"]
    assert [v.name for v in one_dollar.violations] == ["exclusion_broken"]


def test_parcels_are_weighed_by_their_acreage_against_the_florida_half_acre():
    """Fla. Const. art. X, § 4(a)(1): parcels claimed together within city limits may total half an acre,
    weighed in hundredths of an acre (check.lp:97-98: a weighed parcel counts its weight only, not also 1)."""
    fl = "Fla. Const. art. X, § 4(a)(1)"
    spec = {
        "domicile": [{"state": "FL", "start": "2000-01-01"}],
        "assets": [
            {"id": p, "kind": "real_property", "use": "residence", "value": v, "acres": a}
            | {"within_city_limits": True}
            for p, v, a in (("house", 300000, 0.25), ("yard", 50000, 0.25), ("lot", 50000, 0.01))
        ],
    }
    case = parse_case(build_case(spec))
    half_acre, past = check_schedules(
        case,
        [
            ClaimedSchedule("FL", [("house", fl, 300000), ("yard", fl, 50000)]),
            ClaimedSchedule("FL", [("house", fl, 300000), ("yard", fl, 50000), ("lot", fl, 50000)]),
        ],
    )
    assert half_acre.valid
    assert [(v.name, v.arguments) for v in past.violations] == [
        ("class_count_exceeded", ("fl_const_x_4_a_1", "municipal_acres", 51, 50))
    ]


def test_one_dollar_claimed_on_a_worthless_asset_exceeds_its_value():
    """The smallest possible over-claim, $1 on a $0 car, is named exceeds_value (check.lp:24 totals every
    asset claimed at all, T > 0), beside the single-claim cap that the value also bounds."""
    case = parse_case(build_case({"assets": [{"id": "car", "kind": "motor_vehicle", "value": 0}]}))
    (verdict,) = check_schedules(case, [us(("car", D[2], 1))])
    assert ("exceeds_value", ("car", 1, 0)) in [(v.name, v.arguments) for v in verdict.violations]


def test_a_spouse_s_per_item_cap_does_not_reach_the_other_spouse_s_item():
    """In a joint case each debtor's (d)(3) pool caps items at $700 on that debtor's own interest; a sofa
    only the debtor owns takes the debtor's $700, not both spouses' (check.lp:36 joins each pool to the
    claimant who draws on it)."""
    spec = {
        "filing": "joint",
        "assets": [{**SOFA["assets"][0], "owner": "debtor"}],
    }
    inside, past = _names(spec, us(("sofa", D[3], 700)), us(("sofa", D[3], 701)))
    assert inside == set()
    assert past == {"per_item_exceeded"}


def test_limits_are_those_of_the_answers_own_system_not_of_a_composite_beside_it():
    """A joint case open to § 522(d) for both spouses (paragraph 2) and to the composite PA+US (paragraph
    3: the debtor under Pennsylvania law, the spouse, domiciled abroad, under § 522(d)). An answer electing
    US has both spouses' (d)(2), (d)(3) and (d)(5) pools; the composite's, where only the spouse draws on
    § 522(d), must not cap it (check.lp:66-83 take every limit from the answer's jurisdiction)."""
    spec = {
        "petition_date": "2025-06-02",
        "filing": "joint",
        "domicile": [{"state": "PA", "start": "2015-01-01"}],
        "spouse_domicile": [{"state": "FOREIGN", "start": "2015-01-01"}],
        "assets": [
            {"id": i, "description": i, "kind": k, "value": v, "owner": o}
            for i, k, v, o in (
                ("car", "motor_vehicle", 5000, "debtor"),
                ("van", "motor_vehicle", 5000, "spouse"),
                ("savings", "cash", 20000, "debtor"),
                ("deposit", "cash", 20000, "spouse"),
            )
        ]
        + [{**SOFA["assets"][0], "description": "sofa", "value": 900, "owner": "debtor"}],
    }
    case = parse_case(spec)
    solution = solve(case)
    assert solution.allowable.jurisdictions == ["PA+US", "US"]
    vehicles = us(("car", D[2], 5000), ("van", D[2], 5000))
    cash = us(("savings", D[5], 17475), ("deposit", D[5], 17475))
    sofa = us(("sofa", D[3], 700))
    for verdict in check_schedules(case, [vehicles, cash, sofa], solution=solution):
        assert verdict.valid, [v.name for v in verdict.violations]


def test_a_broken_per_debtor_exclusion_is_reported_once():
    """A single debtor claiming both sides of Wis. Stat. § 815.18(3)(b)(1)/(2) breaks one rule, named once
    (check.lp:91 orders the pair, which parameters.lp states both ways)."""
    b1, b2 = "Wis. Stat. § 815.18(3)(b)(1)", "Wis. Stat. § 815.18(3)(b)(2)"
    case = parse_case(build_case(WI_TRADE))
    (verdict,) = check_schedules(case, [ClaimedSchedule("WI", [("tools", b1, 15000), ("shares", b2, 15000)])])
    assert [v.name for v in verdict.violations] == ["exclusion_broken"]


def test_a_fallback_overrun_is_reported_once_against_the_smaller_room():
    """With no (d)(1) claim the base leaves all $27,900 unused, so (d)(5)'s room is its own $13,950 cap. A
    $30,000 claim is over by $28,525: one fallback_exceeded, against $13,950 (check.lp:78-79 give the
    smaller of the cap and the unused base, never both)."""
    spec = {"assets": [{"id": "cash", "kind": "cash", "value": 40000}, CASH["assets"][1]]}
    case = parse_case(build_case(spec))
    # And with $20,000 of (d)(1) claimed, $7,900 is unused: the room is $7,900, not also $13,950.
    cap, unused = check_schedules(
        case, [us(("cash", D[5], 30000)), us(("home", D[1], 20000), ("cash", D[5], 1475 + 14000))]
    )
    for verdict, room, over in ((cap, 13950, 28525), (unused, 7900, 14000)):
        fallback = [v.arguments for v in verdict.violations if v.name == "fallback_exceeded"]
        assert fallback == [("usc11_522_d_5", "usc11_522_d_1", over, room)]


def test_the_oregon_wildcard_alone_on_an_asset_is_no_stacking():
    """ORS 18.345(1)(p) may not raise another exemption's amount, so it may not share an asset with one;
    claimed alone on an asset it stacks on nothing (check.lp:104 needs a second, different exemption)."""
    spec = {"assets": [{"id": "tv", "kind": "television", "use": "personal", "value": 3500}]}
    (alone,) = _names(spec, ClaimedSchedule("OR", [("tv", "Or. Rev. Stat. § 18.345(1)(p)", 400)]))
    assert alone == set()


def test_the_wildcard_s_own_amount_is_never_a_fallback_overrun():
    """(d)(5) has $1,475 of its own; only a claim past it draws on unused (d)(1). With (d)(1) over-claimed
    (nothing unused, room -$2,100), $1,475 or less of (d)(5) is still no fallback_exceeded, and $1,476 is
    (check.lp:81, T > L)."""
    spec = {"assets": [CASH["assets"][0], {**CASH["assets"][1], "value": 40000}]}
    at_own, below_own, past_own = _names(
        spec, *(us(("home", D[1], 30000), ("cash", D[5], amount)) for amount in (1475, 1000, 1476))
    )
    assert at_own == below_own == {"aggregate_exceeded", "exceeds_single_claim"}
    assert past_own == {"aggregate_exceeded", "exceeds_single_claim", "fallback_exceeded"}


def test_the_522p_cap_counts_only_the_homestead_not_other_claims():
    """11 U.S.C. § 522(p) caps the homestead acquired within 1,215 days; a car claimed beside it under
    Ariz. Rev. Stat. § 33-1125(8) is outside the group and does not count against it (check.lp:101)."""
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
            },
            {"id": "car", "kind": "motor_vehicle", "use": "personal", "value": 5000},
        ],
    }
    home, car = (
        ("home", "Ariz. Rev. Stat. § 33-1101(A)", 189050),
        ("car", "Ariz. Rev. Stat. § 33-1125(8)", 5000),
    )
    (both,) = _names(spec, ClaimedSchedule("AZ", [home, car]))
    assert both == set()


def test_a_claim_one_dollar_past_a_vehicle_cap_needs_a_second_vehicle_claim():
    """(d)(2) gives each joint debtor one vehicle claim of $4,450. $4,450 on the couple's car is one claim;
    $4,451 takes both spouses' (ceil(4451 / 4450) = 2, check.lp:41), so a $1 claim on a second car is a
    third vehicle claim."""
    spec = {
        "filing": "joint",
        "assets": [
            {"id": "car1", "kind": "motor_vehicle", "value": 10000, "owner": "joint"},
            {"id": "car2", "kind": "motor_vehicle", "value": 3000, "owner": "debtor"},
        ],
    }
    one_claim, two_claims = _names(
        spec, us(("car1", D[2], 4450), ("car2", D[2], 1)), us(("car1", D[2], 4451), ("car2", D[2], 1))
    )
    assert one_claim == set()
    assert two_claims == {"item_count_exceeded"}


def test_in_a_composite_the_fallback_room_is_the_composite_s_own():
    """Under PA+US only the spouse draws on § 522(d): (d)(5) has the spouse's $1,675 and at most $15,800
    from unused (d)(1). A $34,000 claim is one fallback overrun against that $15,800, not also against the
    $31,575 of (d)(1) left unused, which only the couple's US pools could reach (check.lp:79)."""
    spec = {
        "petition_date": "2025-06-02",
        "filing": "joint",
        "domicile": [{"state": "PA", "start": "2015-01-01"}],
        "spouse_domicile": [{"state": "FOREIGN", "start": "2015-01-01"}],
        "assets": [
            {"id": "deposit", "description": "deposit", "kind": "cash", "value": 60000, "owner": "spouse"}
        ],
    }
    case = parse_case(spec)
    (verdict,) = check_schedules(case, [ClaimedSchedule("PA+US", [("deposit", D[5], 34000)])])
    fallback = [v.arguments for v in verdict.violations if v.name == "fallback_exceeded"]
    assert fallback == [("usc11_522_d_5", "usc11_522_d_1", 32325, 15800)]
