"""Named tests for each boundary of the 730-day rule (11 U.S.C. § 522(b)(3)(A)) and § 522(b)(2).

Windows for a petition day P: the 730 days P-730 .. P-1, and the 180 days P-910 .. P-731.
"""

from __future__ import annotations

import datetime as dt

import pytest

from lexsym import parse_case, solve

PETITION = dt.date(2024, 8, 20)


def before(days: int, petition: dt.date = PETITION) -> str:
    return str(petition - dt.timedelta(days=days))


def allowable(periods: list[tuple[str, str, str | None]], petition: dt.date = PETITION, **extra):
    case = parse_case(
        {
            "petition_date": str(petition),
            "domicile": [{"state": s, "start": a, "end": b} for s, a, b in periods],
            **extra,
        }
    )
    return solve(case).allowable


def test_domiciled_exactly_730_days_uses_that_state():
    result = allowable([("WA", before(3000), before(730)), ("OR", before(730), None)])
    assert result.rule_path == "730"
    assert result.days_730 == {"OR": 730}
    assert result.jurisdictions == ["OR", "US"]


def test_729_days_falls_to_the_180_day_step():
    result = allowable([("WA", before(3000), before(729)), ("OR", before(729), None)])
    assert result.days_730 == {"OR": 729, "WA": 1}
    assert result.rule_path == "180_whole"
    assert result.applicable_state == "WA"
    assert result.jurisdictions == ["WA", "US"]


def test_leap_day_inside_the_730_day_window_is_counted():
    # 2022-03-01 .. 2024-02-29 is 731 days because 2024 is a leap year: the window starts on 2022-03-02.
    petition = dt.date(2024, 3, 1)
    assert before(730, petition) == "2022-03-02"
    exact = allowable([("ID", "2010-01-01", "2022-03-02"), ("OR", "2022-03-02", None)], petition)
    assert exact.rule_path == "730" and exact.applicable_state == "OR"
    one_short = allowable([("ID", "2010-01-01", "2022-03-03"), ("OR", "2022-03-03", None)], petition)
    assert one_short.days_730 == {"ID": 1, "OR": 729}
    assert one_short.applicable_state == "ID"


def test_leap_day_inside_the_180_day_window_is_counted():
    petition = dt.date(2026, 3, 15)  # the 180-day window is 2023-09-17 .. 2024-03-14, holding Feb 29
    start_180, end_180 = (
        dt.date.fromisoformat(before(910, petition)),
        dt.date.fromisoformat(before(730, petition)),
    )
    assert (start_180, end_180) == (dt.date(2023, 9, 17), dt.date(2024, 3, 15))
    # Nevada up to and including 2024-02-29 (166 days, one of them the leap day), then Utah for 14 days.
    result = allowable(
        [("NV", "2015-01-01", "2024-03-01"), ("UT", "2024-03-01", "2025-01-01"), ("CA", "2025-01-01", None)],
        petition,
    )
    assert result.days_180 == {"NV": 166, "UT": 14}
    assert result.rule_path == "180_longer"
    # Nevada's opt-out names its residents, and the debtor lives in California (reading camp, the default).
    assert result.jurisdictions == ["NV", "US"]
    literal = allowable(
        [("NV", "2015-01-01", "2024-03-01"), ("UT", "2024-03-01", "2025-01-01"), ("CA", "2025-01-01", None)],
        petition,
        readings={"nonresident_opt_out": "literal"},
    )
    assert literal.jurisdictions == ["NV"]


def test_179_of_the_180_days_is_the_longer_portion():
    """Issue 18 survivor: `N < 180` read as `N < 179` made a 179-day place stop governing."""
    result = allowable(
        [("WA", before(3000), before(731)), ("ID", before(731), before(700)), ("OR", before(700), None)]
    )
    assert result.days_180 == {"WA": 179, "ID": 1}
    assert result.rule_path == "180_longer"
    assert result.applicable_state == "WA"
    assert result.jurisdictions == ["WA", "US"]


def test_all_180_days_in_one_place_is_the_whole_180_day_path():
    result = allowable(
        [("WA", before(3000), before(730)), ("OR", before(730), before(10)), ("ID", before(10), None)]
    )
    assert result.days_180 == {"WA": 180}
    assert result.rule_path == "180_whole"
    assert result.applicable_state == "WA"


