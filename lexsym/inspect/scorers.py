"""`lexsym_score`: an inspect_ai scorer that is `lexsym score` for one sample.

- value: the sample's scores exactly as `lexsym score` writes them in its `samples` rows (`format`,
  precision, recall, F1, and by task MARE, median relative error, OE validity, optimality, gap; MCQ
  accuracy); a metric lexsym leaves undefined (None: no MARE without a matched amount, no gap for an
  invalid schedule) is NaN, inspect's "not scored" value, which its epoch reducers and metrics skip as
  lexsym's means skip None (a None would be read as 0 by inspect's reducers);
- answer: the text that was read (the span after the FINAL ANSWER marker, or the MCQ option label);
- explanation: the checker's words (`explanations`): OE rules broken with their citations, or the
  differences from the gold;
- metadata: the task id, type, variant, suite, case, position in the task file, the parse error and the
  OE violations: what the `lexsym_summary` metric needs to rebuild `lexsym score`'s aggregates.

The answer is the completion with `<think>` blocks removed, as `lexsym run` scores it. OPEN records are
left to the judges (the scorer returns None for them: no score, not a zero). The records come from the
task file by sample id; `sha256` pins that file, so a log is never rescored against other tasks.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from lexsym._util.errors import InputError
from lexsym.inspect import explanations
from lexsym.inspect.answer_scoring import SOLVER_LOCK, AnswerScore, AnswerScorer
from lexsym.inspect.metrics import lexsym_summary
from lexsym.inspect.samples import read_task_set
from lexsym.runner.scores import answer_text

NAN = float("nan")
#: Task types scored exactly; others (OPEN) belong to a judge.
EXACT_TASKS = ("AE", "EC", "EV", "NA", "OE", "MCQ")


def task_records(tasks: str, sha256: str | None) -> dict[str, tuple[int, dict[str, Any]]]:
    """(position, record) by task id; refuses a task file whose hash is not the one the task was built on."""
    task_set = read_task_set(tasks)
    if sha256 is not None and task_set.sha256 != sha256:
        raise InputError(
            f"{task_set.path}: its sha256 is {task_set.sha256[:12]}…, not {sha256[:12]}… as when the task "
            "was built: scoring would compare the answers with other tasks' gold"
        )
    return {record["id"]: (index, record) for index, record in enumerate(task_set.records)}


@scorer(metrics=[lexsym_summary()])
def lexsym_score(tasks: str, sha256: str | None = None, explain: bool = True) -> Scorer:
    """Score each sample with lexsym's own scoring code (see the module docstring).

    Args:
        tasks: The task set (tasks.jsonl, or its directory) the samples came from.
        sha256: The sha256 of that file when the task was built (None: not checked).
        explain: Write the checker's explanation (one extra solve per AE..NA sample; OE answers
            are checked anyway). Off, the explanation is only the headline metrics.
    """
    scorer_of: AnswerScorer | None = None
    records: dict[str, tuple[int, dict[str, Any]]] | None = None

    async def score(state: TaskState, target: Target) -> Score | None:
        nonlocal records, scorer_of
        if records is None or scorer_of is None:
            records = task_records(tasks, sha256)
            scorer_of = AnswerScorer(read_task_set(tasks).path)
        found = records.get(str(state.sample_id))
        if found is None:
            raise KeyError(f"sample {state.sample_id!r} is not a task of {tasks}")
        index, record = found
        if record.get("task") not in EXACT_TASKS:
            return None
        text = answer_text(state.output.completion) or ""
        outcome, words = await anyio.to_thread.run_sync(
            partial(_score_and_explain, scorer_of, record, text, explain)
        )
        metadata = _metadata(record, index, outcome)
        if not outcome.scores:
            return Score.unscored(reason="scoring_failed", explanation=words, metadata=metadata)
        value = {name: NAN if v is None else v for name, v in outcome.scores.items()}
        return Score(value=value, answer=_answer(outcome, text), explanation=words, metadata=metadata)

    return score


def _score_and_explain(
    scorer_of: AnswerScorer, record: dict[str, Any], text: str, full: bool
) -> tuple[AnswerScore, str]:
    """The answer's score and its explanation, both under `SOLVER_LOCK` (each may solve the case)."""
    with SOLVER_LOCK:
        outcome = scorer_of(record, text)
        if full or outcome.task == "OE" or not outcome.scores:
            return outcome, explanations.explain(record, text, outcome)
        return outcome, explanations.headline(outcome)


def _answer(outcome: AnswerScore, text: str) -> str | None:
    if outcome.task == "MCQ":
        return None if outcome.value is None else str(outcome.value)
    if not outcome.parsed:
        return None
    from lexsym.answers import parse_answer

    return parse_answer(outcome.task, text).span


def _metadata(record: dict[str, Any], index: int, outcome: AnswerScore) -> dict[str, Any]:
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    return {
        "task_id": record.get("id"),
        "task": outcome.task,
        "variant": record.get("variant"),
        "suite": meta.get("suite"),
        "dataset": meta.get("dataset"),
        "case_id": meta.get("case_id"),
        "course": meta.get("course"),
        "index": index,
        "parsed": outcome.parsed,
        "error": outcome.error,
        "violations": outcome.violations,
        "beats_optimum": outcome.beats_optimum,
    }
