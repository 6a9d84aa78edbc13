"""lexsym's essay judges as inspect_ai model-graded scorers: `reference_judge` (LEXam: an answer against
the examiner's reference, graded 0 to 1) and `rubric_judge` (KCL: one yes/no decision per rubric item).

The judging is lexsym's own (`lexsym.judges.reference.judge_reference`, `lexsym.judges.rubric.judge_rubric`):
its versioned templates, its strict grade parsing, its retry turn quoting the reply that did not parse,
its empty-answer rule (an answer with nothing left once `<think>` is removed scores 0 without a call).
Several judges form one grade per sample with lexsym's ensemble rule (`min` by default, as LEXam advises;
`lexsym.judges.scores.sample_rows`). Which models judge is `judge_models`: `model`, else the `model_role`
("grader") binding, else the model under evaluation.

Values: the reference judge's is the ensemble grade, or unscored (reason `grader_failed`) when no grade
could be formed, which lexsym leaves out of its mean too; the rubric judge's is a dict of the sample's
`score` (earned / total, None while items are undecided), `earned`, `total` and `undecided_points`, from
which the metric forms lexsym's E / (T − U). The metadata keeps every judgement line as `lexsym judge`
writes it in judgements.jsonl (each attempt's raw reply included); the explanation shows the replies.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from lexsym.inspect.judge_metrics import reference_summary, rubric_summary
from lexsym.inspect.judge_models import JudgeModels, asker, judge_models, judge_names
from lexsym.inspect.scorers import task_records
from lexsym.judges.ensemble import METHODS
from lexsym.judges.reference import judge_reference
from lexsym.judges.rubric import judge_rubric, rubric_items
from lexsym.judges.scores import sample_rows
from lexsym.judges.settings import KINDS, JudgeSpec, judge_kind


def _judge_scorer(
    kind: str,
    tasks: str,
    sha256: str | None,
    model: JudgeModels,
    model_role: str | None,
    ensemble: str,
    partial: bool,
    spec: JudgeSpec,
    retries: int,
) -> Scorer:
    if ensemble not in METHODS:
        raise ValueError(f"ensemble must be one of {', '.join(METHODS)}, not {ensemble!r}")
    records: dict[str, tuple[int, dict[str, Any]]] | None = None

    async def score(state: TaskState, target: Target) -> Score | None:
        nonlocal records
        if records is None:
            records = task_records(tasks, sha256)
        found = records.get(str(state.sample_id))
        if found is None:
            raise KeyError(f"sample {state.sample_id!r} is not a task of {tasks}")
        record = found[1]
        if judge_kind(record) != kind:
            return None  # an MCQ, a generated task, or the other judge's kind: not this scorer's
        models = judge_models(model, model_role)
        names = judge_names(models)
        lines = [
            await _judgement(kind, record, state.output.completion, name, judge, spec, retries)
            for name, judge in zip(names, models, strict=True)
        ]
        row = sample_rows(lines, names, ensemble, partial, {record["id"]: record})[0]
        metadata = _metadata(kind, record, row, lines, names, ensemble, partial)
        words = _explanation(kind, row, lines)
        if kind == "reference":
            if row["score"] is None:
                return Score.unscored(reason="grader_failed", explanation=words, metadata=metadata)
            return Score(value=float(row["score"]), explanation=words, metadata=metadata)
        value = {
            "score": row["score"],
            "earned": row["earned"],
            "total": row["total"],
            "undecided_points": row["undecided_points"],
        }
        return Score(value=value, explanation=words, metadata=metadata)

    return score


async def _judgement(
    kind: str, record: dict[str, Any], answer: str, name: str, model: Any, spec: JudgeSpec, retries: int
) -> dict[str, Any]:
    """One judge's judgement line, as `lexsym judge` writes it in judgements.jsonl."""
    ask = asker(model)
    reference = record.get("reference") or {}
    question = reference.get("question") or record["prompt"]["user"]
    gold = record["gold"]
    if kind == "reference":
        result = await judge_reference(
            ask,
            question=question,
            reference=gold["reference"],
            answer=answer,
            params=spec.params,
            retries=retries,
        )
    else:
        items = rubric_items(gold["rubrics"], gold.get("total_points"), gold.get("points"))
        result = await judge_rubric(
            ask, question=question, answer=answer, items=items, params=spec.params, retries=retries
        )
    return {
        "sample_id": record["id"],
        "task_id": record["id"],
        "repeat": 0,
        "variant": record.get("variant"),
        "kind": kind,
        "judge": name,
        "params": spec.params.key_fields(),
        "template": KINDS[kind].id,
        "template_digest": KINDS[kind].digest,
        **result.to_json(),
    }


