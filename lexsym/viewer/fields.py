"""Per-field differences between a model's parsed answer and the gold: one row per field (a jurisdiction,
an asset, an asset's claim under one citation), each with the gold value, the answer's value and whether
they agree.

Why a table of its own: the scores say how wrong an answer is (an F1, a MARE), this says where. Fields are
keyed the gold's way (asset descriptions, jurisdiction names); the answer's keys are matched to them as the
scorer matches them (fuzzy asset alignment, citations resolved to the statutes' own), and a key of the
answer that matches none gets a row of its own. Amounts agree exactly ("yes"), within the 5 % tolerance
the scores allow ("within 5 %") or not ("no").
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from lexsym.answers import align_assets, normalize_citation
from lexsym.law.citations import citation_key
from lexsym.law.first_pass import statute_citations
from lexsym.law.rules import rules_root
from lexsym.law.systems import system_name
from lexsym.scoring.metrics import within_tolerance

Field = dict[str, Any]
"""{"field": str, "gold": str, "answer": str, "same": "yes" | "within 5 %" | "no"}."""

NONE = "—"


@cache
def _known() -> tuple[str, ...]:
    return tuple(statute_citations(rules_root()))


def _key(citation: str) -> str:
    return citation_key(normalize_citation(str(citation), _known()))


def _money(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return NONE if value is None else str(value)
    if isinstance(value, (int, float)):
        return f"${value:,.0f}" if float(value).is_integer() else f"${value:,.2f}"
    return str(value)


def _row(name: str, gold: str, answer: str, same: bool | str) -> Field:
    verdict = same if isinstance(same, str) else ("yes" if same else "no")
    return {"field": name, "gold": gold, "answer": answer, "same": verdict}


def _amounts_agree(gold: Any, answer: Any) -> str:
    if answer is None or gold is None or isinstance(answer, bool):
        return "no"
    if answer == gold:
        return "yes"
    try:
        return "within 5 %" if within_tolerance(float(answer), float(gold)) else "no"
    except (TypeError, ValueError):
        return "no"


def _name(code: Any) -> str:
    return system_name(str(code)) if code else "none named"


def _aligned(value: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The answer's entries keyed by the gold's asset descriptions, and the answer's keys that match none."""
    mapping = align_assets(list(value), list(gold))
    return {mapping[key]: entries for key, entries in value.items() if key in mapping}, [
        key for key in value if key not in mapping
    ]


def _allowable(value: list[str], gold: list[str]) -> list[Field]:
    named = [_name(code) for code in value]
    rows = [
        _row(name, "allowable", "listed" if name in named else "not listed", name in named) for name in gold
    ]
    rows += [
        _row(name, "not allowable", "listed", False) for name in dict.fromkeys(named) if name not in gold
    ]
    return rows


def _citations(citations: Iterable[str]) -> str:
    return "; ".join(citations) or "none"


def _classification(value: dict[str, list[str]], gold: dict[str, list[str]]) -> list[Field]:
    keyed, unknown = _aligned(value, gold)
    rows = []
    for asset, expected in gold.items():
        if asset not in keyed:
            rows.append(_row(asset, _citations(expected), "no answer", False))
            continue
        given = [normalize_citation(str(c), _known()) for c in keyed[asset]]
        same = {_key(c) for c in given} == {_key(c) for c in expected}
        rows.append(_row(asset, _citations(expected), _citations(given), same))
    rows += [
        _row(f"{key} (not an asset of the case)", NONE, _citations(value[key]), False) for key in unknown
    ]
    return rows


def _claims(
    value: dict[str, list[Any]], gold: dict[str, list[dict[str, Any]]], extra: str = "does not apply"
) -> list[Field]:
    """Rows per (asset, citation) for EV claims and OE schedules: gold amounts against the answer's."""
    keyed, unknown = _aligned(value, gold)
    rows = []
    for asset, expected in gold.items():
        given: dict[str, Any] = {}
        for claim in keyed.get(asset, []):
            citation = normalize_citation(str(claim.citation), _known())
            given[_key(citation)] = (
                citation,
                claim.claim_value if claim.claim_value is not None else claim.raw_value,
            )
        for entry in expected:
            found = given.pop(_key(entry["citation"]), None)
            answer = NONE if found is None else _money(found[1])
            same = "no" if found is None else _amounts_agree(entry["claim_value"], found[1])
            rows.append(_row(f"{asset} · {entry['citation']}", _money(entry["claim_value"]), answer, same))
        for citation, amount in given.values():
            rows.append(_row(f"{asset} · {citation}", extra, _money(amount), False))
    for key in unknown:
        for claim in value[key]:
            rows.append(
                _row(
                    f"{key} (not an asset of the case) · {claim.citation}",
                    NONE,
                    _money(claim.raw_value),
                    False,
                )
            )
    return rows


def _non_exempt(value: dict[str, Any], gold: dict[str, Any]) -> list[Field]:
    named = {_name(code): amount for code, amount in value.items()}
    rows = [
        _row(
            name,
            _money(amount),
            _money(named[name]) if name in named else NONE,
            _amounts_agree(amount, named.get(name)),
        )
        for name, amount in gold.items()
    ]
    rows += [
        _row(name, "not allowable", _money(amount), False)
        for name, amount in named.items()
        if name not in gold
    ]
    return rows


def _optimal(value: Any, gold: dict[str, Any]) -> list[Field]:
    chosen = _name(value.jurisdiction)
    rows = [_row("jurisdiction", str(gold.get("jurisdiction")), chosen, chosen == gold.get("jurisdiction"))]
    return rows + _claims(value.schedule, gold.get("schedule") or {}, extra="not claimed")


_BY_TASK = {"AE": _allowable, "EC": _classification, "EV": _claims, "NA": _non_exempt, "OE": _optimal}


def field_differences(task: str, value: Any, gold: Any) -> list[Field]:
    """The rows for a parsed answer `value` (as `parse_answer` types it) to a generated task; [] for other
    tasks or when the answer or the gold has an unexpected shape (the scores say why)."""
    compare = _BY_TASK.get(task)
    if compare is None or value is None or gold is None:
        return []
    try:
        return compare(value, gold)
    except (AttributeError, KeyError, TypeError, ValueError):
        return []


def choice_difference(gold: str, gold_text: str | None, chosen: str | None, chosen_text: str | None) -> Field:
    """The one row of an MCQ: the gold option against the one chosen."""

    def shown(label: str | None, text: str | None) -> str:
        if label is None:
            return "none chosen"
        return f"{label}: {text}" if text else label

    return _row("choice", shown(gold, gold_text), shown(chosen, chosen_text), chosen == gold)
