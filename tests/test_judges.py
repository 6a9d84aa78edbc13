"""The reference and rubric judges' conversations: retries with the problem spelled out, failures kept."""

from __future__ import annotations

import asyncio

import pytest

from lexsym.judges.reference import judge_reference
from lexsym.judges.rubric import judge_rubric, rubric_items
from lexsym.models.base import Completion, GenerationParams, PermanentModelError
from tests.judge_replies import rubric_reply

PARAMS = GenerationParams(temperature=0.0, seed=7)


class Scripted:
    """A judge that replies from a script and remembers every conversation it was sent."""

    def __init__(self, *replies: str | Exception):
        self.replies = list(replies)
        self.seen: list[list[dict[str, str]]] = []

    async def __call__(self, messages, params):
        self.seen.append([dict(m) for m in messages])
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, tokens_in=100, tokens_out=10, cost=0.001)


def run(coroutine):
    return asyncio.run(coroutine)


def test_reference_judge_strips_thinking_from_the_answer_and_reads_the_grade():
    ask = Scripted("Covers the bid duty. [[0.8]]")
    result = run(
        judge_reference(
            ask, question="Q?", reference="R.", answer="<think>draft</think>Final.", params=PARAMS
        )
    )
    assert (result.status, result.score) == ("ok", 0.8)
    prompt = ask.seen[0][-1]["content"]
    assert "Final." in prompt and "draft" not in prompt and "R." in prompt
    assert result.attempts[0]["raw"] == "Covers the bid duty. [[0.8]]"
    assert result.cost == pytest.approx(0.001)


def test_reference_judge_retries_with_the_problem_then_succeeds():
    ask = Scripted("First [[0.4]] then [[0.6]]", "[[0.6]]")
    result = run(judge_reference(ask, question="Q", reference="R", answer="A", params=PARAMS))
    assert (result.status, result.score) == ("ok", 0.6)
    assert len(result.attempts) == 2 and "several different grades" in result.attempts[0]["problem"]
    follow_up = ask.seen[1]
    assert follow_up[-2] == {"role": "assistant", "content": "First [[0.4]] then [[0.6]]"}
    assert "several different grades" in follow_up[-1]["content"]


def test_reference_judge_failure_is_never_zero():
    ask = Scripted("[[8]]", "[[8/10]]", "eight")
    result = run(judge_reference(ask, question="Q", reference="R", answer="A", params=PARAMS, retries=2))
    assert result.status == "parse_failure" and result.score is None
    assert [a["raw"] for a in result.attempts] == ["[[8]]", "[[8/10]]", "eight"]
    assert "no [[grade]] marker" in result.problem


def test_reference_judge_call_error_is_recorded():
    ask = Scripted(PermanentModelError("400 bad request"))
    result = run(judge_reference(ask, question="Q", reference="R", answer="A", params=PARAMS))
    assert (result.status, result.score, result.problem) == ("error", None, "400 bad request")


def test_empty_answer_scores_zero_without_a_call():
    ask = Scripted()
    result = run(judge_reference(ask, question="Q", reference="R", answer="<think>ran out", params=PARAMS))
    assert (result.status, result.score) == ("empty_answer", 0.0) and ask.seen == []


def test_rubric_points_are_shared_equally_or_by_weight():
    equal = rubric_items(["a", "b", "c", "d"], 10)
    assert [item.points for item in equal] == [2.5] * 4
    weighted = rubric_items([{"text": "a", "weight": 3}, {"text": "b", "weight": 1}], 8)
    assert [item.points for item in weighted] == [6.0, 2.0]
    assert [item.points for item in rubric_items(["a", "b"], None)] == [1.0, 1.0]
    with pytest.raises(ValueError, match="every rubric item has a weight or none"):
        rubric_items([{"text": "a", "weight": 3}, "b"], 8)
    with pytest.raises(ValueError, match="no items"):
        rubric_items([], 8)


def test_rubric_judge_retries_only_for_undecided_items():
    items = rubric_items(["issue", "rule", "conclusion"], 12)
    ask = Scripted(
        rubric_reply((1, True, "r1"), (2, "perhaps")),
        rubric_reply((2, False, "r2"), (3, True, "r3")),
    )
    result = run(judge_rubric(ask, question="Q", answer="A", items=items, params=PARAMS))
    assert result.status == "ok" and result.earned == 8.0 and result.total == 12.0
    assert result.score == pytest.approx(2 / 3)
    assert "2, 3" in ask.seen[1][-1]["content"]
    assert [row["satisfied"] for row in result.items] == [True, False, True]


def test_rubric_judge_keeps_undecided_items_visible():
    items = rubric_items(["issue", "rule"], 10)
    ask = Scripted('{"items": [{"id": 1, "satisfied": true, "reason": "ok"}]}', "no json", "still none")
    result = run(judge_rubric(ask, question="Q", answer="A", items=items, params=PARAMS))
    assert result.status == "incomplete" and result.score is None
    assert (result.earned, result.undecided_points) == (5.0, 5.0)
    assert result.items[1]["satisfied"] is None
    assert len(result.attempts) == 3


def test_rubric_empty_answer_meets_nothing():
    items = rubric_items(["issue", "rule"], 10)
    result = run(judge_rubric(Scripted(), question="Q", answer="  ", items=items, params=PARAMS))
    assert result.status == "empty_answer" and result.score == 0.0 and result.undecided_points == 0.0
