"""The per-task answer shapes (pydantic), each reading what it can and naming what it drops."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Sequence
from reprlib import repr as short_repr
from typing import Any

from pydantic import BaseModel, ConfigDict, RootModel, ValidationError, ValidationInfo, model_validator

from lexsym.answers.amounts import parse_amount
from lexsym.answers.extraction import _BULLET
from lexsym.answers.names import DECORATION, citation_in_context, jurisdiction_code
from lexsym.answers.tolerant_json import as_json_types
from lexsym.answers.types import Amount, Claim
from lexsym.law.tasks import Task

# --------------------------------------------------------------------------------------------------------
# Per-task models
# --------------------------------------------------------------------------------------------------------

_WRAPPERS = {"answer", "final_answer", "finalanswer", "result", "response", "output"}
_TASK_WRAPPERS: dict[Task, set[str]] = {
    Task.AE: {"jurisdictions", "allowable_jurisdictions", "allowable_exemptions", "allowable"},
    Task.EC: {"classification", "exemption_classification", "assets"},
    Task.EV: {"valuation", "exemption_valuation", "assets"},
    Task.NA: {"non_exempt", "nonexempt", "non_exempt_assets", "non_exempt_totals"},
    Task.OE: {"optimal_exemptions"},
}
_CITATION_KEYS = ("citation", "cite", "statute", "exemption", "section", "law", "exemption_citation")
_VALUE_KEYS = (
    "claim_value",
    "value",
    "amount",
    "claim",
    "claimed_value",
    "claim_amount",
    "claimed_amount",
    "exempt_value",
    "exemption_value",
    "claimed",
    "exempt_amount",
)
_ASSET_KEYS = ("asset", "asset_description", "description", "asset_name")
_JURISDICTION_KEYS = ("jurisdiction", "chosen_jurisdiction", "state", "name", "exemption_scheme")
_SCHEDULE_KEYS = ("schedule", "claims", "exemptions", "exemption_schedule")
_TOTAL_KEYS = ("non_exempt_total", "non_exempt", "nonexempt", "total", "non_exempt_value", "value", "amount")


def _field_name(key: str) -> str:
    return re.sub(r"[\s-]+", "_", key.strip().casefold())


def _pick(data: dict[str, Any], names: Sequence[str]) -> tuple[str, Any] | None:
    """The first entry of `data` whose key, case and spacing aside, is one of `names` (in their order)."""
    by_name = {_field_name(key): key for key in data}
    for name in names:
        if name in by_name:
            return by_name[name], data[by_name[name]]
    return None


def _notes(info: ValidationInfo) -> list[str]:
    return (info.context or {}).setdefault("notes", [])


def _context(info: ValidationInfo) -> dict[str, Any]:
    return info.context or {}


def _describe(value: Any) -> str:
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list"}
    if value is None:
        return "null"
    return "an object" if isinstance(value, dict) else kinds.get(type(value), type(value).__name__)


def unwrap_answer(data: Any, task: Task, notes: list[str]) -> Any:
    """`data` without single-key wrappers such as {"answer": ...} or {"EC": ...}."""
    names = _WRAPPERS | _TASK_WRAPPERS[task] | {task.value.casefold()}
    for _ in range(3):
        if not (isinstance(data, dict) and len(data) == 1):
            break
        ((key, inner),) = data.items()
        wanted = (list, str) if task is Task.AE else (dict,) if task is Task.EC else (dict, list)  # rows
        if _field_name(key) not in names or not isinstance(inner, wanted):
            break
        notes.append(f"unwrapped {key!r}")
        data = inner
    return data


def _read_claim(item: Any, context: dict[str, Any]) -> Claim:
    """One claim: {"citation", "claim_value" (or "value", "amount", ...)}, [citation, value], a
    one-entry {citation: value}, or a bare citation (its value then None)."""
    if isinstance(item, Claim):
        return item
    if isinstance(item, dict):
        citation = _pick(item, _CITATION_KEYS)
        if citation is None and len(item) == 1 and _field_name(next(iter(item))) not in _VALUE_KEYS:
            ((text, raw),) = item.items()
        elif citation is None:
            raise ValueError("a claim has no citation")
        else:
            text = citation[1]
            value = _pick(item, _VALUE_KEYS)
            raw = value[1] if value else None
    elif isinstance(item, (list, tuple)) and len(item) == 2:
        text, raw = item
    elif isinstance(item, str):
        text, raw = item, None
        context.setdefault("notes", []).append(f"claim {item!r} has no value")
    else:
        raise ValueError(f"a claim is {_describe(item)}, not an object with a citation and a claim_value")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a claim's citation is {_describe(text)}, not a citation")
    return Claim(citation_in_context(text, context), parse_amount(raw), raw)


def _read_claims(asset: str, value: Any, context: dict[str, Any]) -> list[Claim]:
    """An asset's claims: a list of claims, one claim object, {citation: value, ...} or null."""
    notes = context.setdefault("notes", [])
    if value is None:
        return []
    if isinstance(value, dict):
        items: list[Any] = [value] if _pick(value, _CITATION_KEYS) else list(value.items())
    elif isinstance(value, (list, str)):
        items = value if isinstance(value, list) else [value]
    else:
        raise ValueError(f"expected a list of claims for {asset!r}, got {_describe(value)}")
    claims = []
    for item in items:
        try:
            claims.append(_read_claim(item, context))
        except ValueError as exc:
            notes.append(f"dropped a claim of {asset!r}: {exc}")
    if items and not claims:
        raise ValueError(f"no claim of {asset!r} could be read")
    return claims


