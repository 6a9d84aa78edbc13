"""Per-task scoring of one parsed answer against its gold (AE, EC, EV, NA; MCQ by its option label).

`TaskScorer` is also what a run's per-sample line uses (`lexsym.runner.quick_score`), so the line and
scores.json never disagree. OE needs the checker and is scored in `lexsym.scoring.oe_checking`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lexsym.law.citations import citation_key
from lexsym.scoring import metrics
from lexsym.scoring.gold_checks import finite_amount
from lexsym.scoring.inputs import TaskRecord


@dataclass
class Row:
    task: TaskRecord
    predicted: bool
    parsed: bool
    error: str | None
    value: Any = None
    scores: dict[str, float | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    beats_optimum: bool = False


class TaskScorer:
    """Scores parsed answers of one task type against their gold; holds what every sample shares."""

    def __init__(self) -> None:
        from lexsym.law.first_pass import statute_citations
        from lexsym.law.rules import rules_root

        self.known = tuple(statute_citations(rules_root()))
        self._citations: dict[str, str] = {}

    def citation(self, text: Any) -> str:
        """The comparison key of the known citation `text` denotes. Memoised: `normalize_citation` scans
        every known citation (about a millisecond when none matches), and answers repeat a few citations."""
        from lexsym.answers import normalize_citation

        text = str(text)
        key = self._citations.get(text)
        if key is None:
            key = self._citations[text] = citation_key(normalize_citation(text, self.known))
        return key

    def by_gold_asset(self, predicted: Mapping[str, Any], gold: Mapping[str, Any]) -> dict[str, Any]:
        """Predicted entries re-keyed by the gold asset description each one aligns with (one to one).
        Against a gold with no asset nothing aligns, so every non-empty entry is kept as it is: it claims
        something for an asset the case does not have, and must count against the answer."""
        from lexsym.answers import align_assets

        if not gold:
            return {str(k): v for k, v in predicted.items() if v}

        keys = [str(k) for k in predicted]
        mapping = align_assets(keys, list(gold))
        return {mapping[k]: v for k, v in zip(keys, predicted.values(), strict=True) if k in mapping}

    def ae(self, value: Any, gold: list[str]) -> metrics.SampleScore:
        from lexsym.answers import jurisdiction_code

        predicted = {jurisdiction_code(v) for v in value}
        return metrics.SampleScore(metrics.set_prf(predicted, {jurisdiction_code(g) for g in gold}))

    def ec(self, value: Any, gold: dict[str, list[str]]) -> metrics.SampleScore:
        keyed = self.by_gold_asset(value, gold)
        predicted = {asset: {self.citation(c) for c in citations} for asset, citations in keyed.items()}
        expected = {asset: {citation_key(c) for c in citations} for asset, citations in gold.items()}
        return metrics.asset_mean_prf(predicted, expected)

    def ev(self, value: Any, gold: dict[str, list[dict[str, Any]]]) -> metrics.SampleScore:
        keyed = self.by_gold_asset(value, gold)
        predicted = {
            asset: [(self.citation(c.citation), finite_amount(c.claim_value)) for c in claims]
            for asset, claims in keyed.items()
        }
        expected = {
            asset: [(citation_key(c["citation"]), finite_amount(c["claim_value"]) or 0.0) for c in claims]
            for asset, claims in gold.items()
        }
        return metrics.asset_mean_amounts(predicted, expected)

    def na(self, value: Any, gold: dict[str, Any]) -> metrics.SampleScore:
        from lexsym.answers import jurisdiction_code

        predicted: dict[str, float | None] = {}
        for key, amount in value.items():
            predicted.setdefault(jurisdiction_code(key), finite_amount(amount))
        expected = {jurisdiction_code(k): finite_amount(v) or 0.0 for k, v in gold.items()}
        return metrics.non_exempt_score(predicted, expected)


def prf_scores(score: metrics.SampleScore, with_mare: bool) -> dict[str, float | None]:
    scores: dict[str, float | None] = {
        "precision": score.prf.precision,
        "recall": score.prf.recall,
        "f1": score.prf.f1,
    }
    if with_mare:
        scores["mare"] = score.mare
        scores["median_re"] = score.median_re
    return scores


def oe_scores(score: metrics.OEScore) -> dict[str, float | None]:
    return {
        "precision": score.prf.precision,
        "recall": score.prf.recall,
        "f1": score.prf.f1,
        "valid": float(score.valid),
        "optimal": float(score.correct),
        "within_tolerance": float(score.within_tolerance),
        "gap_percent": score.gap_percent,
        "mare": score.mare,
        "median_re": score.mare,  # one amount per sample (the non-exempt total): its median is itself
    }


def mcq_scores(correct: bool) -> dict[str, float | None]:
    value = float(correct)
    return {"precision": value, "recall": value, "f1": value, "accuracy": value}


def empty_scores(task: str) -> dict[str, float | None]:
    """Scores of an answer that did not come or did not parse: wrong on every rate, no MARE or gap."""
    if task == "OE":
        return oe_scores(metrics.oe_score(None))
    if task == "MCQ":
        return mcq_scores(False)
    return prf_scores(metrics.SampleScore(metrics.ZERO), task in ("EV", "NA"))


def parse_prediction(task: str, text: str) -> tuple[bool, Any, str | None]:
    from lexsym.answers import parse_answer
    from lexsym.law.tasks import Task

    try:
        parsed = parse_answer(Task(task), text)
    except Exception as error:  # a parser defect must not stop a run: report it, count a format failure
        return False, None, f"parser failed: {error.__class__.__name__}: {error}"
    if not parsed.ok:
        return False, None, parsed.error or "answer does not parse"
    return True, parsed.value, None


def mcq_row(task: TaskRecord, text: str) -> Row:
    from lexsym.answers.choices import extract_choice

    reference = (task.record or {}).get("reference") or {}
    extraction = extract_choice(text, reference.get("labels") or [], options=reference.get("options"))
    return Row(
        task,
        True,
        extraction.ok,
        extraction.error,
        value=extraction.label,
        scores=mcq_scores(extraction.label == task.gold),
    )


def answer_row(task: TaskRecord, text: str, scorer: TaskScorer, warnings: list[str]) -> Row:
    """The row of `text` answering `task`: MCQ extracted and scored; AE..NA parsed and scored by `scorer`
    (an odd parsed shape is wrong, and reported in `warnings`); OE parsed only, for `score_oe` to check
    with the other answers of its case."""
    if task.task == "MCQ":
        return mcq_row(task, text)
    ok, value, error = parse_prediction(task.task, text)
    row = Row(task, True, ok, error, value=value, scores=empty_scores(task.task))
    if ok and task.task != "OE":
        try:
            score_of = getattr(scorer, task.task.lower())(value, task.gold)
            row.scores = prf_scores(score_of, task.task in ("EV", "NA"))
        except Exception as failure:  # a parsed value of an unexpected shape: wrong, and reported
            row.error = f"cannot score the parsed answer: {failure.__class__.__name__}: {failure}"
            warnings.append(f"{task.id}: {row.error}")
    return row