@pytest.mark.parametrize(
    ("moved_to_washington", "days_180", "path"),
    [
        (911, {"WA": 180}, "180_whole"),  # 181 days before the 730-day window, only 180 of them in the window
        (910, {"WA": 180}, "180_whole"),  # exactly the window
        (909, {"ID": 1, "WA": 179}, "180_longer"),  # one day short: Idaho keeps the window's first day
    ],
)
def test_the_180_day_window_starts_on_day_p_minus_910(moved_to_washington, days_180, path):
    result = allowable(
        [
            ("ID", before(3000), before(moved_to_washington)),
            ("WA", before(moved_to_washington), before(730)),
            ("OR", before(730), before(10)),
            ("ID", before(10), None),
        ]
    )
    assert result.days_180 == days_180
    assert result.rule_path == path


def test_tie_in_the_180_day_window_gives_the_federal_exemptions():
    split = before(820)  # 90 days each side
    result = allowable([("WA", before(3000), split), ("ID", split, before(700)), ("OR", before(700), None)])
    assert result.days_180 == {"ID": 90, "WA": 90}
    assert result.rule_path == "hanging_paragraph"
    assert result.applicable_state is None
    assert result.jurisdictions == ["US"]
    assert "tie" in result.reasons[0].justification


def test_three_way_tie_gives_the_federal_exemptions():
    result = allowable(
        [
            ("WA", before(910), before(850)),
            ("ID", before(850), before(790)),
            ("MT", before(790), before(730)),
            ("OR", before(730), before(10)),
            ("CA", before(10), None),
        ]
    )
    assert result.days_180 == {"ID": 60, "MT": 60, "WA": 60}
    assert result.jurisdictions == ["US"]


def test_longer_portion_means_most_days_not_fewest():
    # OpenExempt's code picks the state with the fewest days here; the statute says the longer portion.
    result = allowable(
        [("WA", before(3000), before(790)), ("ID", before(790), before(700)), ("OR", before(700), None)]
    )
    assert result.days_180 == {"ID": 60, "WA": 120}
    assert result.rule_path == "180_longer"
    assert result.jurisdictions == ["WA", "US"]


def test_gap_days_count_for_no_place():
    # 100 days in Washington, then 80 unrecorded days, then Oregon: Washington still has the longer portion.
    result = allowable([("WA", before(3000), before(810)), ("OR", before(700), None)])
    assert result.days_180 == {"WA": 100}
    assert result.rule_path == "180_longer"
    assert result.applicable_state == "WA"


def test_gap_inside_the_730_days_prevents_the_730_day_path():
    result = allowable([("OR", before(3000), before(400)), ("OR", before(399), None)])
    assert result.days_730 == {"OR": 729}
    assert result.rule_path == "180_whole" and result.applicable_state == "OR"


def test_history_that_does_not_reach_the_180_day_window_gives_the_federal_exemptions():
    result = allowable([("TX", before(500), None)])
    assert result.days_180 == {}
    assert result.rule_path == "hanging_paragraph"
    assert result.jurisdictions == ["US"]


def test_foreign_domicile_in_the_180_days_gives_the_federal_exemptions():
    result = allowable([("FOREIGN", before(3000), before(700)), ("FL", before(700), None)])
    assert result.days_180 == {"FOREIGN": 180}
    assert result.jurisdictions == ["US"]
    assert "outside the United States" in result.reasons[0].justification


def test_foreign_domicile_for_all_730_days_gives_the_federal_exemptions():
    result = allowable([("FOREIGN", before(3000), None)])
    assert result.rule_path == "hanging_paragraph" and result.jurisdictions == ["US"]


def test_petition_day_itself_is_outside_the_window():
    # A move on the day before filing leaves 729 days in the old state and 1 in the new.
    result = allowable([("AZ", before(3000), before(1)), ("OR", before(1), None)])
    assert result.days_730 == {"AZ": 729, "OR": 1}
    assert result.applicable_state == "AZ" and result.rule_path == "180_whole"


@pytest.mark.parametrize(
    ("state", "expected"),
    [("AZ", ["AZ"]), ("IL", ["IL"]), ("OR", ["OR", "US"]), ("PA", ["PA", "US"]), ("WI", ["WI", "US"])],
)
def test_opt_out_states_give_only_their_own_exemptions(state, expected):
    result = allowable([(state, before(3000), None)])
    assert result.jurisdictions == expected
    assert result.opted_out is (expected == [state])


def test_every_allowable_jurisdiction_is_justified_with_a_citation():
    result = allowable([("PA", before(3000), None)])
    assert [r.jurisdiction for r in result.reasons] == ["PA", "US"]
    assert result.reasons[0].justification.startswith("11 U.S.C. § 522(b)(3)(A)")
    assert result.reasons[1].justification.startswith("11 U.S.C. § 522(b)(2)")


