"""`lexsym explain`: each exemption's verdict for one asset, with the rule and the failing condition."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym import parse_case
from lexsym._util.errors import InputError
from lexsym.law.explain import explain
from tests.clintests import build_case

REPO = Path(__file__).resolve().parents[1]


def _verdicts(explanation, jurisdiction="US"):
    block = next(j for j in explanation.jurisdictions if j.jurisdiction == jurisdiction)
    return {v.citation: v for v in block.exemptions}


def test_an_applying_exemption_names_the_facts_its_rule_used():
    case = parse_case(
        build_case(
            {"assets": [{"id": "sofa", "kind": "household_furnishing", "use": "personal", "value": 900}]}
        )
    )
    verdict = _verdicts(explain(case, "sofa"))["11 U.S.C. § 522(d)(3)"]
    assert verdict.applies and verdict.basis == "rule"
    assert "household furnishing" in verdict.because
    assert verdict.max_claim == 700
    assert any(check.satisfied for check in verdict.rules)


def test_a_failing_exemption_names_the_first_condition_that_fails():
    case = parse_case(
        build_case({"assets": [{"id": "ring", "kind": "jewelry", "use": "investment", "value": 900}]})
    )
    verdict = _verdicts(explain(case, "ring"))["11 U.S.C. § 522(d)(4)"]
    assert not verdict.applies and verdict.basis == "none"
    assert verdict.rules and not any(check.satisfied for check in verdict.rules)
    assert verdict.rules[0].failed_condition == "asset_use(A,personal)"
    assert verdict.rules[0].location.startswith("statutes/federal/522d4_jewelry.lp:")
    assert "asset_use(A,personal) fails" in verdict.because


def test_every_encoded_exemption_gets_a_verdict():
    case = parse_case(build_case({"assets": [{"id": "cash", "kind": "cash", "value": 10}]}))
    explanation = explain(case, "cash")
    us = _verdicts(explanation)
    assert {c for c, v in us.items() if v.applies} == {"11 U.S.C. § 522(d)(5)"}
    assert len(us) >= 20
    assert 'asset_kind("cash",cash).' in explanation.facts


def test_listed_citations_are_explained_as_listed():
    spec = {
        "assets": [
            {
                "id": "car",
                "kind": "motor_vehicle",
                "value": 10,
                "applicable_exemptions": ["11 U.S.C. § 522(d)(3)"],
            }
        ]
    }
    explanation = explain(parse_case(build_case(spec)), "car")
    us = _verdicts(explanation)
    assert explanation.listed
    assert us["11 U.S.C. § 522(d)(3)"].basis == "listed"
    assert not us["11 U.S.C. § 522(d)(2)"].applies
    assert "lists" in us["11 U.S.C. § 522(d)(2)"].because


def test_unknown_asset_is_an_input_error():
    with pytest.raises(InputError, match="no asset 'boat'"):
        explain(parse_case(build_case({"assets": []})), "boat")


def test_cli_explain_json_and_tables():
    example = REPO / "data" / "examples" / "case.json"
    result = subprocess.run(
        [sys.executable, "-m", "lexsym", "explain", str(example), "--asset", "ring", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(result.stdout)
    assert data["asset_id"] == "ring" and data["jurisdictions"][0]["jurisdiction"] == "US"
    people = subprocess.run(
        [sys.executable, "-m", "lexsym", "explain", str(example), "--asset", "ring"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "11 U.S.C. § 522(d)(4)" in people.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "lexsym", "explain", str(example), "--asset", "yacht"],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and missing.stderr.startswith("lexsym: error: no asset 'yacht'")
