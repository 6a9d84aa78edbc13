"""Reading expert labels for judge validation: one score per (item, rater), as CSV or JSONL.

Long format (one row per item and rater) because expert annotations arrive that way from spreadsheets
and annotation tools, and because it allows any rater to skip any item. Columns (or keys): `item`,
`rater`, `score`. A judged run can contribute its judges and ensemble as further raters
(`ratings_from_run`), the item being the task id.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError

Ratings = dict[str, dict[str, float]]  # rater -> item -> score


def _score(value: Any, where: str) -> float:
    try:
        number = float(str(value).strip().replace(",", "."))
    except ValueError:
        raise InputError(f"{where}: score {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{where}: score {value!r} is not a finite number")
    return number


def read_ratings(path: str | Path) -> Ratings:
    """Ratings from a .csv or .jsonl file with item, rater and score; a rater scoring an item twice is
    an error (which of the two is meant?)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    rows: list[tuple[str, dict[str, Any]]] = []
    try:
        if path.suffix.lower() == ".csv":
            with open(path, newline="", encoding="utf-8-sig") as stream:
                reader = csv.DictReader(stream)
                missing = {"item", "rater", "score"} - set(reader.fieldnames or ())
                if missing:
                    raise InputError(f"{path}:1: missing column(s) {', '.join(sorted(missing))}")
                for number, row in enumerate(reader, start=2):
                    rows.append((f"{path}:{number}", row))
        else:
            with open(path, encoding="utf-8") as stream:
                for number, line in enumerate(stream, start=1):
                    if not line.strip():
                        continue
                    try:
                        row = json.loads(line)
                    except ValueError as error:
                        raise InputError(f"{path}:{number}: invalid JSON: {error}") from None
                    if not isinstance(row, dict):
                        raise InputError(f"{path}:{number}: a rating must be a JSON object")
                    rows.append((f"{path}:{number}", row))
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason})") from None
    ratings: Ratings = {}
    for where, row in rows:
        for field in ("item", "rater", "score"):
            if row.get(field) in (None, ""):
                raise InputError(f"{where}: no {field}")
        item, rater = str(row["item"]).strip(), str(row["rater"]).strip()
        scores = ratings.setdefault(rater, {})
        if item in scores:
            raise InputError(f"{where}: rater {rater!r} scores item {item!r} twice")
        scores[item] = _score(row["score"], where)
    if not ratings:
        raise InputError(f"{path}: no ratings")
    return ratings


def ratings_from_run(run_dir: str | Path) -> Ratings:
    """Each judge of a judged run, and the ensemble, as raters of the run's repeat-0 samples (by task id)."""
    from lexsym.judges.scores import read_judged

    report = read_judged(Path(run_dir))
    if report is None:
        raise InputError(f"{run_dir}: not judged yet (no judged.json); run `lexsym judge {run_dir}` first")
    ratings: Ratings = {}
    ensemble = f"ensemble:{report.ensemble}"
    for row in report.samples:
        if row["repeat"] != 0:
            continue
        for judge, score in row["judges"].items():
            if score is not None:
                ratings.setdefault(judge, {})[row["task_id"]] = float(score)
        if row.get("score") is not None:
            ratings.setdefault(ensemble, {})[row["task_id"]] = float(row["score"])
    return ratings
