"""Reading a model's answer: finding it in the text, reading the value, and the per-task shapes."""

from __future__ import annotations

from lexsym.answers.alignment import align_assets
from lexsym.answers.amounts import parse_amount
from lexsym.answers.extraction import extract_final_answer
from lexsym.answers.names import jurisdiction_code, normalize_citation
from lexsym.answers.parse import parse_answer
from lexsym.answers.shapes import (
    AllowableAnswer,
    ClassificationAnswer,
    NonExemptAnswer,
    OptimalAnswer,
    ValuationAnswer,
)
from lexsym.answers.types import Claim, OEAnswer, ParsedAnswer

__all__ = [
    "AllowableAnswer",
    "Claim",
    "ClassificationAnswer",
    "NonExemptAnswer",
    "OEAnswer",
    "OptimalAnswer",
    "ParsedAnswer",
    "ValuationAnswer",
    "align_assets",
    "extract_final_answer",
    "jurisdiction_code",
    "normalize_citation",
    "parse_amount",
    "parse_answer",
]
