"""Every dated amount change of every statute file has named cases filed the day before and the day it takes
effect (issue 18: moving an effective date by one day survived, since each file's cases used one petition
date)."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from pathlib import Path

import yaml

from lexsym.law.case import BAPCPA_EFFECTIVE
from lexsym.law.statute_survey import survey

REPO = Path(__file__).resolve().parents[1]


def _change_dates() -> dict[str, set[dt.date]]:
    """The dates of each statute file's `amount/4` facts (an `amount_as_of/4` record starts nothing)."""
    found: dict[str, set[dt.date]] = defaultdict(set)
    for path in sorted((REPO / "statutes").rglob("*.lp")):
        for fact in survey(path).facts:
            if fact.name == "amount":
                year, month, day = map(
                    int, re.fullmatch(r"date\((\d+),(\d+),(\d+)\)", fact.arguments[2]).groups()
                )
                found[path.relative_to(REPO).as_posix()].add(dt.date(year, month, day))
    return found


def _petition_dates() -> dict[str, set[dt.date]]:
    found: dict[str, set[dt.date]] = defaultdict(set)
    for path in sorted((REPO / "tests" / "statutes").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in data.get("cases", []):
            if "petition_date" in case:
                found[data["statute"]].add(dt.date.fromisoformat(str(case["petition_date"])))
    return found


def test_every_amount_change_is_tested_the_day_before_and_the_day_of():
    changes, petitions = _change_dates(), _petition_dates()
    assert sum(len(dates) for dates in changes.values()) >= 70  # the survey finds the dated amounts
    missing = [
        f"{path}: {day - dt.timedelta(days=1)} and {day}"
        for path, dates in sorted(changes.items())
        for day in sorted(dates)
        if day > BAPCPA_EFFECTIVE  # a case cannot be filed earlier, so an older change is out of reach
        and not {day - dt.timedelta(days=1), day} <= petitions[path]
    ]
    assert not missing, "no named case on the day before and the day of:\n" + "\n".join(missing)
