"""The exam item models of the four published formats (LEXam open and MCQ, KCL essay and MCQA), validated
field by field so a bad row is reported with its field before any model runs on it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)


class ExamFormat(str, Enum):
    """The exam formats `lexsym exam convert` reads."""

    lexam_mcq = "lexam-mcq"
    lexam_open = "lexam-open"
    kcl_essay = "kcl-essay"
    kcl_mcqa = "kcl-mcqa"


class ExamItemBase(BaseModel):
    # Unknown columns are ignored (datasets grow fields); numbers in an id column become text.
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_missing(cls, value: Any, info: ValidationInfo) -> Any:
        """A blank cell is a missing value; a required text left blank is named as empty."""
        if isinstance(value, str) and not value.strip():
            if info.field_name and cls.model_fields[info.field_name].is_required():
                raise ValueError("is empty")
            return None
        return value


def _nonblank(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} is empty")
    return value


class LexamOpen(ExamItemBase):
    """A LEXam open question with its reference answer."""

    id: str
    question: str
    answer: str
    course: str | None = None
    language: str | None = None
    area: str | None = None
    jurisdiction: str | None = None
    year: int | None = None


class LexamMCQ(ExamItemBase):
    """A LEXam multiple-choice question: options in the source's order and the 0-based gold index."""

    id: str
    question: str
    choices: list[str] = Field(min_length=2)
    gold: int
    course: str | None = None
    language: str | None = None
    area: str | None = None
    jurisdiction: str | None = None
    year: int | None = None
    n_statements: int | None = None
    none_as_an_option: bool | None = None
    negative_question: bool = False
    choice_set: int | None = Field(None, description="k of the robustness-set row this item came from.")

    @field_validator("gold", mode="before")
    @classmethod
    def _letter_gold(cls, value: Any) -> Any:
        """A letter ("B") means its 0-based position; LEXam's own field is an integer index."""
        if isinstance(value, str) and re.fullmatch(r"\s*[A-Za-z]\s*", value):
            return ord(value.strip().upper()) - ord("A")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @field_validator("negative_question", mode="before")
    @classmethod
    def _missing_is_false(cls, value: Any) -> Any:
        return False if value is None else value

    @model_validator(mode="after")
    def _gold_in_range(self) -> LexamMCQ:
        if not 0 <= self.gold < len(self.choices):
            raise ValueError(f"gold index {self.gold} is outside the {len(self.choices)} choices")
        seen: set[str] = set()
        for text in self.choices:
            _nonblank(text, "a choice")
            if text in seen:
                raise ValueError(f"choice {text!r} appears twice (options must be distinct)")
            seen.add(text)
        return self


class Precedent(BaseModel):
    """A supporting precedent: case name (when the source gives one) and full text."""

    model_config = ConfigDict(frozen=True)

    name: str | None = None
    text: str


class RubricItem(BaseModel):
    """One rubric criterion and, when the source gives them, its points."""

    model_config = ConfigDict(frozen=True)

    text: str
    points: float | None = Field(None, ge=0)


