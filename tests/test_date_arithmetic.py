"""Calendar arithmetic behind the statutes' periods: month lengths, whole months across month ends, year ends
and February, and the same day years earlier (issue 18: a wrong month length survived every other test)."""

from __future__ import annotations

import calendar
import datetime as dt

import pytest

from lexsym.law.date_arithmetic import days_in_month, full_months_between, years_before


@pytest.mark.parametrize("year", [2023, 2024, 1900, 2000])
def test_every_month_has_its_length_in_common_and_leap_years(year):
    assert [days_in_month(year, month) for month in range(1, 13)] == [
        calendar.monthrange(year, month)[1] for month in range(1, 13)
    ]


@pytest.mark.parametrize(
    ("start", "end", "months"),
    [
        ("2023-01-15", "2024-07-14", 17),
        ("2023-01-15", "2024-07-15", 18),
        ("2023-08-31", "2024-02-28", 5),  # leap February: the 31st falls back to the 29th
        ("2023-08-31", "2024-02-29", 6),
        ("2022-08-31", "2023-02-27", 5),  # common February: to the 28th
        ("2022-08-31", "2023-02-28", 6),
        ("2023-12-31", "2024-01-30", 0),  # across a year end
        ("2023-12-31", "2024-01-31", 1),
        ("2023-11-30", "2023-12-30", 1),  # a December end
        ("2023-11-30", "2023-12-29", 0),
        ("2024-03-01", "2024-02-01", 0),  # an end before the start
    ],
)
def test_whole_months_count_to_the_same_day_or_the_months_last_day(start, end, months):
    assert full_months_between(dt.date.fromisoformat(start), dt.date.fromisoformat(end)) == months


def test_the_same_day_years_earlier_falls_back_from_29_february():
    assert years_before(dt.date(2024, 2, 29), 10) == dt.date(2014, 2, 28)
    assert years_before(dt.date(2024, 2, 29), 4) == dt.date(2020, 2, 29)
    assert years_before(dt.date(2025, 12, 31), 1) == dt.date(2024, 12, 31)
