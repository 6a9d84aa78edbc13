"""lexsym.solve as a whole: determinism, the explicit-list override, what-if tables, tie-breaking, EV."""

from __future__ import annotations

import pytest

from lexsym import parse_case, solve
from lexsym._util.errors import InputError
from lexsym.law.whatif import parse_table
from tests.clintests import build_case, eligible_citations, max_claims, solve_spec

D1, D2, D3, D5 = (f"11 U.S.C. § 522(d)({n})" for n in (1, 2, 3, 5))

COMPETING = {
    "petition_date": "2023-06-01",
    "filing": "joint",
    "assets": [
        {"id": "home", "kind": "real_property", "use": "residence", "value": 90000},
        {"id": "cash", "kind": "cash", "value": 20000},
        {"id": "car1", "kind": "motor_vehicle", "value": 7000},
        {"id": "car2", "kind": "motor_vehicle", "value": 3000, "owner": "spouse"},
        {"id": "sofa", "kind": "household_furnishing", "use": "personal", "value": 2600},
    ],
}


def test_schedule_is_the_same_on_every_run_and_in_any_asset_order():
    first = solve_spec(COMPETING)
    again = solve_spec(COMPETING)
    reordered = solve_spec({**COMPETING, "assets": list(reversed(COMPETING["assets"]))})
    assert first.optimal == again.optimal == reordered.optimal


def test_each_claim_is_justified_by_its_rule_and_citation():
    solution = solve_spec(COMPETING)
    assert solution.optimal.schedule
    for claim in solution.optimal.schedule:
        assert claim.justification.startswith(claim.citation)
        assert (
            "amounts in force from 2022-04-01" in claim.justification
            or "no dollar cap" in claim.justification
        )


def test_schedule_adds_up_to_the_non_exempt_total():
    solution = solve_spec(COMPETING)
    us = solution.result("US")
    assert us.exempt_total == sum(c.amount for c in us.schedule)
    assert us.non_exempt_total == solution.total_value - us.exempt_total
    assert us.non_exempt_total == sum(us.non_exempt_by_asset.values())


def test_wildcard_reports_what_it_took_from_unused_residence_exemption():
    solution = solve_spec({"assets": [{"id": "cash", "kind": "cash", "value": 20000}]})
    us = solution.result("US")
    assert us.non_exempt_total == 20000 - (1475 + 13950)
    assert us.fallback_used == {D5: 13950}


def test_listed_citations_replace_the_rules():
    spec = {
        "assets": [
            {
                "id": "car",
                "kind": "motor_vehicle",
                "value": 3000,
                "applicable_exemptions": ["11 usc sec. 522 (d) (3)"],
            }
        ]
    }
    us = solve_spec(spec).result("US")
    assert eligible_citations(us, "car") == {D3}
    assert us.classification["car"][0].basis == "listed"
    assert max_claims(us, "car") == {D3: 700}


def test_an_empty_list_means_no_exemption_applies():
    spec = {"assets": [{"id": "car", "kind": "motor_vehicle", "value": 3000, "applicable_exemptions": []}]}
    us = solve_spec(spec).result("US")
    assert eligible_citations(us, "car") == set()
    assert us.non_exempt_total == 3000


def test_a_what_if_table_replaces_the_statute_figures():
    table = parse_table(
        {
            "name": "lower (d)(2)",
            "exemptions": [
                {
                    "citation": D2,
                    "jurisdiction": "US",
                    "single": {"limit": 1000, "item_count": 1},
                    "joint": {"limit": 2000, "item_count": 2},
                }
            ],
        }
    )
    spec = {"assets": [{"id": "car", "kind": "motor_vehicle", "value": 3000, "applicable_exemptions": [D2]}]}
    assert solve_spec(spec).result("US").non_exempt_total == 0
    assert solve_spec(spec, tables=[table]).result("US").non_exempt_total == 2000


def test_a_table_figure_binds_a_joint_case_as_one_household_pool():
    """Issue 18 survivor: a table's exemption draws from the household pool only; the statute's per-debtor
    pools (11 U.S.C. § 522(m) doubling) are not its, or both spouses would claim it without any cap."""
    d1 = "11 U.S.C. § 522(d)(1)"
    table = parse_table(
        {
            "name": "a $10,000 couple's homestead",
            "exemptions": [
                {"citation": d1, "jurisdiction": "US", "single": {"limit": 6000}, "joint": {"limit": 10000}}
            ],
        }
    )
    home = {"id": "home", "kind": "real_property", "use": "residence", "value": 70000}
    spec = {"filing": "joint", "assets": [{**home, "applicable_exemptions": [d1]}]}
    assert solve_spec(spec).result("US").non_exempt_total == 70000 - 2 * 27900  # the statute: per debtor
    with_table = solve_spec(spec, tables=[table]).result("US")
    assert with_table.non_exempt_total == 60000
    assert max_claims(with_table, "home") == {d1: 10000}  # EV: the most one asset can take is the table's


