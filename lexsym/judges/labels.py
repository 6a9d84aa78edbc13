"""Reading ratings for judge validation: one score per (item, rater) and what kind of rater each is.

Long format (one row per item and rater) because expert annotations arrive that way from spreadsheets
and annotation tools, and because it allows any rater to skip any item. Columns (CSV) or keys (JSONL):

- `item`: what was rated (for a judged run's raters, the task id);
- `rater`: who rated it;
- `score`: a number (a grade such as 0.7 or 7), or a category label (such as "model_a", "model_b",
  "tie" for pairwise choices). A file's scores are all numbers or all labels, never a mix;
- `kind`: `human` or `llm` (case-insensitive), the same on every row of a rater. It is required: only
  raters marked human form the alt-test's annotator pool, and a file cannot be trusted to say which raters
  are human by leaving that out. A file without the column is refused, naming the file.

A judged run contributes its judges and its ensemble (`ensemble:<rule>`, which contains each judge's own
grades) as raters of kind llm, always (`ratings_from_run`).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import parse_json

Score = float | str
Ratings = dict[str, dict[str, Score]]  # rater -> item -> score

HUMAN = "human"
LLM = "llm"
KINDS = (HUMAN, LLM)
COLUMNS = ("item", "rater", "score", "kind")


@dataclass
class Labels:
    """Ratings by rater, each rater's kind (human or llm), and where each rater's ratings came from."""

    ratings: Ratings = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[str]:
        return [rater for rater in self.ratings if self.kinds[rater] == kind]

    @property
    def humans(self) -> list[str]:
        return self.of_kind(HUMAN)

    @property
    def llms(self) -> list[str]:
        return self.of_kind(LLM)

    def add(self, other: Labels) -> None:
        """Join another source's raters; a rater name in both is an error (which ratings are meant?)."""
        for rater, scores in other.ratings.items():
            if rater in self.ratings:
                raise InputError(
                    f"{other.sources[rater]}: rater {rater!r} also rates in {self.sources[rater]}"
                )
            self.ratings[rater] = scores
            self.kinds[rater] = other.kinds[rater]
            self.sources[rater] = other.sources[rater]


MAX_SCORE = 1e9
"""No grade or rubric total comes near this; ±1e308 overflowed every mean and printed MAE inf (issue 19)."""


def _number(value: Any) -> float | None:
    """The score as a number, or None when it is not written as one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip().replace(",", "."))
    except ValueError:
        return None


def _scores(rows: list[tuple[str, Any]]) -> list[Score]:
    """Every score of a file as numbers, or every one as a label; a mix names the first odd one out."""
    numbers = [_number(value) for _, value in rows]
    if all(number is None for number in numbers):
        return [str(value).strip() for _, value in rows]
    first = next(index for index, number in enumerate(numbers) if number is not None)
    for (where, value), number in zip(rows, numbers, strict=True):
        if number is None:
            line = rows[first][0].rsplit(":", 1)[-1]
            raise InputError(
                f"{where}: score {value!r} is not a number, while line {line} scores {rows[first][1]!r}: "
                "a file's scores are all numbers or all category labels"
            )
        if not math.isfinite(number):
            raise InputError(f"{where}: score {value!r} is not a finite number")
        if abs(number) > MAX_SCORE:
            raise InputError(f"{where}: score {value!r} is out of range (at most {MAX_SCORE:g} either way)")
    return [float(number) for number in numbers]  # type: ignore[arg-type]


def _kind(value: Any, where: str) -> str:
    kind = str(value).strip().lower()
    if kind not in KINDS:
        raise InputError(f"{where}: kind {value!r} is neither human nor llm")
    return kind


def _file_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    rows: list[tuple[str, dict[str, Any]]] = []
    try:
        if path.suffix.lower() == ".csv":
            with open(path, newline="", encoding="utf-8-sig") as stream:
                reader = csv.DictReader(stream)
                missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
                if missing:
                    why = " (human or llm, per rater)" if "kind" in missing else ""
                    raise InputError(f"{path}:1: missing column(s) {', '.join(missing)}{why}")
                for number, row in enumerate(reader, start=2):
                    rows.append((f"{path}:{number}", row))
        else:
            with open(path, encoding="utf-8") as stream:
                for number, line in enumerate(stream, start=1):
                    if not line.strip():
                        continue
                    row = parse_json(line, f"{path}:{number}", line_numbers=False)
                    if not isinstance(row, dict):
                        raise InputError(f"{path}:{number}: a rating must be a JSON object")
                    rows.append((f"{path}:{number}", row))
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason})") from None
    return rows


def read_ratings(path: str | Path) -> Labels:
    """The ratings of a .csv or .jsonl file with item, rater, score and kind (see the module docstring).
    A rater scoring an item twice, or given two kinds, is an error."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    rows = _file_rows(path)
    for where, row in rows:
        for name in COLUMNS:
            if row.get(name) in (None, ""):
                raise InputError(f"{where}: no {name}" + (" (human or llm)" if name == "kind" else ""))
    scores = _scores([(where, row["score"]) for where, row in rows])
    labels = Labels()
    for (where, row), score in zip(rows, scores, strict=True):
        item, rater = str(row["item"]).strip(), str(row["rater"]).strip()
        kind = _kind(row["kind"], where)
        if labels.kinds.setdefault(rater, kind) != kind:
            raise InputError(
                f"{where}: rater {rater!r} is {labels.kinds[rater]} on an earlier row, not {kind}"
            )
        labels.sources.setdefault(rater, str(path))
        rated = labels.ratings.setdefault(rater, {})
        if item in rated:
            raise InputError(f"{where}: rater {rater!r} scores item {item!r} twice")
        rated[item] = score
    if not labels.ratings:
        raise InputError(f"{path}: no ratings")
    return labels


def ratings_from_run(run_dir: str | Path, *, scale: float = 1.0) -> Labels:
    """Each judge of a judged run, and the ensemble, as llm raters of the run's repeat-0 samples (by task
    id); grades multiplied by `scale` (rounded to 10 places, so 0.3 x 10 is the label 3.0)."""
    from lexsym.judges.scores import read_judged

    report = read_judged(Path(run_dir))
    if report is None:
        raise InputError(f"{run_dir}: not judged yet (no judged.json); run `lexsym judge {run_dir}` first")
    labels = Labels()
    ensemble = f"ensemble:{report.ensemble}"

    def rate(rater: str, item: str, score: float) -> None:
        labels.ratings.setdefault(rater, {})[item] = round(float(score) * scale, 10)
        labels.kinds[rater] = LLM
        labels.sources[rater] = str(run_dir)

    for row in report.samples:
        if row["repeat"] != 0:
            continue
        for judge, score in row["judges"].items():
            if score is not None:
                rate(judge, row["task_id"], score)
        if row.get("score") is not None:
            rate(ensemble, row["task_id"], row["score"])
    return labels
