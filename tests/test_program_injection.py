"""No text from a case or a what-if table can change the logic program, and no number can wrap around clingo's
32-bit integers (issue 19, items 2 and 3): each either reaches the rules as data, quoted, or is refused with
the field named. A wrong answer with exit 0 is the failure these tests exist to catch."""

from __future__ import annotations

import copy
from functools import cache

import clingo
import pytest

import lexsym
from lexsym._util.errors import LexsymError
from lexsym.law.case import parse_case
from lexsym.law.whatif import parse_table

PAYLOADS = [
    '"). #show. a.',
    ":- .",
    "zz,false). allowable(or,state_law(whole_730)). %",
    'x"). asset_value("car",0). %',
    "#script (python) import os #end.",
    "%* unterminated comment",
    "line\nbreak\r\x00nul",
]

BASE = {
    "id": "injection",
    "petition_date": "2025-06-02",
    "filing": "single",
    "domicile": [{"state": "OR", "start": "2010-01-01"}],
    "assets": [
        {"id": "car", "description": "a car", "kind": "motor_vehicle", "use": "personal", "value": 9000},
        {"id": "home", "description": "a house", "kind": "real_property", "use": "residence", "value": 50000},
    ],
}


def _answers(case: dict) -> tuple:
    solution = lexsym.solve(parse_case(case, source="test"))
    return (
        tuple(solution.allowable.jurisdictions),
        tuple((r.jurisdiction, r.non_exempt_total) for r in solution.jurisdictions),
    )


@cache
def _expected() -> tuple:
    return _answers(copy.deepcopy(BASE))


def _with(path: tuple, payload: str) -> dict:
    case = copy.deepcopy(BASE)
    target = case
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = payload
    return case


TEXT_FIELDS = [
    ("id",),
    ("assets", 0, "description"),
    ("assets", 1, "county"),
]


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("path", TEXT_FIELDS, ids=lambda p: ".".join(map(str, p)))
def test_a_case_string_is_data_or_refused_by_name(path, payload):
    case = _with(path, payload)
    try:
        got = _answers(case)
    except LexsymError as error:
        assert str(path[-1]) in str(error)  # refused, naming the field
        return
    assert got == _expected()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_listed_citation_is_data(payload):
    """applicable_exemptions replaces the rules' classification with the case's list: a payload in it is an
    unknown citation, never a rule."""
    case = copy.deepcopy(BASE)
    case["assets"][0]["applicable_exemptions"] = [payload]
    try:
        solution = lexsym.solve(parse_case(case, source="test"))
    except LexsymError as error:
        assert "applicable_exemptions" in str(error) or "citation" in str(error)
        return
    assert tuple(solution.allowable.jurisdictions) == _expected()[0]
    assert all(not r.classification.get("car") for r in solution.jurisdictions)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_table_string_is_data_or_refused_by_name(payload):
    """Every string of a what-if table that reaches the program: opt-out keys, a citation, its exclusions."""
    for table, field in (
        ({"name": "t", "opt_out": {payload: True}}, "opt_out"),
        (
            {
                "name": "t",
                "exemptions": [{"citation": payload, "jurisdiction": "US", "single": {"limit": 100}}],
            },
            "citation",
        ),
        (
            {
                "name": "t",
                "exemptions": [
                    {
                        "citation": "11 U.S.C. § 522(d)(2)",
                        "jurisdiction": "US",
                        "single": {"limit": 100},
                        "excludes": [payload],
                        "fallback_of": payload,
                    }
                ],
            },
            "excludes",
        ),
    ):
        try:
            parsed = parse_table(table)
        except LexsymError as error:
            assert field in str(error) or "fallback_of" in str(error)
            continue
        for fact in parsed.to_facts():
            term = clingo.parse_term(fact.removesuffix("."))  # one whole term: no rule slipped in
            assert fact.endswith(".") and term.name.startswith("table_"), fact


def test_the_opt_out_injection_of_the_audit_is_refused():
    """The audit's payload made Oregon allowable with exit 0 (issue 19, item 3)."""
    with pytest.raises(LexsymError, match="opt_out"):
        parse_table({"name": "t", "opt_out": {"zz,false). allowable(or,state_law(whole_730)). %": True}})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reasonably_necessary", 2**31),
        ("reasonably_necessary", 2**32 + 5000),
        ("prior_residence_equity", 2**31),
        ("appreciation", 2**31),
        ("fraud_conversion", 2**31),
        ("value", 2**31),
        ("county_median_price", 2**33),
        ("acres", 1e12),
    ],
)
def test_a_figure_past_32_bits_is_refused_by_name(field, value):
    case = copy.deepcopy(BASE)
    case["assets"][1][field] = value
    with pytest.raises(LexsymError, match=field):
        parse_case(case, source="test")


def test_figures_that_fit_alone_but_not_together_are_refused():
    case = copy.deepcopy(BASE)
    for asset in case["assets"]:
        asset["value"] = 900_000_000
        asset["reasonably_necessary"] = 900_000_000
    case["assets"][0]["value"] = 50_000_000
    with pytest.raises(LexsymError, match="dollar figures together"):
        parse_case(case, source="test")


def test_a_table_figure_past_32_bits_is_refused():
    """A (d)(5) limit of 4,294,968,296 gave non-exempt $16,400 instead of $0 (issue 19, item 2)."""
    with pytest.raises(LexsymError, match="limit"):
        parse_table(
            {
                "name": "t",
                "exemptions": [
                    {
                        "citation": "11 U.S.C. § 522(d)(5)",
                        "jurisdiction": "US",
                        "single": {"limit": 4294968296},
                    }
                ],
            }
        )
