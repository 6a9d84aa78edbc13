"""Every exemption whose rule asks who uses the asset (the debtor, or the debtor or a dependent) has a named
case in which someone else uses it and the exemption does not apply (issue 18: deleting such a condition
survived every test, for want of an asset used by a third party)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
RULE = re.compile(r"^qualifies\((\w+),.*?:-(.*?)\.\s*$", re.M | re.S)
CITATION = re.compile(r'^citation\((\w+),\s*"([^"]+)"\)\.', re.M)
USER_CONDITION = ("asset_user(", "debtor_or_dependent(")


def _exemptions_with_a_user_condition() -> dict[str, str]:
    """Citation of each exemption with a user condition in one of its qualifies/3 rules."""
    found = {}
    for path in sorted((REPO / "statutes").rglob("*.lp")):
        text = re.sub(r"%.*", "", path.read_text(encoding="utf-8"))
        citations = dict(CITATION.findall(text))
        for exemption, body in RULE.findall(text):
            if any(word in body for word in USER_CONDITION) and exemption in citations:
                found[exemption] = citations[exemption]
    return found


def _shown_not_to_apply_to_a_third_partys_asset() -> set[str]:
    shown = set()
    for path in sorted((REPO / "tests" / "statutes").rglob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")).get("cases", []):
            strangers = {a["id"] for a in case.get("assets", []) if a.get("user") in ("other", "provider")}
            for asset, citations in ((case.get("expect") or {}).get("excludes") or {}).items():
                if asset in strangers:
                    shown.update(citations)
    return shown


def test_every_user_condition_has_a_case_where_a_third_party_uses_the_asset():
    conditions = _exemptions_with_a_user_condition()
    assert len(conditions) >= 40  # the scan finds the rules it is meant to
    missing = sorted(set(conditions.values()) - _shown_not_to_apply_to_a_third_partys_asset())
    assert not missing, f"no must-not-apply case with a third party's asset for: {missing}"
