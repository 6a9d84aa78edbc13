"""A lint problem, the edits that fix it, and how lint locates and suggests (shared by every check)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lexsym.law.statute_survey import Fact, Survey


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` as a whole word on `line` of `path` (every line when `line` is None)."""

    path: Path
    line: int | None
    old: str
    new: str


@dataclass(frozen=True)
class Problem:
    location: str
    message: str
    code: str = "LX301"
    edits: tuple[Edit, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"{self.location}: {self.code} {self.message}"


def locate(path: Path, line: int | None = None) -> str:
    try:
        shown = path.relative_to(Path.cwd())
    except ValueError:
        shown = path
    return f"{shown}:{line}" if line else str(shown)


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.75)
    return close[0] if close else None


def by_name(surveys: dict[Path, Survey], name: str, arity: int) -> list[tuple[Path, Fact]]:
    return [
        (path, fact)
        for path, found in surveys.items()
        for fact in found.facts
        if fact.name == name and len(fact.arguments) == arity
    ]