def joint(debtor, spouse, petition: dt.date = PETITION, **extra):
    """A joint case's AE from (state, start, end) periods for each spouse."""
    case = parse_case(
        {
            "petition_date": str(petition),
            "filing": "joint",
            "domicile": [{"state": s, "start": a, "end": b} for s, a, b in debtor],
            "spouse_domicile": [{"state": s, "start": a, "end": b} for s, a, b in spouse],
            **extra,
        }
    )
    return solve(case).allowable


def test_spouses_under_different_opted_out_states_elect_a_composite_of_their_own_laws():
    result = joint([("AZ", before(3000), None)], [("IL", before(3000), None)])
    assert result.jurisdictions == ["AZ+IL"]
    assert [(e.claimant, e.applicable_state, e.rule_path) for e in result.by_debtor] == [
        ("debtor", "AZ", "730"),
        ("spouse", "IL", "730"),
    ]
    assert "In re Hassen" in result.reasons[0].justification


def test_a_spouse_barred_from_522d_closes_paragraph_2_for_both():
    # § 522(b)(1): one may not elect (2) while the other elects (3); the Arizona resident cannot elect (2).
    result = joint([("OR", before(3000), None)], [("AZ", before(3000), None)])
    assert result.jurisdictions == ["OR+AZ"]


def test_spouses_whose_states_both_permit_522d_may_elect_it_together():
    result = joint([("PA", before(3000), None)], [("OR", before(3000), None)])
    assert result.jurisdictions == ["PA+OR", "US"]


def test_the_same_state_reached_by_different_paths_is_one_system():
    result = joint(
        [("OR", before(3000), None)], [("OR", before(3000), before(100)), ("WA", before(100), None)]
    )
    assert result.jurisdictions == ["OR", "US"]
    assert [e.rule_path for e in result.by_debtor] == ["730", "180_whole"]


def test_spouses_who_cannot_agree_are_deemed_to_elect_522d_where_the_filing_state_permits_it():
    result = joint([("PA", before(3000), None)], [("OR", before(3000), None)], spouses_cannot_agree=True)
    assert result.jurisdictions == ["US"]
    assert result.reasons[0].reason == "deemed_election"


def test_without_the_filing_state_permitting_522d_the_disagreeing_spouses_keep_paragraph_3():
    result = joint(
        [("PA", before(3000), None)],
        [("OR", before(3000), None)],
        spouses_cannot_agree=True,
        filed_in="AZ",
    )
    assert result.jurisdictions == ["PA+OR"]


def test_a_spouse_under_the_hanging_paragraph_takes_522d_as_their_paragraph_3_law():
    split = before(820)
    tied = [("WA", before(3000), split), ("ID", split, before(700)), ("OR", before(700), None)]
    result = joint(tied, [("OR", before(3000), None)])
    assert result.jurisdictions == ["US+OR", "US"]
    assert result.by_debtor[0].rule_path == "hanging_paragraph"


def test_a_move_on_the_petition_day_leaves_all_730_days_to_the_old_state():
    result = allowable([("IL", before(3000), str(PETITION)), ("PA", str(PETITION), None)])
    assert result.days_730 == {"IL": 730}
    assert result.rule_path == "730" and result.applicable_state == "IL"
    # The debtor lives in Pennsylvania when the case is filed, so Illinois's residents-only opt-out does
    # not bar § 522(d) (reading camp); read literally it does.
    assert result.jurisdictions == ["IL", "US"]
    literal = allowable(
        [("IL", before(3000), str(PETITION)), ("PA", str(PETITION), None)],
        readings={"nonresident_opt_out": "literal"},
    )
    assert literal.jurisdictions == ["IL"]


def test_730_days_abroad_are_not_a_single_state_so_the_180_day_step_runs():
    result = allowable([("IL", before(3000), before(730)), ("FOREIGN", before(730), None)])
    assert result.rule_path == "180_whole"
    assert result.applicable_state == "IL"
    assert result.jurisdictions == ["IL", "US"]  # abroad on the petition date: not an Illinois resident
    bound = allowable(
        [("IL", before(3000), before(730)), ("FOREIGN", before(730), None)],
        readings={"nonresident_opt_out": "literal"},
    )
    assert bound.jurisdictions == ["IL"]


@pytest.mark.parametrize(
    ("petition", "expected"),
    [(dt.date(2021, 6, 30), ["WV"]), (dt.date(2021, 7, 1), ["WV", "US"])],
)
def test_west_virginia_permits_522d_from_2021_07_01(petition, expected):
    assert allowable([("WV", "2010-01-01", None)], petition).jurisdictions == expected