def _read_mapping(data: Any, read_entry: Any, context: dict[str, Any], what: str) -> dict[str, Any]:
    """{asset: entry} with each entry read by `read_entry(asset, value, context)`; unreadable entries are
    dropped (and noted) unless all are."""
    if not isinstance(data, dict):
        raise ValueError(f"expected an object mapping asset descriptions to {what}, got {_describe(data)}")
    notes = context.setdefault("notes", [])
    result: dict[str, Any] = {}
    first_problem = None
    for key, value in data.items():
        asset = str(key).strip()
        try:
            result[asset] = read_entry(asset, value, context)
        except ValueError as exc:
            first_problem = first_problem or str(exc)
            notes.append(f"dropped asset {asset!r}: {exc}")
    if data and not result:
        raise ValueError(f"nothing could be read: {first_problem}")
    return result


def _schedule_rows(rows: list[Any]) -> dict[str, list[Any]] | None:
    """A schedule given as rows [{"asset": ..., "citation": ..., "claim_value": ...}], grouped by asset."""
    grouped: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        if not isinstance(row, dict) or _pick(row, _ASSET_KEYS) is None:
            return None
        key, asset = _pick(row, _ASSET_KEYS)
        grouped[str(asset)].append({k: v for k, v in row.items() if k != key})
    return dict(grouped)


def validation_message(exc: ValidationError) -> str:
    error = exc.errors()[0]
    message = str(error.get("msg", exc)).removeprefix("Value error, ")
    location = ".".join(str(part) for part in error.get("loc", ()))
    return f"{message} (at {location})" if location and error.get("type") != "value_error" else message


class AllowableAnswer(RootModel[list[str]]):
    """AE: jurisdiction ids, from a JSON list of names, a comma-separated text ("Oregon, Federal"), a
    bulleted list, or {name: true/false}. Items that are not names (no letter in them) are dropped (and
    noted); an item with commas is split; a jurisdiction named twice counts once."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        notes = _notes(info)
        if isinstance(data, str):
            data = _split_names(data)
            notes.append("read a list of names from text")
        elif isinstance(data, dict) and data and all(isinstance(v, bool) for v in data.values()):
            data = [key for key, chosen in data.items() if chosen]
            notes.append("read the names marked true")
        if not isinstance(data, list):
            raise ValueError(f"expected a list of jurisdictions, got {_describe(data)}")
        codes: list[str] = []
        for item in data:
            if isinstance(item, dict) and (picked := _pick(item, _JURISDICTION_KEYS)):
                item = picked[1]
            if not isinstance(item, str) or not re.search(r"[^\W\d_]", item):
                notes.append(f"dropped {short_repr(item)}: not a jurisdiction name")
                continue
            for name in _split_names(item) if re.search(r"[,;]", item) else [item]:  # ["Oregon, Federal"]
                code = jurisdiction_code(name)
                if code not in codes:
                    codes.append(code)
        if data and not codes:
            raise ValueError("expected a list of jurisdictions, found no names in it")
        return codes


def _split_names(text: str) -> list[str]:
    """Names in text: quoted ones, or ones separated by commas, semicolons, line breaks, "and" or "&";
    a sentence after the names ("Oregon, Federal. Both apply because ...") is dropped."""
    text = re.split(r"(?<=[a-z]{2})\.(?:\s|$)", text.strip(), maxsplit=1)[0]
    if text.startswith(('"', "'")):
        try:
            value = as_json_types(ast.literal_eval(f"[{text}]"))
            if all(isinstance(item, str) for item in value):
                return [part for item in value for part in _split_names(item)]
        except Exception:  # not a sequence of string literals: split the text itself
            pass
    parts = re.split(r"\s*(?:[,;\n]|\band\b|&)\s*", text)
    names = [_BULLET.sub("", part).strip(DECORATION).rstrip(".").strip() for part in parts]
    return [name for name in names if name]


class ClassificationAnswer(RootModel[dict[str, list[str]]]):
    """EC: asset description -> cleaned citations. An asset's value may also be one citation, null, claim
    objects (their citations are taken) or {citation: ...} (its keys)."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        return _read_mapping(data, _read_citations, _context(info), "lists of citations")