def _metadata(
    kind: str,
    record: dict[str, Any],
    row: dict[str, Any],
    lines: list[dict[str, Any]],
    names: list[str],
    ensemble: str,
    partial: bool,
) -> dict[str, Any]:
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    return {
        "task_id": record["id"],
        "kind": kind,
        "variant": record.get("variant"),
        "course": meta.get("course"),
        "year": meta.get("year"),
        "status": row["status"],
        "judges": names,
        "judge_scores": row["judges"],
        "ensemble": ensemble,
        "partial": partial,
        "template": KINDS[kind].id,
        "template_digest": KINDS[kind].digest,
        "judgements": lines,
    }


def _explanation(kind: str, row: dict[str, Any], lines: list[dict[str, Any]]) -> str:
    parts = []
    for line in lines:
        head = f"**{line['judge']}**: {line['status']}"
        if kind == "reference":
            head += f", grade {line['score']}" if line["score"] is not None else ""
        if line.get("problem"):
            head += f" ({line['problem']})"
        parts.append(head)
        if kind == "rubric":
            for item in line.get("items") or []:
                mark = {True: "met", False: "unmet", None: "undecided"}[item["satisfied"]]
                parts.append(
                    f"- item {item['id']} ({item['points']:g} points): {mark}. {item['reason'] or ''}"
                )
        attempts = line.get("attempts") or []
        if kind == "reference" and attempts:
            parts.append(attempts[-1]["raw"].strip())
        parts.append("")
    return "\n".join(parts).strip()


@scorer(metrics=[reference_summary()])
def reference_judge(
    tasks: str,
    sha256: str | None = None,
    model: JudgeModels = None,
    model_role: str | None = "grader",
    ensemble: str = "min",
    partial: bool = False,
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    retries: int = 2,
) -> Scorer:
    """Grade OPEN answers against their reference answer with lexsym's reference judge (0 to 1).

    Args:
        tasks: The task set the samples came from (questions and reference answers are read from it).
        sha256: Its sha256 when the task was built (None: not checked).
        model: Judge model(s); a list is an ensemble. Takes precedence over `model_role`.
        model_role: The role whose bound model(s) judge when `model` is None; unbound, the model under
            evaluation judges.
        ensemble: How several judges' grades combine: min (LEXam's advice), mean or median.
        partial: Combine the judges that gave a grade when some did not (else: no grade).
        temperature, seed, max_tokens: The judge's generation settings (lexsym's defaults: 0, 0, none).
        retries: Follow-up turns after a reply without a readable grade.
    """
    spec = JudgeSpec("inspect", temperature=temperature, seed=seed, max_tokens=max_tokens)
    return _judge_scorer("reference", tasks, sha256, model, model_role, ensemble, partial, spec, retries)


@scorer(metrics=[rubric_summary()])
def rubric_judge(
    tasks: str,
    sha256: str | None = None,
    model: JudgeModels = None,
    model_role: str | None = "grader",
    ensemble: str = "min",
    partial: bool = False,
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    retries: int = 2,
) -> Scorer:
    """Decide every rubric item of OPEN answers with lexsym's rubric judge (points earned of the total).

    Arguments as for `reference_judge`; an ensemble combines each item's decisions (min: every judge must
    find the item met).
    """
    spec = JudgeSpec("inspect", temperature=temperature, seed=seed, max_tokens=max_tokens)
    return _judge_scorer("rubric", tasks, sha256, model, model_role, ensemble, partial, spec, retries)
