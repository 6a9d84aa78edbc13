"""Per-sample scores cheap enough to compute as each sample finishes, for the samples.jsonl line.

Why per sample at all: a run can be watched (or stopped) while it goes, and one line says whether that
answer was right without re-running the scorer. Why only these: the full scores (OE validity and
optimality, which need the logic program to solve the case and check the schedule, bootstrap standard
errors) are computed once at the end by `lexsym.scoring.score` into scores.json.

The fields, for a parsed AE, EC, EV or NA answer: precision, recall, f1, and for EV and NA mare
(OpenExempt's MARE, /(gold+1)) and median_re (the median relative error of the sample's matched
amounts), exactly as the scorer computes them (the same `TaskScorer` methods, so a line and scores.json
never disagree), and `correct` = (f1 == 1): every item right, amounts within the 5 % tolerance. For OE,
`correct` is None when the answer parsed (only the checker can judge a schedule). An answer that did not
parse, or a sample that failed, is wrong: f1 0 and correct False, as the scorer counts a format failure.
"""

from __future__ import annotations

from typing import Any

from lexsym.answers import ParsedAnswer

Scores = dict[str, float | bool | None]


class QuickScorer:
    """Scores parsed answers against a task record's gold. Holds the scorer's memoised citation keys."""

    def __init__(self) -> None:
        self._scorer: Any = None

    def _get(self) -> Any:
        if self._scorer is None:
            # The scorer's own per-task code (alignment, citation keys, amount matching), so a per-sample
            # line can never disagree with scores.json.
            from lexsym.scoring.task_scorers import TaskScorer

            self._scorer = TaskScorer()
        return self._scorer

    def __call__(self, record: dict[str, Any], parsed: ParsedAnswer | None) -> Scores:
        task = record["task"]
        if parsed is None or not parsed.ok:
            return {"correct": False, "f1": 0.0}
        if task == "OE":
            return {"correct": None}
        try:
            result = getattr(self._get(), task.lower())(parsed.value, record.get("gold"))
        except Exception:  # a parsed value of an odd shape: the end-of-run scorer reports why
            return {"correct": None}
        scores: Scores = {
            "correct": result.prf.f1 == 1.0,
            "precision": result.prf.precision,
            "recall": result.prf.recall,
            "f1": result.prf.f1,
        }
        if task in ("EV", "NA"):
            scores["mare"] = result.mare
            scores["median_re"] = result.median_re
        return scores