def _read_citations(asset: str, value: Any, context: dict[str, Any]) -> list[str]:
    notes = context.setdefault("notes", [])
    if value is None:
        return []
    if isinstance(value, str):
        value = [value] if value.strip() else []
    elif isinstance(value, dict):
        value = [value] if _pick(value, _CITATION_KEYS) else list(value)
    if not isinstance(value, list):
        raise ValueError(f"expected a list of citations for {asset!r}, got {_describe(value)}")
    citations = []
    for item in value:
        if isinstance(item, dict) and (picked := _pick(item, _CITATION_KEYS)):
            item = picked[1]
        if isinstance(item, str) and item.strip():
            citation = citation_in_context(item, context)
            if citation not in citations:
                citations.append(citation)
        else:
            notes.append(f"dropped {short_repr(item)} from {short_repr(asset)}: not a citation")
    if value and not citations:
        raise ValueError(f"no citation of {asset!r} could be read")
    return citations


class ValuationAnswer(RootModel[dict[str, list[Claim]]]):
    """EV: asset description -> claims (see `_read_claim` for the claim forms read)."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        _refuse_empty_list(data, "an object mapping asset descriptions to lists of claims")
        if isinstance(data, list) and (rows := _schedule_rows(data)) is not None:
            data = rows
        return _read_mapping(data, _read_claims, _context(info), "lists of claims")


def _refuse_empty_list(data: Any, expected: str) -> None:
    """An empty list is not an empty object: `[]` has the wrong shape for an answer that is an object
    (EV, NA, OE), and reading it as "no rows" would count a non-answer as well-formed."""
    if isinstance(data, list) and not data:
        raise ValueError(f"expected {expected}, got an empty list")


class NonExemptAnswer(RootModel[dict[str, Amount]]):
    """NA: jurisdiction id -> non-exempt total (None when unreadable), from {name: amount} or rows
    [{"jurisdiction": name, "non_exempt_total": amount}]. A jurisdiction named twice keeps its first."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        notes = _notes(info)
        _refuse_empty_list(data, "an object mapping jurisdiction names to amounts")
        if isinstance(data, list):
            pairs = []
            for row in data:
                name = _pick(row, _JURISDICTION_KEYS) if isinstance(row, dict) else None
                total = _pick(row, _TOTAL_KEYS) if isinstance(row, dict) else None
                if name is None:
                    notes.append(f"dropped {short_repr(row)}: no jurisdiction")
                    continue
                pairs.append((name[1], total[1] if total else None))
            if data and not pairs:
                raise ValueError("expected an object mapping jurisdictions to amounts, found no rows")
        elif isinstance(data, dict):
            pairs = list(data.items())
        else:
            raise ValueError(f"expected an object mapping jurisdictions to amounts, got {_describe(data)}")
        totals: dict[str, Amount] = {}
        for name, raw in pairs:
            if not isinstance(name, str):
                notes.append(f"dropped {short_repr(name)}: not a jurisdiction name")
                continue
            code = jurisdiction_code(name)
            if code in totals:
                notes.append(f"{name!r} names {code} again; the first amount is kept")
                continue
            totals[code] = parse_amount(raw)
            if totals[code] is None:
                notes.append(f"the amount for {name!r} is not a number: {short_repr(raw)}")
        return totals


class OptimalAnswer(BaseModel):
    """OE: {"jurisdiction": name, "schedule": {asset: claims}}, or OpenExempt's bare schedule (then the
    jurisdiction is None), or the jurisdiction beside the assets at the top level, or the schedule as rows
    [{"asset", "citation", "claim_value"}]."""

    model_config = ConfigDict(frozen=True)

    jurisdiction: str | None
    schedule: dict[str, list[Claim]]

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        context = _context(info)
        _refuse_empty_list(data, "an object with a jurisdiction and a schedule")
        if isinstance(data, list) and (rows := _schedule_rows(data)) is not None:
            data = rows
        if not isinstance(data, dict):
            raise ValueError(f"expected an object with a jurisdiction and a schedule, got {_describe(data)}")
        named = _pick(data, _JURISDICTION_KEYS[:2])
        listed = _pick(data, _SCHEDULE_KEYS)
        jurisdiction = None
        if named is not None:
            if isinstance(named[1], str) and named[1].strip():
                jurisdiction = jurisdiction_code(named[1])
            elif named[1] not in (None, ""):
                raise ValueError(f"expected the jurisdiction to be a name, got {_describe(named[1])}")
        if listed is not None:
            schedule = listed[1]
            if isinstance(schedule, list) and (rows := _schedule_rows(schedule)) is not None:
                schedule = rows
        elif named is not None:
            schedule = {k: v for k, v in data.items() if k != named[0] and isinstance(v, (list, dict))}
        else:
            schedule = data
        return {
            "jurisdiction": jurisdiction,
            "schedule": _read_mapping(schedule, _read_claims, context, "lists of claims"),
        }


MODELS: dict[Task, type[BaseModel]] = {
    Task.AE: AllowableAnswer,
    Task.EC: ClassificationAnswer,
    Task.EV: ValuationAnswer,
    Task.NA: NonExemptAnswer,
    Task.OE: OptimalAnswer,
}
"""The pydantic model that reads each task's answer (after `unwrap_answer`)."""
