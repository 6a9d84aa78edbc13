"""Judge replies are read strictly: a reply outside the schema is a parse failure with a reason, never 0."""

from __future__ import annotations

import pytest

from lexsym.judges.ensemble import combine
from lexsym.judges.grades import parse_reference_grade, parse_rubric_grades
from tests.judge_replies import rubric_reply


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("Sound analysis of the mandatory bid.\n[[0.7]]", 0.7),
        ("[[1]]", 1.0),
        ("[[0]]", 0.0),
        ("[[ 0.30 ]]", 0.3),
        ("German judges write commas: [[0,8]]", 0.8),
        ("Grade: [[0.5]]. To repeat, the grade is [[0.5]].", 0.5),
        ("<think>maybe [[0.9]]? no, the rule is wrong</think>The rule is misstated. [[0.2]]", 0.2),
    ],
)
def test_reference_grade_is_read(reply, score):
    grade = parse_reference_grade(reply)
    assert grade.ok and grade.score == pytest.approx(score) and grade.problem is None


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("The answer is quite good, I'd say 0.7.", "no [[grade]] marker"),
        ("", "no [[grade]] marker"),
        ("[[good]]", "not a number"),
        ("First [[0.4]], on reflection [[0.6]]", "several different grades"),
        ("[[7]]", "outside 0 to 1"),
        ("[[-0.1]]", "outside 0 to 1"),
        ("[[1.5]]", "outside 0 to 1"),
        ("[[0.75]]", "not a multiple of 0.1"),
        ("<think>[[0.8]]</think>I ran out of room", "no [[grade]] marker"),
        ("<think>[[0.8]] and never closed", "no [[grade]] marker"),
    ],
)
def test_reference_grade_refuses(reply, problem):
    grade = parse_reference_grade(reply)
    assert grade.score is None and not grade.ok
    assert problem in grade.problem


def test_rubric_grades_parse_json_in_a_fence_after_thinking():
    body = rubric_reply((1, True, "cites art. 5"), (2, "no", "no price rule"), (3, 1, "ok"))
    reply = f"<think>item 2 is missing</think>```json\n{body}\n```"
    grades = parse_rubric_grades(reply, [1, 2, 3])
    assert grades.problem is None and grades.missing == ()
    assert {k: v.satisfied for k, v in grades.decisions.items()} == {1: True, 2: False, 3: True}
    assert grades.decisions[1].reason == "cites art. 5"


@pytest.mark.parametrize(
    ("reply", "missing", "problem"),
    [
        ("I think items 1 and 2 are met.", (1, 2), "no JSON object"),
        ('{"verdicts": []}', (1, 2), 'no "items" list'),
        (rubric_reply((1, True, "")), (2,), "no decision for item 2"),
        (rubric_reply((1, "maybe"), (2, False)), (1,), "not true or false"),
        (rubric_reply((1, True), (1, False), (2, False)), (1,), "decided 2 times"),
        (rubric_reply((9, True), (1, True), (2, True)), (), "item 9 is not on the rubric"),
    ],
)
def test_rubric_grades_report_what_is_wrong(reply, missing, problem):
    grades = parse_rubric_grades(reply, [1, 2])
    assert grades.missing == missing
    assert problem in grades.problem


def test_combine_methods_and_holes():
    assert combine([0.6, 0.3, 0.9], "min") == 0.3
    assert combine([0.6, 0.3, 0.9], "mean") == pytest.approx(0.6)
    assert combine([0.6, 0.3, 0.9, 0.1], "median") == pytest.approx(0.45)
    assert combine([0.6, None, 0.9], "min") is None
    assert combine([0.6, None, 0.9], "min", partial=True) == 0.6
    assert combine([None, None], "mean", partial=True) is None
    with pytest.raises(ValueError, match="unknown ensemble method"):
        combine([0.5], "max")
