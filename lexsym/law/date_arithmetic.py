"""Calendar arithmetic the statutes' periods need: whole months, month lengths, the same day years earlier.

Kept apart so that every caller (case facts, named-case defaults, generated cases) counts a 29 February
or a 31st the same way.
"""

from __future__ import annotations

import datetime as dt


def full_months_between(start: dt.date, end: dt.date) -> int:
    """Whole calendar months from `start` to `end`: 2023-01-15 -> 2024-07-14 is 17, -> 2024-07-15 is 18.

    A month is complete on the same day of a later month; when that day does not exist (the 31st), on the
    month's last day.
    """
    months = (end.year - start.year) * 12 + (end.month - start.month)
    if months <= 0:
        return 0
    last_day = days_in_month(end.year, end.month)
    if end.day < min(start.day, last_day):
        months -= 1
    return months


def days_in_month(year: int, month: int) -> int:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return (following - dt.timedelta(days=1)).day


def years_before(day: dt.date, years: int) -> dt.date:
    """The same date `years` earlier; a 29 February falls back to the 28th."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)