def _precedents(value: Any) -> Any:
    """KCL's supporting_precedents: JSON strings {"case name": "text", ...}, objects, or plain text."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("supporting_precedents must be a list")
    found: list[Precedent] = []
    for entry in value:
        if isinstance(entry, str):
            try:
                decoded = json.loads(entry)
            except ValueError:
                decoded = entry
            entry = decoded
        if isinstance(entry, str):
            found.append(Precedent(text=entry))
        elif isinstance(entry, Mapping) and "text" in entry and set(entry) <= {"name", "text"}:
            found.append(Precedent.model_validate(entry))
        elif isinstance(entry, Mapping):
            for name, text in entry.items():
                if not isinstance(text, str):
                    raise ValueError(f"precedent {name!r}: its text must be a string")
                found.append(Precedent(name=str(name), text=text))
        else:
            raise ValueError(f"a precedent must be a JSON string or an object, not {type(entry).__name__}")
    return found


_RUBRIC_TEXT_KEYS = ("text", "rubric", "criterion", "description")


_RUBRIC_POINT_KEYS = ("points", "score", "point")


def _rubric(entry: Any) -> Any:
    if isinstance(entry, str):
        return RubricItem(text=_nonblank(entry, "a rubric"))
    if isinstance(entry, Mapping):
        text = next((entry[k] for k in _RUBRIC_TEXT_KEYS if k in entry), None)
        points = next((entry[k] for k in _RUBRIC_POINT_KEYS if k in entry), None)
        if not isinstance(text, str):
            raise ValueError(f"a rubric object needs its text in one of {', '.join(_RUBRIC_TEXT_KEYS)}")
        return RubricItem(text=_nonblank(text, "a rubric"), points=points)
    raise ValueError(f"a rubric must be a string or an object, not {type(entry).__name__}")


class KclEssay(ExamItemBase):
    """A KCL essay question: rubric criteria, the question's total points, and supporting precedents."""

    id: str
    meta: str
    question: str
    rubrics: list[RubricItem] = Field(min_length=1)
    score: float | None = Field(None, gt=0, description="The question's total points in the bar exam.")
    supporting_precedents: list[Precedent] = Field(default_factory=list)
    language: str | None = Field(None, description="Not in KCL (Korean); for KCL-shaped items in another.")
    jurisdiction: str | None = None

    @field_validator("rubrics", mode="before")
    @classmethod
    def _rubrics(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueError("rubrics must be a list")
        return [_rubric(entry) for entry in value]

    @field_validator("supporting_precedents", mode="before")
    @classmethod
    def _supporting(cls, value: Any) -> Any:
        return _precedents(value)

    @model_validator(mode="after")
    def _points_agree(self) -> KclEssay:
        given = [r.points for r in self.rubrics]
        if any(p is None for p in given) and any(p is not None for p in given):
            raise ValueError("give points for every rubric or for none")
        if given[0] is None and self.score is None:
            raise ValueError("without per-rubric points the question needs its total score")
        if given[0] is not None and self.score is not None:
            total = sum(p for p in given if p is not None)
            if abs(total - self.score) > 1e-6 * max(1.0, self.score):
                raise ValueError(f"rubric points sum to {total:g}, not the question's score {self.score:g}")
        return self

    def rubric_points(self) -> tuple[list[float], float]:
        """Each rubric's points and the total. Without per-rubric points, the total is shared evenly, as
        KCL does (the bar exam's points for the question over its rubrics)."""
        given = [r.points for r in self.rubrics]
        if given[0] is not None:
            points = [float(p or 0.0) for p in given]
            return points, float(sum(points))
        total = float(self.score or 0.0)
        return [total / len(self.rubrics)] * len(self.rubrics), total


KCL_LETTERS = ("A", "B", "C", "D", "E")


_CIRCLED = {"①": 1, "②": 2, "③": 3, "④": 4, "⑤": 5}


class KclMCQA(ExamItemBase):
    """A KCL five-choice question: options A-E (verbatim from the bar exam) and the right letter."""

    id: str
    meta: str
    question: str
    A: str
    B: str
    C: str
    D: str
    E: str
    label: str
    supporting_precedents: list[Precedent] = Field(default_factory=list)
    language: str | None = Field(None, description="Not in KCL (Korean); for KCL-shaped items in another.")
    jurisdiction: str | None = None

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Any:
        """ "B", "b", "(B)", "B." mean B; 1-5 and ①-⑤ count from A."""
        if isinstance(value, bool):
            raise ValueError("label must be a letter A-E")
        if isinstance(value, (int, float)) and float(value).is_integer() and 1 <= value <= 5:
            return KCL_LETTERS[int(value) - 1]
        if isinstance(value, str):
            text = value.strip().strip("().[] ").upper()
            if text in KCL_LETTERS:
                return text
            if text.isascii() and text.isdigit() and 1 <= int(text) <= 5:  # "②".isdigit() is true
                return KCL_LETTERS[int(text) - 1]
            if text in _CIRCLED:
                return KCL_LETTERS[_CIRCLED[text] - 1]
        raise ValueError(f"label must be one of A-E, 1-5 or ①-⑤, not {value!r}")

    @field_validator("supporting_precedents", mode="before")
    @classmethod
    def _supporting(cls, value: Any) -> Any:
        return _precedents(value)

    @property
    def choices(self) -> list[str]:
        return [self.A, self.B, self.C, self.D, self.E]

    @property
    def gold(self) -> int:
        return KCL_LETTERS.index(self.label)


ExamItem = LexamOpen | LexamMCQ | KclEssay | KclMCQA


def describe(error: ValidationError) -> str:
    """Every problem pydantic found, as "field: message; field: message"."""
    parts = []
    for problem in error.errors():
        location = ".".join(str(p) for p in problem["loc"] if not str(p).startswith("function-"))
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)
