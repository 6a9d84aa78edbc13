"""The asset catalogue (data/assets/*.jsonl): it loads, speaks the vocabulary, and the statutes agree with it.

The consistency test puts every entry into one case and solves it under every encoded jurisdiction: the
classification must be stable, every exemption of every statute file must be reachable by some entry,
and enough entries must fall under nothing but a wildcard (so generated tasks contain property that
only the wildcards can protect).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import pytest

import lexsym
from lexsym._util.errors import InputError
from lexsym.law.case import Case
from lexsym.law.catalogue import CatalogueAsset, load_catalogue, load_catalogue_file
from lexsym.law.rules import rules_root, statute_files
from lexsym.law.solution import Solution
from lexsym.law.stratified import solve_stratified
from lexsym.law.vocabulary import KIND_PARENTS, AssetKind, Use

MIN_ENTRIES = 500
MIN_UNCOVERED = 60
PETITION = dt.date(
    2025, 6, 2
)  # ORS 18.785 (operative 2025-01-01) applies; before the Oregon homestead indexing
WILDCARD_KIND_SHARE = 0.75
"""An exemption whose classified assets span this share of the catalogue's kinds is a wildcard (any
property, or any personal property); kind-specific exemptions stay far below it."""

SUPPORT_LIMITED = {
    AssetKind.ALIMONY,
    AssetKind.SUPPORT,
    AssetKind.SEPARATE_MAINTENANCE,
    AssetKind.PLAN_PAYMENT,
    AssetKind.WRONGFUL_DEATH_PAYMENT,
    AssetKind.LIFE_INSURANCE_PAYMENT,
    AssetKind.LOST_EARNINGS_PAYMENT,
}
SUPPORT_FOUND_SOMETIMES = {AssetKind.PERSONAL_INJURY_PAYMENT, AssetKind.BANK_ACCOUNT}
"""Kinds some entries carry a support finding for (Cal. Civ. Proc. Code §§ 704.140, 704.225 protect them only
to the extent necessary for support); others of these kinds have none."""
NEEDS_SUBJECT = {
    AssetKind.LIFE_INSURANCE_VALUE,
    AssetKind.WRONGFUL_DEATH_PAYMENT,
    AssetKind.LIFE_INSURANCE_PAYMENT,
    AssetKind.PERSONAL_INJURY_PAYMENT,
    AssetKind.LOST_EARNINGS_PAYMENT,
}

Key = tuple[str, str]
"""(jurisdiction, citation)"""


@pytest.fixture(scope="module")
def catalogue() -> tuple[CatalogueAsset, ...]:
    return load_catalogue()


def _months_before(day: dt.date, months: int) -> dt.date:
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    return dt.date(year, month + 1, day.day)


def _case(entries: tuple[CatalogueAsset, ...]) -> Case:
    """Every entry at its lowest value, in one single-filing case of a debtor long domiciled in Oregon.

    The case asks what each rule reaches, so it turns on the readings that gate rules: state residency
    limits off (an Oregon resident would otherwise get no Arizona homestead or Wisconsin exemption) and
    ORS 18.785 read as an exemption."""
    assets = []
    for entry in entries:
        extra = {}
        if entry.sale_months_ago is not None:
            extra["sold_on"] = _months_before(PETITION, entry.sale_months_ago[0])
        assets.append(entry.to_asset(asset_id=entry.id, value=entry.value_min, **extra))
    return Case(
        id="catalogue",
        petition_date=PETITION,
        domicile=[{"state": "OR", "start": dt.date(2018, 1, 1)}],
        assets=assets,
        readings={"residency_limits": "preempted", "or_base_protected_balance": "exemption"},
    )


@pytest.fixture(scope="module")
def solutions(catalogue) -> tuple[Solution, Solution]:
    case = _case(catalogue)
    return lexsym.solve(case, all_jurisdictions=True), lexsym.solve(case, all_jurisdictions=True)


def _classification(solution: Solution) -> dict[str, set[Key]]:
    """Asset id -> the (jurisdiction, citation) pairs it falls under, across every jurisdiction."""
    found: dict[str, set[Key]] = defaultdict(set)
    for result in solution.jurisdictions:
        for asset, matches in result.classification.items():
            found[asset] |= {(result.jurisdiction, match.citation) for match in matches}
    return found


def _all_exemptions() -> set[Key]:
    root = rules_root()
    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", *statute_files(root)], "#show exemption/2. #show citation/2."
    )
    citation = {str(s.arguments[0]): s.arguments[1].string for s in symbols if s.match("citation", 2)}
    return {
        (str(s.arguments[1]).upper(), citation[str(s.arguments[0])])
        for s in symbols
        if s.match("exemption", 2)
    }


def _wildcards(catalogue, classification: dict[str, set[Key]]) -> set[Key]:
    kind_of = {entry.id: entry.kind for entry in catalogue}
    kinds: dict[Key, set[AssetKind]] = defaultdict(set)
    for asset, keys in classification.items():
        for key in keys:
            kinds[key].add(kind_of[asset])
    everything = set(kind_of.values())
    return {key for key, seen in kinds.items() if len(seen) >= WILDCARD_KIND_SHARE * len(everything)}


# --- the files ----------------------------------------------------------------------------------------


def test_catalogue_loads_with_unique_ids_and_descriptions(catalogue):
    assert len(catalogue) >= MIN_ENTRIES
    ids = [entry.id for entry in catalogue]
    assert len(set(ids)) == len(ids)
    descriptions = [" ".join(entry.description.lower().split()) for entry in catalogue]
    repeated = sorted({d for d in descriptions if descriptions.count(d) > 1})
    assert not repeated, repeated


def test_every_kind_and_use_appears(catalogue):
    kinds = {entry.kind for entry in catalogue}
    uses = {entry.use for entry in catalogue}
    assert not set(AssetKind) - kinds, sorted(k.value for k in set(AssetKind) - kinds)
    assert not set(Use) - uses, sorted(u.value for u in set(Use) - uses)


def test_every_entry_builds_a_case_asset_at_both_ends_of_its_range(catalogue):
    for entry in catalogue:
        for value in (entry.value_min, entry.value_max):
            asset = entry.to_asset(asset_id=entry.id, value=value)
            assert asset.value == value
            assert asset.kind is entry.kind
            assert asset.description == entry.description
            if entry.reasonably_necessary_share is not None:
                assert asset.reasonably_necessary is not None
                assert 0 <= asset.reasonably_necessary <= value


def test_entries_carry_the_facts_their_kind_needs(catalogue):
    for entry in catalogue:
        where = entry.id
        assert (entry.vehicle_type is not None) == (entry.kind is AssetKind.MOTOR_VEHICLE), where
        if entry.kind is AssetKind.RETIREMENT_ACCOUNT:
            assert entry.plan is not None, where
        # a plan_payment names its plan only where a statute asks (Ga. Code Ann. § 44-13-100(a)(2)(F))
        plan_kinds = {AssetKind.RETIREMENT_ACCOUNT, AssetKind.PLAN_PAYMENT}
        assert entry.plan is None or entry.kind in plan_kinds, where
        if entry.kind in SUPPORT_LIMITED:
            assert entry.reasonably_necessary_share is not None, where
        elif entry.kind not in SUPPORT_FOUND_SOMETIMES:
            assert entry.reasonably_necessary_share is None, where
        if entry.kind in NEEDS_SUBJECT:
            assert entry.subject is not None, where
        assert not entry.prescribed or AssetKind.HEALTH_AID in (entry.kind, KIND_PARENTS.get(entry.kind)), (
            where
        )
        assert not entry.luxury or entry.kind is AssetKind.WEARING_APPAREL, where
        assert not entry.closely_held or entry.kind is AssetKind.BUSINESS_INTEREST, where
        assert not (entry.matured or entry.credit_life) or entry.kind in (
            AssetKind.LIFE_INSURANCE_POLICY,
            AssetKind.LIFE_INSURANCE_VALUE,
        ), where
        assert not entry.reinvested, where


def test_a_bad_line_names_its_file_and_line(tmp_path: Path):
    good = {
        "id": "sofa",
        "description": "a sofa",
        "kind": "household_furnishing",
        "use": "personal",
        "value_min": 10,
        "value_max": 20,
    }
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "x", "kind": "spaceship"}) + "\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:3: kind: "):
        load_catalogue_file(path)

    path.write_text(json.dumps({**good, "colour": "red"}) + "\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: colour: "):
        load_catalogue_file(path)

    path.write_text(json.dumps({**good, "value_min": 30}) + "\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: value_min is above value_max"):
        load_catalogue_file(path)

    path.write_text(json.dumps({**good, "plan": "irc_408"}) + "\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: plan is only for kinds retirement_account and plan"):
        load_catalogue_file(path)

    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:2: invalid JSON"):
        load_catalogue_file(path)


def test_an_id_used_in_two_files_is_refused(tmp_path: Path):
    line = json.dumps({"id": "cash", "description": "cash", "kind": "cash", "value_min": 1, "value_max": 2})
    (tmp_path / "a.jsonl").write_text(line + "\n")
    (tmp_path / "b.jsonl").write_text(line + "\n")
    with pytest.raises(InputError, match="'cash' is also used in"):
        load_catalogue(tmp_path)


# --- the statutes read the catalogue ------------------------------------------------------------------


def test_classification_of_the_whole_catalogue_is_stable(catalogue, solutions):
    first, again = solutions
    ids = {entry.id for entry in catalogue}
    assert set(first.result("US").classification) == ids  # every asset at least falls under (d)(5)
    assert {r.jurisdiction: r.classification for r in first.jurisdictions} == {
        r.jurisdiction: r.classification for r in again.jurisdictions
    }


def test_every_exemption_is_reached_by_some_catalogue_entry(solutions):
    used = set().union(*_classification(solutions[0]).values())
    exemptions = _all_exemptions()
    assert used <= exemptions
    unreached = sorted(exemptions - used)
    assert not unreached, f"no catalogue entry falls under {unreached}; add entries to data/assets"


def test_enough_entries_fall_under_nothing_but_wildcards(catalogue, solutions):
    classification = _classification(solutions[0])
    wildcards = _wildcards(catalogue, classification)
    assert ("US", "11 U.S.C. § 522(d)(5)") in wildcards
    only_wildcards = [entry.id for entry in catalogue if not classification[entry.id] - wildcards]
    assert len(only_wildcards) >= MIN_UNCOVERED, (sorted(wildcards), only_wildcards)


def test_land_entries_carry_the_facts_texas_reads(catalogue):
    """Edition 3's land: the area and services its description states reach the rules (Tex. Prop. Code
    § 41.002): a single adult's ranch and pasture together exceed 100 rural acres, so only the dearer is
    the homestead; the city lot is urban and within 10 acres."""
    by_id = {entry.id: entry for entry in catalogue}
    ranch, pasture = by_id["ranch_house_ninety_county_acres"], by_id["pasture_forty_acres_home_place"]
    city = by_id["city_lot_house_full_services"]
    assert {ranch.edition, pasture.edition, city.edition} == {3}
    case = Case(
        petition_date=PETITION,
        domicile=[{"state": "TX", "start": dt.date(2010, 1, 1)}],
        assets=[
            ranch.to_asset(asset_id="ranch", value=500000),
            pasture.to_asset(asset_id="pasture", value=100000),
        ],
    )
    assert lexsym.solve(case).result("TX").non_exempt_total == 100000
    town = case.model_copy(update={"assets": [city.to_asset(asset_id="home", value=400000)]})
    result = lexsym.solve(town).result("TX")
    assert result.non_exempt_total == 0
    assert [m.citation for m in result.classification["home"]] == ["Tex. Prop. Code § 41.002"]
    with pytest.raises(ValueError, match="only for kind real_property"):
        CatalogueAsset.model_validate({**city.model_dump(), "kind": "cash"})


def test_edition_4_entries_carry_the_facts_florida_reads(catalogue):
    """Edition 4: a bungalow on three-quarters of an acre inside the town limits is over Florida's municipal
    half acre (Fla. Const. art. X, § 4(a)(1)), a condominium on a fifth of an acre is not, and a home on a
    rented park lot is exempt under Fla. Stat. § 222.05."""
    by_id = {entry.id: entry for entry in catalogue}
    bungalow, condo = by_id["bungalow_on_double_city_lot"], by_id["condo_inside_city_limits"]
    park = by_id["manufactured_home_rented_park_lot"]
    assert {bungalow.edition, condo.edition, park.edition} == {4}

    def florida(entry: CatalogueAsset) -> list[str]:
        case = Case(
            petition_date=PETITION,
            domicile=[{"state": "FL", "start": dt.date(2010, 1, 1)}],
            assets=[entry.to_asset(asset_id="home", value=entry.value_min)],
        )
        return [m.citation for m in lexsym.solve(case).result("FL").classification.get("home", [])]

    assert "Fla. Const. art. X, § 4(a)(1)" not in florida(bungalow)
    assert "Fla. Const. art. X, § 4(a)(1)" in florida(condo)
    assert "Fla. Stat. § 222.05" in florida(park)
    with pytest.raises(ValueError, match="only for kinds mobile_home and real_property"):
        CatalogueAsset.model_validate({**park.model_dump(), "kind": "cash"})
