"""Contested readings (lexsym.law.readings): one registry, a case or config chooses, the answer records it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexsym import parse_case, solve
from lexsym._util.errors import InputError, SolveError
from lexsym.generate.pipeline import generate
from lexsym.generate.suites import suite_datasets
from lexsym.law.readings import BY_NAME, DEFAULT_READINGS, READINGS, Readings


def test_the_model_has_one_field_per_registered_reading_with_the_first_option_as_default():
    fields = Readings.model_fields
    assert list(fields) == [r.name for r in READINGS]
    for reading in READINGS:
        assert fields[reading.name].default == reading.default
        assert set(reading.authorities) == set(reading.options) == set(reading.rules)
        description = fields[reading.name].description
        assert all(f"'{option}'" in description for option in reading.options), reading.name


def test_every_reading_becomes_one_fact_and_a_partial_mapping_keeps_the_defaults():
    readings = DEFAULT_READINGS.merged({"p_appreciation": "counted"})
    facts = readings.facts()
    assert len(facts) == len(READINGS)
    assert "reading(p_appreciation,counted)." in facts
    assert "reading(nonresident_opt_out,camp)." in facts


def test_an_unknown_reading_or_option_is_a_one_line_error_naming_the_field():
    base = {"petition_date": "2024-06-01", "domicile": [{"state": "OR", "start": "2010-01-01"}]}
    with pytest.raises(InputError, match=r"readings\.nonresident_opt_out"):
        parse_case({**base, "readings": {"nonresident_opt_out": "maybe"}})
    with pytest.raises(InputError, match=r"readings\.no_such_reading"):
        parse_case({**base, "readings": {"no_such_reading": "x"}})


def test_the_solution_records_every_reading_it_was_solved_under():
    case = parse_case(
        {
            "petition_date": "2024-06-01",
            "domicile": [{"state": "OR", "start": "2010-01-01"}],
            "readings": {"ira_cap_scope": "all_exemptions"},
        }
    )
    assert solve(case).readings == {**DEFAULT_READINGS.as_dict(), "ira_cap_scope": "all_exemptions"}


def _suite(readings: dict[str, str] | None, *, dates=("2024-01-01", "2024-12-31"), states=("AZ",)):
    base = {
        "asset_count_min": 1,
        "asset_count_max": 2,
        "domicile_count_min": 2,
        "domicile_count_max": 3,
        "state_jurisdictions": list(states),
        "petition_date_min": dates[0],
        "petition_date_max": dates[1],
        "split": {"dev": 0, "test": 6},
    }
    if readings:
        base["readings"] = readings
    return suite_datasets({"name": "readings", "base": base, "vary": {"task": ["AE"]}}, source="test", seed=3)


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]


def test_the_generator_records_the_readings_in_metadata_manifest_and_prompt(tmp_path):
    generate(_suite({"nonresident_opt_out": "literal"}), tmp_path / "literal", workers=1)
    generate(_suite(None), tmp_path / "default", workers=1)
    literal, default = _records(tmp_path / "literal"), _records(tmp_path / "default")
    for record in literal:
        assert record["metadata"]["readings"]["nonresident_opt_out"] == "literal"
        assert record["case"]["readings"]["nonresident_opt_out"] == "literal"
        assert BY_NAME["nonresident_opt_out"].rules["literal"] in record["prompt"]["user"]
    for record in default:
        assert record["metadata"]["readings"] == DEFAULT_READINGS.as_dict()
        assert BY_NAME["nonresident_opt_out"].rules["camp"] in record["prompt"]["user"]
    manifest = json.loads((tmp_path / "literal" / "manifest.json").read_text())
    assert manifest["datasets"][0]["config"]["readings"]["nonresident_opt_out"] == "literal"
    # Other readings give other case ids: datasets are never mixed across readings.
    assert {r["metadata"]["case_id"] for r in literal}.isdisjoint({r["metadata"]["case_id"] for r in default})


def test_the_generator_refuses_gold_on_amounts_known_to_understate_the_law(tmp_path):
    stale = _suite(None, dates=("2027-02-01", "2027-03-01"), states=("AZ",))
    with pytest.raises(SolveError, match="understates the law"):
        generate(stale, tmp_path / "stale", workers=1)


def test_a_stale_amount_is_a_warning_on_the_solution():
    case = parse_case(
        {
            "petition_date": "2025-08-01",
            "domicile": [{"state": "OR", "start": "2010-01-01"}],
            "assets": [
                {"id": "home", "description": "home", "kind": "real_property", "use": "residence", "value": 1}
            ],
        }
    )
    warnings = solve(case, jurisdictions=["OR"]).warnings
    assert any("Or. Rev. Stat. § 18.395(1)" in w and "understates the law" in w for w in warnings), warnings