def test_kansas_opt_out_keeps_522d10_in_the_justification():
    result = allowable([("KS", before(3000), None)])
    assert result.jurisdictions == ["KS"]
    assert "Kan. Stat. § 60-2312(b) keeps 11 U.S.C. § 522(d)(10)" in result.reasons[0].justification


def test_petitions_before_bapcpa_are_refused():
    with pytest.raises(Exception, match="BAPCPA"):
        allowable([("OR", "2000-01-01", None)], dt.date(2005, 10, 16))


# --- issue 18 (second sweep): survivors of the mutation sweep of encodings/domicile.lp -------------------


def test_georgia_s_opt_out_binds_only_a_debtor_there_for_the_longer_part_of_the_last_180_days():
    """Georgia's opt-out reaches debtors domiciled in Georgia for the 180 days before filing or the longer
    portion of them (reading camp). Georgia law governs both debtors below (the 180-day step); one came back
    10 days before filing, and is not bound though domiciled in Georgia on the petition day
    (domicile.lp:114-115, not :102-104); the other came back 100 days before filing, and is bound."""
    back_10 = allowable(
        [("GA", before(3000), before(730)), ("PA", before(730), before(10)), ("GA", before(10), None)]
    )
    assert back_10.applicable_state == "GA"
    assert back_10.jurisdictions == ["GA", "US"]
    back_100 = allowable(
        [("GA", before(3000), before(730)), ("PA", before(730), before(100)), ("GA", before(100), None)]
    )
    assert back_100.jurisdictions == ["GA"]


def test_nebraska_s_opt_out_binds_only_cases_filed_in_nebraska():
    """Nebraska's opt-out reaches cases filed in Nebraska (In re Long; reading camp), not its domiciliaries
    as such: a Nebraskan filing elsewhere may elect § 522(d) (domicile.lp:117-118, not :102-104)."""
    assert allowable([("NE", before(3000), None)], filed_in="PA").jurisdictions == ["NE", "US"]
    assert allowable([("NE", before(3000), None)], filed_in="NE").jurisdictions == ["NE"]


def test_utah_s_opt_out_binds_a_debtor_who_left_within_the_last_180_days_only():
    """Utah's opt-out names residents and those who have not been non-residents for the 180 days before
    filing (reading camp). Utah law governs both debtors (the 180-day step); one left Utah 100 days before
    filing and is bound, one left 200 days before and may elect § 522(d) (domicile.lp:107-110)."""
    left_100 = allowable([("UT", before(3000), before(100)), ("PA", before(100), None)])
    left_200 = allowable([("UT", before(3000), before(200)), ("PA", before(200), None)])
    assert left_100.applicable_state == left_200.applicable_state == "UT"
    assert left_100.jurisdictions == ["UT"]
    assert left_200.jurisdictions == ["UT", "US"]


def test_utah_s_180_days_before_filing_are_days_p_minus_180_to_p_minus_1():
    """A debtor who left Utah 180 days before filing was a non-resident for all of the 180 days and is not
    bound; one who left 179 days before was in Utah on day P-180 and is (domicile.lp:49, recent180)."""
    left_180 = allowable([("UT", before(3000), before(180)), ("PA", before(180), None)])
    left_179 = allowable([("UT", before(3000), before(179)), ("PA", before(179), None)])
    assert left_180.jurisdictions == ["UT", "US"]
    assert left_179.jurisdictions == ["UT"]


def test_georgia_s_opt_out_needs_strictly_more_days_there_and_some_days_at_all():
    """Georgia's longer-portion test is strict, as § 522(b)(3)(A)'s is: 90 days in Georgia and 90 in
    Pennsylvania in the last 180 is no longer portion (domicile.lp:113, M >= N). A debtor governed by Georgia
    law who spent none of the last 180 days there is not bound either (:115 needs days there)."""
    tie = allowable(
        [("GA", before(3000), before(730)), ("PA", before(730), before(90)), ("GA", before(90), None)]
    )
    abroad = allowable([("GA", before(3000), before(730)), ("FOREIGN", before(730), None)])
    assert tie.applicable_state == abroad.applicable_state == "GA"
    assert tie.jurisdictions == ["GA", "US"]
    assert abroad.jurisdictions == ["GA", "US"]


