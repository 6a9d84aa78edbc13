"""A statement about a case and the few phrases every kind of statement shares (names of systems, parties,
round amounts), so the five kinds read alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexsym.exams.statements import roman
from lexsym.generate.templates import jurisdiction_name
from lexsym.law.vocabulary import FEDERAL


@dataclass(frozen=True)
class Statement:
    """One statement about a case, with its truth under the gold and why.

    `fact` is the machine-readable claim: {"jurisdiction"} (AE); {"jurisdiction", "asset_id", "citation"}
    (EC), plus "value" in whole dollars (EV); {"jurisdiction", "value"} (NA); {"jurisdiction", "claims":
    [[asset_id, citation, amount], ...]} (OE).
    `topic` keeps one question from asking twice about the same thing.
    """

    kind: str
    text: str
    truth: bool
    reason: str
    fact: dict[str, Any]
    topic: tuple

    def to_json(self, number: int) -> dict[str, Any]:
        return {
            "number": number,
            "label": roman(number),
            "kind": self.kind,
            "text": self.text,
            "truth": self.truth,
            "reason": self.reason,
            "fact": self.fact,
        }


def debtor_phrase(married: bool) -> str:
    return "the debtors" if married else "the debtor"


def system_phrase(code: str) -> str:
    """A jurisdiction's exemptions as a sentence names them."""
    return (
        "federal exemptions (11 U.S.C. § 522(d))"
        if code == FEDERAL
        else f"{jurisdiction_name(code)} exemptions"
    )


def jurisdiction_names(codes: Sequence[str]) -> str:
    return ", ".join(jurisdiction_name(code) for code in codes) or "none"


def nice_amount(value: int) -> int:
    """Round a made-up amount to a figure a statement would state."""
    if value < 100:
        return max(value, 0)
    step = 10 if value < 10_000 else 100 if value < 100_000 else 500
    return max(step, round(value / step) * step)
