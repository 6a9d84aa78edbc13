"""The 730-day rule twice: `encodings/domicile.lp` (via `lexsym.solve`) and `oracles/prolog/domicile.pl`.

The two programs share no code, only the legal reading and the opt-out list, so agreement on thousands of
histories aimed at the windows' edges is evidence that both count days and choose rule paths correctly.

Limits of this oracle: both read the same opt-out table (status by date and each opt-out's wording) from
statutes/opt_out.lp, so a wrong entry there passes; both were written by the project, so a reading both
share (ties, gaps, foreign places, whom an opt-out reaches) passes too; and the Prolog program decides
each debtor alone: how spouses combine their systems (§ 522(b)(1)) is checked only by named tests and the
blind casebank (tests/casebank/domicile).
Windows for a petition day P: the 730 days P-730 .. P-1, and the 180 days P-910 .. P-731.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import example, given, settings

from lexsym import Case, parse_case, solve
from lexsym._util.errors import SolveError
from lexsym.law.vocabulary import STATES
from lexsym.oracles.prolog_domicile import allowable_by_prolog, prolog_engine
from lexsym.testing import cases_without_assets, domicile_histories
from tests.long_runs import long_run
from tests.oracles import oracle_missing

try:
    prolog_engine()
except SolveError as error:
    oracle_missing(str(error))


def case_of(petition: dt.date, periods: list[tuple[str, int, int | None]]) -> Case:
    """A case from (place, days before P of the start, days before P of the end or None for P)."""
    domicile = [
        {
            "state": place,
            "start": str(petition - dt.timedelta(days=start)),
            "end": None if end is None else str(petition - dt.timedelta(days=end)),
        }
        for place, start, end in periods
    ]
    return parse_case({"id": "named", "petition_date": str(petition), "domicile": domicile})


PETITION = dt.date(2024, 8, 20)
EXACTLY_730 = case_of(PETITION, [("WA", 3000, 730), ("OR", 730, None)])
ONLY_729 = case_of(PETITION, [("WA", 3000, 729), ("OR", 729, None)])
# P-730 is 2024-02-29: the leap day is the first day of the 730-day window.
LEAP_DAY_IN_730 = case_of(dt.date(2026, 2, 28), [("AZ", 3000, 730), ("PA", 730, 100), ("IL", 100, None)])
# 2022-03-02 .. 2024-02-29 is 730 days only because 2024 has a Feb 29.
LEAP_DAY_INSIDE_730 = case_of(dt.date(2024, 3, 1), [("ID", 5000, 730), ("OR", 730, None)])
TIE_90_90 = case_of(PETITION, [("WA", 3000, 820), ("ID", 820, 700), ("OR", 700, None)])
TIE_60_60_60 = case_of(PETITION, [("WA", 910, 850), ("FL", 850, 790), ("WI", 790, 400), ("OR", 400, None)])
GAP = case_of(PETITION, [("TX", 3000, 850), ("AZ", 800, 600), ("PA", 500, None)])  # P-850 .. P-801 unrecorded
FOREIGN_GOVERNS = case_of(PETITION, [("FOREIGN", 3000, 800), ("PA", 800, 700), ("OR", 700, None)])
TOO_RECENT = case_of(PETITION, [("OR", 729, None)])  # no domicile recorded in the 180-day window


def assert_agree(case: Case) -> None:
    """Each debtor's days, rule path, state and own systems agree; a single debtor's are the case's."""
    asp = solve(case).allowable
    for entry in asp.by_debtor:
        prolog = allowable_by_prolog(case, claimant=entry.claimant)
        own = [reason.jurisdiction for reason in entry.reasons]
        assert (prolog.days_730, prolog.days_180) == (entry.days_730, entry.days_180), case.model_dump_json()
        assert (prolog.rule_path, prolog.applicable_state, prolog.jurisdictions) == (
            entry.rule_path,
            entry.applicable_state,
            own,
        ), case.model_dump_json()
    if case.filing.value == "single":
        assert asp.jurisdictions == [reason.jurisdiction for reason in asp.by_debtor[0].reasons]


@pytest.mark.parametrize(
    ("case", "jurisdictions", "rule_path"),
    [
        pytest.param(EXACTLY_730, ["OR", "US"], "730", id="exactly-730-days"),
        pytest.param(ONLY_729, ["WA", "US"], "180_whole", id="729-days"),
        # Arizona's opt-out names its residents; this debtor lives in Illinois (reading camp).
        pytest.param(LEAP_DAY_IN_730, ["AZ", "US"], "180_whole", id="leap-day-first-day-of-730"),
        pytest.param(LEAP_DAY_INSIDE_730, ["OR", "US"], "730", id="leap-day-inside-730"),
        pytest.param(TIE_90_90, ["US"], "hanging_paragraph", id="tie-90-90"),
        pytest.param(TIE_60_60_60, ["US"], "hanging_paragraph", id="tie-60-60-60"),
        pytest.param(GAP, ["AZ", "US"], "180_longer", id="gap"),
        pytest.param(FOREIGN_GOVERNS, ["US"], "hanging_paragraph", id="foreign-governs"),
        pytest.param(TOO_RECENT, ["US"], "hanging_paragraph", id="no-domicile-in-180"),
    ],
)
def test_named_boundaries(case: Case, jurisdictions: list[str], rule_path: str) -> None:
    prolog = allowable_by_prolog(case)
    assert (prolog.jurisdictions, prolog.rule_path) == (jurisdictions, rule_path)
    assert_agree(case)


def test_named_day_counts() -> None:
    assert dt.date(2026, 2, 28) - dt.timedelta(days=730) == dt.date(2024, 2, 29)
    assert allowable_by_prolog(ONLY_729).days_730 == {"OR": 729, "WA": 1}
    assert allowable_by_prolog(LEAP_DAY_IN_730).days_730 == {"IL": 100, "PA": 630}
    assert allowable_by_prolog(TIE_90_90).days_180 == {"ID": 90, "WA": 90}
    assert allowable_by_prolog(GAP).days_180 == {"AZ": 70, "TX": 60}
    assert allowable_by_prolog(FOREIGN_GOVERNS).days_180 == {"FOREIGN": 110, "PA": 70}
    assert allowable_by_prolog(TOO_RECENT).days_180 == {}


def test_prolog_knows_the_same_states_as_the_case_model() -> None:
    places = {str(answer["S"]) for answer in prolog_engine().query("state(S)")}
    assert places == set(STATES)


@settings(max_examples=200)
@given(cases_without_assets())
@example(EXACTLY_730)
@example(ONLY_729)
@example(LEAP_DAY_IN_730)
@example(TIE_90_90)
@example(GAP)
@example(FOREIGN_GOVERNS)
def test_prolog_agrees_with_asp(case: Case) -> None:
    assert_agree(case)


@settings(max_examples=100)
@given(cases_without_assets(joint=True))
def test_prolog_agrees_with_asp_for_each_spouse(case: Case) -> None:
    assert_agree(case)


@settings(max_examples=long_run(3000))
@given(cases_without_assets(histories=domicile_histories(max_places=6, max_periods=80)))
def test_prolog_agrees_with_asp_at_length(case: Case) -> None:
    assert_agree(case)
