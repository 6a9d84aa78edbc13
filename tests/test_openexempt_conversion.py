"""Conversion of OpenExempt-shaped statute files and case records, on small made-up inputs.

The inputs are invented here in OpenExempt's shape (they are not copied from its data), so these tests
run without ../shared.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import lexsym
from lexsym._util.errors import InputError
from lexsym.interop.openexempt import (
    JURISDICTION_IDS,
    case_from_openexempt,
    openexempt_rule_path,
    table_from_openexempt,
)
from lexsym.law.vocabulary import AssetKind, Filing

FEDERAL_FILE = {
    "jurisdiction": "FEDERAL",
    "authority": "made up for a test",
    "has_opted_out": None,
    "statutes": [
        {"citation": "11 U.S.C. § 522(b)", "description": "not an exemption"},
        {
            "citation": "11 U.S.C. §522 (d)(1)",
            "description": "residence",
            "single_limit": 100,
            "married_limit": 200,
            "single_item_claim_count": 1,
            "married_item_claim_count": 2,
        },
        {
            "citation": "11 U.S.C. § 522(d)(3)",
            "description": "goods",
            "single_limit": 50,
            "married_limit": 100,
            "per_item_limit": 7,
        },
        {
            "citation": "11 U.S.C. § 522(d)(5)",
            "description": "wildcard",
            "single_limit": 10,
            "married_limit": 20,
            "fallback_relationship": "11 U.S.C. § 522(d)(1)",
            "single_fallback_limit": 30,
            "married_fallback_limit": 60,
        },
        {
            "citation": "11 U.S.C. § 522(d)(9)",
            "description": "no dollar cap",
            "single_limit": None,
            "married_limit": None,
        },
    ],
}

OREGON_FILE = {
    "jurisdiction": "OREGON",
    "authority": "made up for a test",
    "has_opted_out": False,
    "statutes": [
        {
            "citation": "Or. Rev. Stat. § 1.1(1)",
            "description": "first homestead",
            "single_limit": 5,
            "married_limit": 6,
            "mutual_exclusion": "Or. Rev. Stat. § 1.1(2)",
        },
        {"citation": "Or. Rev. Stat. § 1.2", "description": "a definition"},
    ],
}

RECORD = {
    "case_id": "made_up_1",
    "married": True,
    "petition_date": "2024-05-01",
    "parties": ["Ann Example", "Bo Example"],
    "domicile_history": [
        {"state": "WISCONSIN", "start": "2019-01-01", "end": "2023-02-01"},
        {"state": "OREGON", "start": "2023-02-01", "end": "2024-05-01"},
        {"state": "ARIZONA", "start": "2024-05-01", "end": "2024-05-01"},
    ],
    "assets": [
        {
            "description": "old bicycle",
            "dollar_value": 120,
            "applicable_exemptions": ["11 U.S.C. § 522(d)(5)"],
        },
        {"description": "old bicycle, spare", "dollar_value": 80, "applicable_exemptions": []},
    ],
}


@pytest.fixture
def statutes_dir(tmp_path: Path) -> Path:
    (tmp_path / "federal.json").write_text(json.dumps(FEDERAL_FILE), encoding="utf-8")
    (tmp_path / "oregon.json").write_text(json.dumps(OREGON_FILE), encoding="utf-8")
    return tmp_path


def test_only_entries_with_single_limit_become_exemptions(statutes_dir: Path) -> None:
    table = table_from_openexempt(statutes_dir)
    assert table.citations() == [
        "11 U.S.C. § 522(d)(1)",
        "11 U.S.C. § 522(d)(3)",
        "11 U.S.C. § 522(d)(5)",
        "11 U.S.C. § 522(d)(9)",
        "Or. Rev. Stat. § 1.1(1)",
    ]
    assert {entry.citation: entry.jurisdiction for entry in table.exemptions}[
        "Or. Rev. Stat. § 1.1(1)"
    ] == "OR"


def test_figures_map_single_and_married_with_an_undoubled_per_item_cap(statutes_dir: Path) -> None:
    entries = {entry.citation: entry for entry in table_from_openexempt(statutes_dir).exemptions}
    residence = entries["11 U.S.C. § 522(d)(1)"]
    assert (residence.single.limit, residence.single.item_count) == (100, 1)
    assert (residence.joint.limit, residence.joint.item_count) == (200, 2)
    goods = entries["11 U.S.C. § 522(d)(3)"]
    assert (goods.single.per_item, goods.joint.per_item) == (7, 7)
    assert goods.joint.item_count is None
    wildcard = entries["11 U.S.C. § 522(d)(5)"]
    assert wildcard.fallback_of == "11 U.S.C. § 522(d)(1)"
    assert (wildcard.single.fallback, wildcard.joint.fallback) == (30, 60)
    assert entries["11 U.S.C. § 522(d)(9)"].joint.limit is None
    assert entries["Or. Rev. Stat. § 1.1(1)"].excludes == ["Or. Rev. Stat. § 1.1(2)"]


def test_opt_out_is_read_for_states_only(statutes_dir: Path) -> None:
    assert table_from_openexempt(statutes_dir).opt_out == {"OR": False}


def test_an_empty_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no OpenExempt statute files"):
        table_from_openexempt(tmp_path)


def test_case_fields() -> None:
    case = case_from_openexempt(RECORD)
    assert case.id == "made_up_1"
    assert case.petition_date == dt.date(2024, 5, 1)
    assert case.filing is Filing.JOINT
    assert case.debtors == ["Ann Example", "Bo Example"]
    # OpenExempt's empty period on the petition date is a move on the petition day, kept as such.
    assert [(p.state, p.start, p.end) for p in case.domicile] == [
        ("WI", dt.date(2019, 1, 1), dt.date(2023, 2, 1)),
        ("OR", dt.date(2023, 2, 1), dt.date(2024, 5, 1)),
        ("AZ", dt.date(2024, 5, 1), dt.date(2024, 5, 1)),
    ]
    assert case.place_on_petition_date() == "AZ"
    assert case.readings.nonresident_opt_out == "literal"  # OpenExempt's semantics
    assert [(a.id, a.description, a.value, a.kind) for a in case.assets] == [
        ("a1", "old bicycle", 120, AssetKind.OTHER),
        ("a2", "old bicycle, spare", 80, AssetKind.OTHER),
    ]
    assert case.assets[0].applicable_exemptions == ["11 U.S.C. § 522(d)(5)"]
    assert case.assets[1].applicable_exemptions == []


def test_two_assets_described_alike_are_refused_naming_the_case() -> None:
    """Answers name assets by description (issue 19, item 4); OpenExempt's own 350 cases have none alike."""
    twin = {**RECORD, "assets": [RECORD["assets"][0], {**RECORD["assets"][0], "dollar_value": 80}]}
    with pytest.raises(InputError, match=r"made_up_1: assets\[1\]\.description repeats"):
        case_from_openexempt(twin)