def test_a_table_can_opt_a_state_back_in():
    table = parse_table({"name": "AZ permits (d)", "opt_out": {"AZ": False}})
    spec = {"domicile": [{"state": "AZ", "start": "2000-01-01"}]}
    assert solve_spec(spec).allowable.jurisdictions == ["AZ"]
    assert solve_spec(spec, tables=[table]).allowable.jurisdictions == ["AZ", "US"]


def test_table_errors_name_the_field():
    with pytest.raises(InputError, match=r"exemptions\[0\]\.jurisdiction"):
        parse_table({"name": "bad", "exemptions": [{"citation": D2, "jurisdiction": "Atlantis"}]})


def test_a_tie_between_jurisdictions_goes_to_the_federal_exemptions():
    # With no assets both Pennsylvania and the federal exemptions leave nothing non-exempt.
    solution = solve_spec({"domicile": [{"state": "PA", "start": "2000-01-01"}]})
    assert [r.non_exempt_total for r in solution.jurisdictions] == [0, 0]
    assert solution.optimal.jurisdiction == "US"


def test_jurisdictions_without_encoded_statutes_are_reported():
    solution = solve_spec(
        {
            "domicile": [{"state": "NM", "start": "2000-01-01"}],
            "assets": [{"id": "cash", "kind": "cash", "value": 500}],
        }
    )
    assert solution.result("NM").statutes_encoded is False
    assert solution.result("NM").non_exempt_total == 500
    assert any(w.startswith("NM: no exemption statutes") for w in solution.warnings)
    assert solution.optimal.jurisdiction == "US"


def test_ev_never_exceeds_the_asset_value_or_what_na_can_reach():
    solution = solve_spec(COMPETING)
    us = solution.result("US")
    values = {a["id"]: a["value"] for a in COMPETING["assets"]}
    for asset, entries in us.valuation.items():
        for entry in entries:
            assert 0 <= entry.max_claim <= values[asset]
            alone = solve(
                parse_case(
                    build_case(
                        {
                            **COMPETING,
                            "assets": [
                                {
                                    **next(a for a in COMPETING["assets"] if a["id"] == asset),
                                    "applicable_exemptions": [entry.citation],
                                }
                            ],
                        }
                    )
                )
            )
            assert alone.result("US").exempt_total == entry.max_claim, (asset, entry.citation)


def test_all_jurisdictions_flag_adds_non_allowable_ones():
    spec = {"domicile": [{"state": "AZ", "start": "2000-01-01"}]}
    assert [r.jurisdiction for r in solve_spec(spec).jurisdictions] == ["AZ"]
    both = solve_spec(spec, all_jurisdictions=True)
    flags = {r.jurisdiction: r.allowable for r in both.jurisdictions}
    assert flags["US"] is False and flags["AZ"] is True
    assert {"IL", "OR", "PA", "WI"} <= set(flags) and not any(flags[j] for j in ("IL", "OR", "PA", "WI"))
    assert both.optimal.jurisdiction == "AZ"


def test_a_table_exclusion_binds_in_a_composite_system_as_in_its_own():
    """A what-if table's exclusion was keyed to the exemption's own jurisdiction (parameters.lp), so under
    PA+US, where the spouse draws on § 522(d), both sides could be claimed: found by the mutation sweep
    (check.lp#136). Under US alone the same pair was refused; now both systems leave $1,000 unexempt."""
    table = parse_table(
        {
            "name": "two that exclude each other",
            "exemptions": [
                {
                    "citation": "Test Code § 1(a)",
                    "jurisdiction": "US",
                    "single": {"limit": 1000},
                    "joint": {"limit": 1000},
                    "excludes": ["Test Code § 1(b)"],
                },
                {
                    "citation": "Test Code § 1(b)",
                    "jurisdiction": "US",
                    "single": {"limit": 1000},
                    "joint": {"limit": 1000},
                },
            ],
        }
    )
    spec = {
        "petition_date": "2025-06-02",
        "filing": "joint",
        "domicile": [{"state": "PA", "start": "2015-01-01"}],
        "spouse_domicile": [{"state": "FOREIGN", "start": "2015-01-01"}],
        "assets": [
            {
                "id": "a",
                "description": "first item",
                "kind": "cash",
                "value": 1000,
                "owner": "spouse",
                "applicable_exemptions": ["Test Code § 1(a)"],
            },
            {
                "id": "b",
                "description": "second item",
                "kind": "cash",
                "value": 1000,
                "owner": "spouse",
                "applicable_exemptions": ["Test Code § 1(b)"],
            },
        ],
    }
    solution = solve(parse_case(spec), tables=[table])
    assert {r.jurisdiction: r.non_exempt_total for r in solution.jurisdictions} == {"PA+US": 1000, "US": 1000}
