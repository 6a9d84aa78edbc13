"""Is a task record's gold an answer of its task? Checked when tasks are read, so scoring can trust it."""

from __future__ import annotations

import math
from typing import Any


def finite_amount(value: Any) -> float | None:
    """A finite number from an amount (int, float, or numeric string like "$1,200"), else None. Gold
    amounts are checked with it when tasks are read, so scoring never meets an unreadable gold amount."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.replace(",", "").replace("$", "").strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _check_list_of_str(value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("expected a list of strings")


def _check_ec(gold: Any) -> None:
    if not isinstance(gold, dict):
        raise TypeError("expected an object")
    for citations in gold.values():
        _check_list_of_str(citations)


def _check_claims(claims: Any) -> None:
    if not isinstance(claims, list):
        raise TypeError("expected a list of claims")
    for claim in claims:
        if not isinstance(claim.get("citation"), str) or finite_amount(claim.get("claim_value")) is None:
            raise ValueError("a claim needs a citation and a claim_value")


def _check_ev(gold: Any) -> None:
    if not isinstance(gold, dict):
        raise TypeError("expected an object")
    for claims in gold.values():
        _check_claims(claims)


def _check_na(gold: Any) -> None:
    if not isinstance(gold, dict) or any(finite_amount(v) is None for v in gold.values()):
        raise TypeError("expected an object of amounts")


def _check_oe(gold: Any) -> None:
    if not isinstance(gold, dict) or not isinstance(gold.get("schedule"), dict):
        raise TypeError("expected an object with a schedule")
    for claims in gold["schedule"].values():
        _check_claims(claims)


#: Per task, a function that raises (TypeError, ValueError, KeyError or AttributeError) on a malformed gold.
GOLD_CHECKS = {"AE": _check_list_of_str, "EC": _check_ec, "EV": _check_ev, "NA": _check_na, "OE": _check_oe}