def test_single_filing() -> None:
    case = case_from_openexempt({**RECORD, "married": False, "parties": ["Ann Example"]})
    assert case.filing is Filing.SINGLE


def test_unknown_state_is_refused() -> None:
    record = {
        **RECORD,
        "domicile_history": [{"state": "ATLANTIS", "start": "2019-01-01", "end": "2024-05-01"}],
    }
    with pytest.raises(InputError, match="ATLANTIS"):
        case_from_openexempt(record)


def test_names_and_rule_paths() -> None:
    assert JURISDICTION_IDS["Federal"] == "US"
    assert JURISDICTION_IDS["Pennsylvania"] == "PA"
    assert [openexempt_rule_path(p) for p in ("730", "180_whole", "180_longer")] == [
        "730",
        "180_single",
        "180_longer",
    ]
    with pytest.raises(ValueError, match="hanging_paragraph"):
        openexempt_rule_path("hanging_paragraph")


def test_married_item_claims_stack_and_the_per_item_cap_is_not_doubled(statutes_dir: Path) -> None:
    """Solved under the made-up table: two (d)(1) claims of 100 fall on one home; (d)(3) stays 7 an item."""
    record = {
        **RECORD,
        "assets": [
            {"description": "home", "dollar_value": 500, "applicable_exemptions": ["11 U.S.C. § 522(d)(1)"]},
            {"description": "sofa", "dollar_value": 20, "applicable_exemptions": ["11 U.S.C. § 522(d)(3)"]},
        ],
    }
    solution = lexsym.solve(case_from_openexempt(record), tables=[table_from_openexempt(statutes_dir)])
    federal = solution.result("US")
    assert federal.non_exempt_by_asset == {"a1": 300, "a2": 13}
    assert federal.optimal
