"""OpenExempt's own case records (what its generator writes to `cases.jsonl`) read into lexsym cases.

OpenExempt's `Case.serialize()` writes a debtor and a joint debtor (`{"first_name", "last_name"}`, the joint
debtor null for a single filing), assets (`description`, `dollar_value`, `applicable_exemptions`,
`category_hints`), the gold state (`state_jurisdiction`, an upper-case name), the petition date as an ISO
datetime ("2024-11-21T00:00:00") and `domicile_dates`: the day of each move (ISO datetime) -> the state
moved to. A move's period runs to the next move, the last one to the petition date.

The record is checked field by field, and every problem names the field: a missing `joint_debtor` is an
error rather than a single filing, since the filing decides the amounts.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from lexsym._util.errors import InputError
from lexsym.interop.openexempt import case_from_openexempt, place_id
from lexsym.law.case import Case

NATIVE_KEYS = ("debtor", "joint_debtor", "assets", "state_jurisdiction", "petition_date", "domicile_dates")
"""The keys of one native case record, all required (`joint_debtor` may be null)."""


def is_native_case(record: Any) -> bool:
    """Whether `record` looks like OpenExempt's native case (rather than lexsym's or a reshaped export)."""
    return isinstance(record, dict) and "domicile_dates" in record and "debtor" in record


def native_date(value: Any, field: str) -> dt.date:
    """The day of an OpenExempt datetime or date string ("2024-11-21T00:00:00" or "2024-11-21")."""
    if not isinstance(value, str):
        raise InputError(f"{field}: expected an ISO date or datetime string, got {type(value).__name__}")
    try:
        return dt.datetime.fromisoformat(value.strip()).date()
    except ValueError:
        raise InputError(f"{field}: {value!r} is not an ISO date or datetime") from None


def _name(party: Any, field: str) -> str:
    if not isinstance(party, dict):
        raise InputError(f"{field}: expected an object with first_name and last_name")
    parts = []
    for key in ("first_name", "last_name"):
        value = party.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{field}.{key}: expected a non-empty string")
        parts.append(value.strip())
    return " ".join(parts)


def _asset(asset: Any, field: str) -> dict[str, Any]:
    if not isinstance(asset, dict):
        raise InputError(f"{field}: expected an object")
    description = asset.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InputError(f"{field}.description: expected a non-empty string")
    value = asset.get("dollar_value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f"{field}.dollar_value: expected a non-negative number, got {value!r}")
    if value != int(value):
        raise InputError(f"{field}.dollar_value: {value!r} is not a whole number of dollars")
    citations = asset.get("applicable_exemptions", [])
    if not isinstance(citations, list) or not all(isinstance(c, str) for c in citations):
        raise InputError(f"{field}.applicable_exemptions: expected a list of citation strings")
    return {"description": description, "dollar_value": int(value), "applicable_exemptions": citations}


def domicile_history(domicile_dates: Any, petition: dt.date, field: str) -> list[dict[str, Any]]:
    """`domicile_dates` as consecutive half-open periods, the last ending on the petition date."""
    if not isinstance(domicile_dates, dict) or not domicile_dates:
        raise InputError(f"{field}: expected a non-empty object of move date -> state")
    moves = []
    for raw, state in domicile_dates.items():
        day = native_date(raw, f"{field}[{raw!r}]")
        if not isinstance(state, str):
            raise InputError(f"{field}[{raw!r}]: expected a state name")
        try:
            place_id(state)
        except InputError as error:
            raise InputError(f"{field}[{raw!r}]: {error}") from None
        if day > petition:
            raise InputError(f"{field}[{raw!r}]: a move after the petition date {petition}")
        moves.append((day, state))
    moves.sort()
    if len({day for day, _ in moves}) != len(moves):
        raise InputError(f"{field}: two moves on one day")
    ends = [day for day, _ in moves[1:]] + [petition]
    return [
        {"state": state, "start": day.isoformat(), "end": end.isoformat()}
        for (day, state), end in zip(moves, ends, strict=True)
    ]


def reshaped_record(record: Any, case_id: str, source: str) -> dict[str, Any]:
    """The native record in the shape `case_from_openexempt` reads (married, parties, domicile_history)."""
    if not isinstance(record, dict):
        raise InputError(f"{source}: a case record must be a JSON object, not {type(record).__name__}")
    missing = [key for key in NATIVE_KEYS if key not in record]
    if missing:
        raise InputError(
            f"{source}: missing {', '.join(missing)} (OpenExempt's case fields: {', '.join(NATIVE_KEYS)})"
        )
    try:
        petition = native_date(record["petition_date"], "petition_date")
        parties = [_name(record["debtor"], "debtor")]
        if record["joint_debtor"] is not None:
            parties.append(_name(record["joint_debtor"], "joint_debtor"))
        if not isinstance(record["assets"], list):
            raise InputError("assets: expected a list")
        assets = [_asset(asset, f"assets[{number}]") for number, asset in enumerate(record["assets"])]
        descriptions = [asset["description"] for asset in assets]
        if len(set(descriptions)) != len(descriptions):
            raise InputError("assets: two assets share a description (OpenExempt's answers key on it)")
        history = domicile_history(record["domicile_dates"], petition, "domicile_dates")
        place_id(str(record["state_jurisdiction"]))
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    return {
        "case_id": case_id,
        "married": record["joint_debtor"] is not None,
        "petition_date": petition.isoformat(),
        "parties": parties,
        "domicile_history": history,
        "assets": assets,
    }


def case_from_native(
    record: Any, *, case_id: str, source: str, readings: dict[str, str] | None = None
) -> Case:
    """A lexsym case from one native OpenExempt case record (see the module docstring).

    `readings`: the contested readings to solve under; by default OpenExempt's (`OPENEXEMPT_READINGS`).
    """
    return case_from_openexempt(reshaped_record(record, case_id, source), readings=readings, source=source)
