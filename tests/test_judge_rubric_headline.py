"""The rubric judge's headline lies within its bounds, and the lower bound is KCL's own figure."""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from lexsym.judges.report import render_judged
from lexsym.judges.scores import build_report


def line(sample: str, decisions: list[bool | None], points: float = 5.0, judge: str = "J") -> dict:
    undecided = any(d is None for d in decisions)
    return {
        "sample_id": sample,
        "judge": judge,
        "task_id": sample,
        "repeat": 0,
        "variant": None,
        "kind": "rubric",
        "status": "incomplete" if undecided else "ok",
        "score": None,
        "items": [{"id": i, "points": points, "satisfied": d} for i, d in enumerate(decisions, 1)],
    }


def report(lines: list[dict]):
    return build_report(lines, judges=["J"], method="min", partial=False, records={}).rubric


def test_headline_is_the_share_of_decided_points_and_lies_within_its_bounds():
    # Complete essays that score well, incomplete ones that score badly: the old headline (complete essays
    # only, 83.3 %) fell outside the bounds over all essays (50.0-60.0 %).
    rubric = report(
        [
            line("a", [True, True, True, False]),
            line("b", [True, True, True, True]),
            line("c", [True, True, False, True]),
            line("d", [False, False, None, False]),
            line("e", [None, False, False, False]),
        ]
    )
    assert (rubric.complete, rubric.incomplete, rubric.items_undecided) == (3, 2, 2)
    assert (rubric.earned, rubric.total, rubric.undecided_points) == (50.0, 100.0, 10.0)
    assert rubric.lower_percent == pytest.approx(50.0)  # KCL: undecided items earn nothing
    assert rubric.upper_percent == pytest.approx(60.0)
    assert rubric.percent == pytest.approx(100 * 50 / 90)
    assert rubric.lower_percent <= rubric.percent <= rubric.upper_percent


def test_lower_bound_is_kcls_sum_of_parsed_grades_over_full_points():
    # KCL sums, per essay, the normalised points of the rubric grades that parsed, over the full points.
    essays = [[True, None, True], [False, True, None], [True, True, True]]
    rubric = report([line(f"s{i}", d, points=10 / 3) for i, d in enumerate(essays)])
    kcl = sum(10 / 3 for essay in essays for d in essay if d) / (10 * len(essays))
    assert rubric.lower_percent == pytest.approx(100 * kcl)


def test_the_table_names_the_kcl_bound():
    lines = [line("a", [True, False]), line("b", [None, True])]
    judged = build_report(lines, judges=["J"], method="min", partial=False, records={})
    console = Console(file=StringIO(), width=250)
    render_judged(judged, console)
    table = console.file.getvalue()
    assert "Bounds (low = KCL)" in table and "KCL's figure" in table
    assert f"{judged.rubric.percent:.1f}% ±" in table and "50.0-75.0%" in table


@given(
    st.lists(
        st.lists(st.sampled_from([True, False, None]), min_size=1, max_size=5),
        min_size=1,
        max_size=8,
    )
)
def test_headline_never_leaves_its_bounds(essays):
    rubric = report([line(f"s{i}", d) for i, d in enumerate(essays)])
    if all(d is None for essay in essays for d in essay):
        assert rubric.percent is None
        return
    assert rubric.lower_percent - 1e-9 <= rubric.percent <= rubric.upper_percent + 1e-9
    if not any(d is None for essay in essays for d in essay):
        assert rubric.percent == pytest.approx(rubric.lower_percent) == pytest.approx(rubric.upper_percent)
