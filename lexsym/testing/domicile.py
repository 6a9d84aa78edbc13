"""Hypothesis strategies for domicile histories, to property-test the 730-day rule (§ 522(b)(3)(A)).

A history is drawn as offsets, in days before the petition date, so that the boundaries of the two
windows can be hit on purpose: offset k is the day P-k, the 730-day window is offsets 1..730 and the
180-day window is offsets 731..910. A period from offset `a` down to offset `b` (a > b >= 0) is the
half-open date range [P-a, P-b) and covers offsets b+1..a.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from typing import NamedTuple

from hypothesis import strategies as st

from lexsym.law.case import Case, DomicilePeriod
from lexsym.law.vocabulary import FOREIGN, Filing

WINDOW_730 = 730
"""Offsets 1..730: the 730 days before the petition."""
WINDOW_180_END = 910
"""Offsets 731..910: the 180 days before the 730-day period."""

DEFAULT_PLACES = ("OR", "PA", "WI", "DC", "TX", "AZ", "IL", "FL", "UT", "NE", "MT", "WV", FOREIGN)
"""States that authorize § 522(d); opt-out states whose words reach residents (AZ, IL, FL), recent residents
(UT), filings in the state (NE) or every debtor (MT); West Virginia, which stopped opting out on
2021-07-01; D.C.; and a place outside the United States."""

BOUNDARY_OFFSETS = (1, 2, 365, 366, 729, 730, 731, 732, 790, 819, 820, 821, 850, 909, 910, 911, 912)
"""Cut points worth hitting: the edges of both windows and the 90/90 and 60/60/60 splits of the 180 days."""

LEAP_DAYS = (dt.date(2020, 2, 29), dt.date(2024, 2, 29), dt.date(2028, 2, 29))


class DomicileHistory(NamedTuple):
    """A petition date and the domicile periods before it (in no particular order)."""

    petition_date: dt.date
    periods: list[DomicilePeriod]


def _leap_petition_dates(first: dt.date, last: dt.date) -> list[dt.date]:
    """Petition dates that put a leap day on the first or last day of either window, or just outside."""
    offsets = (1, 2, 729, 730, 731, 732, 909, 910, 911)
    days = [leap + dt.timedelta(days=k) for leap in LEAP_DAYS for k in offsets]
    return [day for day in days if first <= day <= last]


@st.composite
def _petition_dates(draw: st.DrawFn, first: dt.date, last: dt.date) -> dt.date:
    special = _leap_petition_dates(first, last)
    if special and draw(st.booleans()):
        return draw(st.sampled_from(special))
    return draw(st.dates(min_value=first, max_value=last))


@st.composite
def _segments(
    draw: st.DrawFn, top: int, bottom: int, places: Sequence[str], *, max_cuts: int, min_cuts: int = 0
) -> list[tuple[str | None, int, int]]:
    """Cut offsets top > ... > bottom into intervals and give each a place, or None (a gap) one time in 8."""
    inside = [k for k in BOUNDARY_OFFSETS if bottom < k < top]
    cuts: set[int] = set()
    if inside:
        cuts |= draw(st.sets(st.sampled_from(inside), max_size=len(inside)))
    if top - bottom > 1:
        count = draw(st.integers(min(min_cuts, max_cuts), max_cuts))
        cuts |= set(draw(st.lists(st.integers(bottom + 1, top - 1), min_size=count, max_size=count)))
    edges = [top, *sorted(cuts, reverse=True), bottom]
    place_or_gap = st.one_of(*[st.sampled_from(places)] * 7, st.none())
    return [(draw(place_or_gap), a, b) for a, b in itertools.pairwise(edges)]


@st.composite
def _tie_in_180(
    draw: st.DrawFn, places: Sequence[str], pool: Sequence[str]
) -> list[tuple[str | None, int, int]]:
    """Two or three places with equal days in the 180-day window, gaps between them, nothing else there.

    The tied places come from `pool` first (so they may recur in the 730 days), then from `places`.
    """
    distinct = list(dict.fromkeys([*pool, *sorted(places)]))
    k = draw(st.integers(2, min(3, len(distinct))))
    tied = draw(st.permutations(distinct[: max(k, len(pool))]))[:k]
    n = draw(st.one_of(st.just(180 // k), st.integers(1, 180 // k)))  # 180 // k: the window is full
    slack = 180 - k * n
    starts = sorted(draw(st.lists(st.integers(0, slack), min_size=k, max_size=k)))
    segments: list[tuple[str | None, int, int]] = []
    for i, (place, shift) in enumerate(zip(tied, starts, strict=True)):
        first_day = WINDOW_180_END - shift - i * n  # the block covers offsets first_day-n+1 .. first_day
        top, bottom = first_day, first_day - n
        if i == 0 and top == WINDOW_180_END and draw(st.booleans()):
            top += draw(st.integers(1, 400))  # the first place began before the window
        if i == k - 1 and bottom == WINDOW_730 and draw(st.booleans()):
            bottom -= draw(st.integers(1, WINDOW_730))  # the last place stayed into the 730 days
        segments.append((place, top, bottom))
    latest = min(bottom for _, _, bottom in segments)
    if latest > 0:
        segments += draw(_segments(min(latest, WINDOW_730), 0, pool, max_cuts=4))
    return segments


@st.composite
def domicile_histories(
    draw: st.DrawFn,
    *,
    places: Sequence[str] = DEFAULT_PLACES,
    first_petition: dt.date = dt.date(2020, 1, 1),
    last_petition: dt.date = dt.date(2029, 12, 31),
    max_places: int = 4,
    max_periods: int = 60,
) -> DomicileHistory:
    """A petition date and a domicile history aimed at the edges of the 730-day rule.

    places: the place codes to draw from (USPS codes or FOREIGN); each history uses 1..max_places of them,
        so the same place often recurs in separate periods and ties between places are common.
    first_petition, last_petition: the range of petition dates; the default 2020-2029 puts leap days
        (2020, 2024, 2028) inside either window, and some dates are picked so a leap day sits exactly
        on a window's edge.
    max_periods: the most periods in a history (the "many short periods" shape uses up to this many).

    Shapes, one per draw: cuts at boundary offsets (exactly 730 or 729 days in the window, a history
    starting just inside or outside the 180-day window, gaps); one place since before the 180 days and
    a move within the 730; an exact tie of two or three places in the 180 days; many short periods
    around both windows; and one place since long ago. Periods may end before the petition (a gap at
    the end); a period reaching the petition sometimes omits `end`. The periods come in shuffled order.
    """
    petition = draw(_petition_dates(first_petition, last_petition))
    pool = draw(st.permutations(sorted(set(places))))[: draw(st.integers(1, max_places))]
    shape = draw(st.sampled_from(["cuts", "moved", "tie", "many", "settled"]))
    if shape == "tie" and len(set(places)) >= 2:
        segments = draw(_tie_in_180(places, pool))
    elif shape == "many":
        top = draw(st.integers(WINDOW_730 - 60, WINDOW_180_END + 120))
        bottom = draw(st.integers(0, 60))
        cuts = max(1, max_periods - 1)
        count = st.one_of(st.just(cuts), st.integers(min(10, cuts), cuts))
        segments = draw(_segments(top, bottom, pool, max_cuts=cuts, min_cuts=draw(count)))
    elif shape == "settled":
        top = draw(st.integers(WINDOW_180_END + 1, 4000))
        segments = [(pool[0], top, 0)]
    elif shape == "moved":  # one place since before the 180 days, then moves within the 730 days
        top = draw(st.integers(WINDOW_180_END + 1, 4000))
        moved = draw(st.one_of(st.sampled_from((729, 730)), st.integers(1, WINDOW_730)))
        after = pool[1:] or pool  # a single-place pool: the same place again, in a second period
        rest = [(after[0], moved, 0)] if draw(st.booleans()) else draw(_segments(moved, 0, after, max_cuts=3))
        segments = [(pool[0], top, moved), *rest]
    else:  # cuts: a history starting anywhere, cut at random and at the windows' edges
        top = draw(
            st.one_of(
                st.integers(WINDOW_180_END + 1, 2500), st.sampled_from(BOUNDARY_OFFSETS), st.integers(1, 2500)
            )
        )
        bottom = draw(st.one_of(st.just(0), st.integers(0, min(top - 1, 40))))
        segments = draw(_segments(top, bottom, pool, max_cuts=min(6, max_periods - 1)))
    if all(place is None for place, _, _ in segments):
        segments[0] = (pool[0], *segments[0][1:])
    kept = [(place, top, bottom) for place, top, bottom in segments if place is not None][:max_periods]
    moves_on_petition_day = draw(st.integers(0, 7)) == 0 and any(bottom == 0 for _, _, bottom in kept)
    periods = [
        DomicilePeriod(
            state=place,
            start=petition - dt.timedelta(days=top),
            end=None
            if bottom == 0 and not moves_on_petition_day and draw(st.booleans())
            else petition - dt.timedelta(days=bottom),
        )
        for place, top, bottom in kept
    ]
    if moves_on_petition_day:  # a move on the petition day: the new place holds no day of either window
        periods.append(DomicilePeriod(state=draw(st.sampled_from(sorted(set(places)))), start=petition))
    return DomicileHistory(petition, draw(st.permutations(periods)))


@st.composite
def cases_without_assets(
    draw: st.DrawFn,
    *,
    histories: st.SearchStrategy[DomicileHistory] | None = None,
    joint: bool | None = False,
    filing_states: Sequence[str] = ("OR", "NE", "AZ", "UT"),
) -> Case:
    """A valid Case with no assets: enough for task AE (the allowable systems).

    histories: where petition dates and domicile periods come from (default: `domicile_histories()`).
    joint: False for single filings, True for joint ones, None for either. A joint case gets, half the time,
        a spouse history of its own (another draw moved onto the same petition date), so the spouses' rules
        can point to different laws.
    filing_states: some cases name the district they are filed in (`filed_in`) from these; the rest are
        filed where the debtor lives. Every case draws both options of the reading nonresident_opt_out, and
        joint cases sometimes cannot agree on their election.
    """
    source = histories if histories is not None else domicile_histories()
    history = draw(source)
    is_joint = draw(st.booleans()) if joint is None else joint
    spouse = None
    if is_joint and draw(st.booleans()):
        other = draw(source)
        shift = history.petition_date - other.petition_date
        spouse = [
            DomicilePeriod(
                state=p.state,
                start=min(p.start + shift, history.petition_date),
                end=None if p.end is None else min(p.end + shift, history.petition_date),
            )
            for p in other.periods
        ]
    return Case(
        id="domicile-property",
        petition_date=history.petition_date,
        filing=Filing.JOINT if is_joint else Filing.SINGLE,
        domicile=history.periods,
        spouse_domicile=spouse,
        filed_in=draw(st.one_of(st.none(), st.sampled_from(list(filing_states)))),
        spouses_cannot_agree=is_joint and draw(st.integers(0, 3)) == 0,
        readings={"nonresident_opt_out": draw(st.sampled_from(["camp", "literal"]))},
        assets=[],
    )
