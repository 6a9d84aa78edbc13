"""Cross-check of our statute parameters against OpenExempt's statute facts (read from ../shared).

Per OpenExempt citation: single and married limits at the 2022 amounts, per-item limit, item counts,
fallback and mutual exclusion. Every difference must be recorded beside our rule as
`departs_from_openexempt(E, "why")`; a citation OpenExempt encodes and we do not is a failure. A departure
may also be recorded for a difference in conditions, which this test does not compare.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict

import pytest

from lexsym.law.allocation import decode_arguments
from lexsym.law.citations import citation_key
from lexsym.law.facts import asp_date
from lexsym.law.rules import rules_root, statute_files
from lexsym.law.stratified import solve_stratified

pytestmark = pytest.mark.shared
AS_OF = dt.date(2022, 6, 1)  # OpenExempt's figures are the 2022 § 104 amounts
SHOW = """
#show exemption/2. #show citation/2. #show amount_in_force/3. #show separate_per_debtor/1.
#show item_count/2. #show joint_item_count/2. #show excludes/2. #show fallback_of/2. #show unlimited/1.
#show limited_to_support/1. #show departs_from_openexempt/2. #show departs_on/2.
"""


def _ours() -> dict[str, dict]:
    """Our parameters per citation key, as OpenExempt would state them (single and married figures)."""
    root = rules_root()
    files = [root / "encodings" / "vocabulary.lp", *statute_files(root), root / "encodings" / "amounts.lp"]
    rows: dict[str, list[tuple]] = defaultdict(list)
    for symbol in solve_stratified(files, f"petition_date({asp_date(AS_OF)}).\n{SHOW}"):
        rows[symbol.name].append(decode_arguments(symbol))
    citation = dict(rows["citation"])
    amounts = {(e, k): v for e, k, v in rows["amount_in_force"]}
    per_debtor = {e for (e,) in rows["separate_per_debtor"]}
    counts = dict(rows["item_count"])
    joint_counts = dict(rows["joint_item_count"])
    uncapped = {e for (e,) in rows["unlimited"]} | {e for (e,) in rows["limited_to_support"]}
    excludes = defaultdict(set)
    for first, second in rows["excludes"]:
        excludes[first].add(citation.get(second, second))
        excludes[second].add(citation.get(first, first))
    fallback = dict(rows["fallback_of"])
    departs = {e for e, _ in rows["departs_from_openexempt"]}
    departed_fields = defaultdict(set)
    for exemption, parameter in rows["departs_on"]:
        departed_fields[exemption].update(DEPARTURE_FIELDS[parameter])
    ours = {}
    for exemption, _jurisdiction in rows["exemption"]:
        single = None if exemption in uncapped else amounts.get((exemption, "limit"))
        double = 2 if exemption in per_debtor else 1
        married = (
            None
            if single is None
            else (single * 2 if exemption in per_debtor else amounts.get((exemption, "joint_limit"), single))
        )
        count = counts.get(exemption)
        married_count = (
            None
            if count is None
            else (count * 2 if exemption in per_debtor else joint_counts.get(exemption, count))
        )
        fallback_limit = amounts.get((exemption, "fallback"))
        ours[citation_key(citation[exemption])] = {
            "id": exemption,
            "single_limit": single,
            "married_limit": married,
            "per_item_limit": amounts.get((exemption, "per_item")),
            "single_item_claim_count": count,
            "married_item_claim_count": married_count,
            "fallback_relationship": citation.get(fallback.get(exemption)) if exemption in fallback else None,
            "single_fallback_limit": fallback_limit,
            "married_fallback_limit": None if fallback_limit is None else fallback_limit * double,
            "mutual_exclusion": sorted(excludes.get(exemption, ())),
            "departs": exemption in departs,
            "departed_fields": departed_fields[exemption],
        }
    return ours


def _theirs(shared) -> dict[str, dict]:
    theirs = {}
    for path in sorted((shared / "reference/openexempt/data/statutes").glob("*.json")):
        for entry in json.loads(path.read_text())["statutes"]:
            if "single_limit" in entry:
                exclusion = entry.get("mutual_exclusion")
                theirs[citation_key(entry["citation"])] = {
                    "citation": entry["citation"],
                    "single_limit": entry.get("single_limit"),
                    "married_limit": entry.get("married_limit"),
                    "per_item_limit": entry.get("per_item_limit"),
                    "single_item_claim_count": entry.get("single_item_claim_count"),
                    "married_item_claim_count": entry.get("married_item_claim_count"),
                    "fallback_relationship": entry.get("fallback_relationship"),
                    "single_fallback_limit": entry.get("single_fallback_limit"),
                    "married_fallback_limit": entry.get("married_fallback_limit"),
                    "mutual_exclusion": [exclusion] if exclusion else [],
                }
    return theirs


FIELDS = (
    "single_limit",
    "married_limit",
    "per_item_limit",
    "single_item_claim_count",
    "married_item_claim_count",
    "fallback_relationship",
    "single_fallback_limit",
    "married_fallback_limit",
    "mutual_exclusion",
)


DEPARTURE_FIELDS = {
    "limit": ("single_limit", "married_limit"),
    "married_limit": ("married_limit",),
    "item_count": ("single_item_claim_count", "married_item_claim_count"),
    "mutual_exclusion": ("mutual_exclusion",),
}
"""The OpenExempt fields each `departs_on/2` parameter names."""


def _differences(ours: dict, theirs: dict, *, excused: bool = True) -> dict[str, list[str]]:
    """Fields where our parameters differ from OpenExempt's, per citation; with `excused`, the fields a
    recorded departure (`departs_on/2`) names are left out."""
    found: dict[str, list[str]] = {}
    for key, entry in theirs.items():
        mine = ours.get(key)
        if mine is None:
            found[entry["citation"]] = ["not encoded"]
            continue
        fields = []
        for field in FIELDS:
            if excused and field in mine["departed_fields"]:
                continue
            a, b = mine[field], entry[field]
            if field in ("fallback_relationship",):
                a, b = (citation_key(a) if a else None), (citation_key(b) if b else None)
            if field == "mutual_exclusion":
                a, b = sorted(citation_key(x) for x in a), sorted(citation_key(x) for x in b)
            if a != b:
                fields.append(f"{field}: ours {mine[field]!r}, OpenExempt {entry[field]!r}")
        if fields:
            found[entry["citation"]] = fields
    return found


def test_every_openexempt_exemption_is_encoded(shared):
    ours, theirs = _ours(), _theirs(shared)
    missing = [entry["citation"] for key, entry in theirs.items() if key not in ours]
    assert not missing, f"OpenExempt encodes these and we do not: {missing}"


def test_every_difference_is_recorded_beside_our_rule(shared):
    ours, theirs = _ours(), _theirs(shared)
    unexplained = {
        citation: fields
        for citation, fields in _differences(ours, theirs).items()
        if fields != ["not encoded"]
    }
    assert not unexplained, "differences without departs_from_openexempt/2:\n" + "\n".join(
        f"{c}: {'; '.join(f)}" for c, f in sorted(unexplained.items())
    )


def test_every_recorded_departure_is_a_real_difference(shared):
    """A `departs_on/2` that no longer differs from OpenExempt is stale: it would excuse a future error."""
    ours, theirs = _ours(), _theirs(shared)
    unexcused = _differences(ours, theirs, excused=False)
    stale = {
        entry["id"]: sorted(
            field
            for field in entry["departed_fields"]
            if not any(line.startswith(field + ":") for line in unexcused.get(theirs[key]["citation"], []))
        )
        for key, entry in ours.items()
        if entry["departed_fields"] and key in theirs
    }
    assert not {e: fields for e, fields in stale.items() if fields}, stale
    assert all(entry["departs"] for entry in ours.values() if entry["departed_fields"])