def test_filing_in_an_opted_out_state_binds_only_under_nebraska_s_wording():
    """Filing in Illinois does not make Illinois's residents-only opt-out reach a debtor living in
    Pennsylvania on the petition day; only an opt-out worded for cases filed in the state does
    (domicile.lp:118 is for opt_out_scope filed_in_state)."""
    moved = [("IL", before(3000), str(PETITION)), ("PA", str(PETITION), None)]
    assert allowable(moved, filed_in="IL").jurisdictions == ["IL", "US"]


def test_disagreeing_spouses_are_deemed_to_elect_522d_only_where_paragraph_2_is_open_to_both():
    """§ 522(b)(1)'s deemed election is "where such election is permitted": with the spouse barred from
    § 522(d) by Arizona's opt-out, filing in Pennsylvania deems nothing and the couple keep their composite
    (domicile.lp:156 needs paragraph2_open)."""
    result = joint(
        [("PA", before(3000), None)], [("AZ", before(3000), None)], spouses_cannot_agree=True, filed_in="PA"
    )
    assert result.jurisdictions == ["PA+AZ"]
    # The same with the debtor barred and the spouse free (domicile.lp:152 needs both spouses).
    mirrored = joint(
        [("AZ", before(3000), None)], [("PA", before(3000), None)], spouses_cannot_agree=True, filed_in="PA"
    )
    assert mirrored.jurisdictions == ["AZ+PA"]


def test_disagreeing_spouses_not_deemed_to_elect_522d_must_elect_paragraph_3():
    """Both spouses could elect § 522(d), but they cannot agree and Arizona, where they file, has opted out:
    no election is deemed, and spouses who cannot agree must take paragraph (3) (In re Hassen;
    domicile.lp:158-159 withholds paragraph (2) from them)."""
    result = joint(
        [("PA", before(3000), None)], [("PA", before(3000), None)], spouses_cannot_agree=True, filed_in="AZ"
    )
    assert result.jurisdictions == ["PA"]


def test_a_deemed_election_is_the_only_reason_given_for_522d():
    """Two spouses abroad reach § 522(d) by the hanging paragraph; when they cannot agree and file where it
    is permitted, they are deemed to elect it, and that is the reason given, not also the hanging paragraph
    (domicile.lp:171 yields to the deemed election)."""
    abroad = [("FOREIGN", before(3000), None)]
    result = joint(abroad, abroad, spouses_cannot_agree=True, filed_in="PA")
    assert [(r.jurisdiction, r.reason) for r in result.reasons] == [("US", "deemed_election")]
    # Both under Pennsylvania law: deemed to elect paragraph (2), they lose Pennsylvania's (:168-169).
    at_home = [("PA", before(3000), None)]
    deemed = joint(at_home, at_home, spouses_cannot_agree=True, filed_in="PA")
    assert [(r.jurisdiction, r.reason) for r in deemed.reasons] == [("US", "deemed_election")]


def test_each_allowed_jurisdiction_has_exactly_its_own_reason():
    """One reason per path: all 180 days in one place is the whole-180 path, not also the longer portion
    (domicile.lp:77, N < 180); a state that has not opted out gives § 522(d) as not_opted_out, not also as
    an opt-out that does not reach the debtor (:128 needs an opt-out)."""
    whole_180 = allowable([("PA", before(3000), before(730)), ("FOREIGN", before(730), None)])
    assert [r.reason for r in whole_180.by_debtor[0].reasons] == ["state_law(whole_180)", "not_opted_out(pa)"]
    at_home = allowable([("PA", before(3000), None)])
    assert [r.reason for r in at_home.by_debtor[0].reasons] == ["state_law(whole_730)", "not_opted_out(pa)"]


def test_spouses_both_under_the_hanging_paragraph_elect_522d_not_a_composite_of_it_with_itself():
    """Two spouses domiciled abroad both take § 522(d) by the hanging paragraph: one system, US, not a
    composite US+US (domicile.lp:165, J1 != J2)."""
    abroad = [("FOREIGN", before(3000), None)]
    result = joint(abroad, abroad)
    assert result.jurisdictions == ["US"]
    assert [(r.jurisdiction, r.reason) for r in result.reasons] == [("US", "hanging_paragraph")]


def test_a_debtor_under_an_opted_out_state_s_law_keeps_it_beside_a_spouse_under_522d():
    """The debtor is bound by Arizona's opt-out; the spouse, domiciled abroad, takes § 522(d) by the
    hanging paragraph. Their paragraph (3) is the composite AZ+US; § 522(d) alone is open to them only if
    both spouses reach it (domicile.lp:163 needs the same law for both)."""
    result = joint([("AZ", before(3000), None)], [("FOREIGN", before(3000), None)])
    assert result.jurisdictions == ["AZ+US"]
