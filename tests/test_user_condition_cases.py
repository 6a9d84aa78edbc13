"""Every exemption whose rule asks who uses the asset (the debtor, or the debtor or a dependent) has a named
case in which someone else uses it and the exemption does not apply (issue 18: deleting such a condition
survived every test, for want of an asset used by a third party)."""

from __future__ import annotations

from pathlib import Path

import yaml
from clingo import ast

from lexsym.law.clingo_runner import MessageLog, parsed_file
from lexsym.law.statute_survey import survey, walk

REPO = Path(__file__).resolve().parents[1]
USER_CONDITIONS = {"asset_user", "debtor_or_dependent"}


def _exemptions_with_a_user_condition() -> dict[str, str]:
    """Citation of each exemption with a user condition in the body of one of its qualifies/3 rules."""
    found = {}
    for path in sorted((REPO / "statutes").rglob("*.lp")):
        citations = {
            f.arguments[0]: f.arguments[1].strip('"') for f in survey(path).facts if f.name == "citation"
        }
        for rule in parsed_file(path, MessageLog()):
            if rule.ast_type != ast.ASTType.Rule or rule.head.ast_type != ast.ASTType.Literal:
                continue
            head = rule.head.atom.symbol
            if getattr(head, "name", None) != "qualifies":
                continue
            tested = {n.name for b in rule.body for n in walk(b) if n.ast_type == ast.ASTType.Function}
            exemption = str(head.arguments[0])
            if tested & USER_CONDITIONS and exemption in citations:
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
    assert len(conditions) >= 40  # the walk finds the rules it is meant to
    missing = sorted(set(conditions.values()) - _shown_not_to_apply_to_a_third_partys_asset())
    assert not missing, f"no must-not-apply case with a third party's asset for: {missing}"
