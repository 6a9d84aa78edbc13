"""inspect_ai tasks over lexsym task sets: `lexsym_tasks` (any tasks.jsonl: generated, imported or
converted exams) and `lexsym_exam` (an exam set from `lexsym exam convert`, with the judges' settings).

A task is one generate() call per sample on exactly `lexsym run`'s messages (`samples`), at `lexsym run`'s
default temperature 0 (`--temperature` overrides it), scored by the scorers the records need: AE..OE and
MCQ by `lexsym_score`, OPEN questions by the reference or rubric judge. The task's metadata pins the task
file by its sha256, as a run directory does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.inspect.judge_models import JudgeModels
from lexsym.inspect.judges import reference_judge, rubric_judge
from lexsym.inspect.samples import read_task_set, record_dataset, selected_records
from lexsym.inspect.scorers import EXACT_TASKS, lexsym_score
from lexsym.judges.settings import judge_kind

#: `lexsym run`'s default generation settings (`lexsym.models.base.GenerationParams`).
RUN_CONFIG = GenerateConfig(temperature=0.0)


def task_over(
    path: str | Path,
    *,
    name: str | None = None,
    task: str | Sequence[str] | None = None,
    split: str | Sequence[str] | None = None,
    filter: str | Sequence[str] | None = None,
    where: str | Sequence[str] | None = None,
    limit: int | None = None,
    explain: bool = True,
    judge: JudgeModels = None,
    judge_role: str | None = "grader",
    judge_options: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Task:
    """The inspect Task over the chosen records of the task set at `path` (see the module docstring)."""
    task_set = read_task_set(path)
    records = selected_records(task_set, task=task, split=split, filter=filter, where=where, limit=limit)
    if not records:
        raise InputError(f"{task_set.path}: the selection holds no task")
    tasks_file = str(task_set.path)
    scorers = []
    if any(r["task"] in EXACT_TASKS for r in records):
        scorers.append(lexsym_score(tasks_file, task_set.sha256, explain=explain))
    kinds = {judge_kind(r) for r in records}
    options = dict(judge_options or {})
    for kind, judge_scorer in (("reference", reference_judge), ("rubric", rubric_judge)):
        if kind in kinds:
            scorers.append(
                judge_scorer(tasks_file, task_set.sha256, model=judge, model_role=judge_role, **options)
            )
    unscorable = sorted(
        {r["task"] for r in records if r["task"] not in EXACT_TASKS and judge_kind(r) is None}
    )
    if unscorable:
        raise InputError(f"{task_set.path}: no scorer for task type(s) {', '.join(unscorable)}")
    label = name or task_set.path.parent.name
    return Task(
        dataset=record_dataset(task_set, records, label),
        solver=generate(),
        scorer=scorers,
        config=RUN_CONFIG,
        display_name=label,
        metadata={
            "lexsym_version": __version__,
            "tasks": tasks_file,
            "tasks_sha256": task_set.sha256,
            "manifest_sha256": task_set.manifest_sha256,
            "manifest_inputs": task_set.manifest_inputs,
            "selected": len(records),
            "of": len(task_set.records),
            **(metadata or {}),
        },
    )


@task
def lexsym_tasks(
    path: str,
    task: str | list[str] | None = None,
    split: str | list[str] | None = None,
    filter: str | list[str] | None = None,
    where: str | list[str] | None = None,
    limit: int | None = None,
    explain: bool = True,
    judge: str | list[str] | None = None,
    judge_role: str | None = "grader",
) -> Task:
    """Any lexsym task set: `inspect eval lexsym/lexsym_tasks -T path=DIR/tasks.jsonl`.

    Args:
        path: tasks.jsonl, or the directory holding it.
        task: Task type(s) to keep (AE, EC, EV, NA, OE, MCQ, OPEN).
        split: Split(s) to keep (dev, test).
        filter: `lexsym run --filter` expressions (task=…, variant=AE-*, dataset=…, an id glob).
        where: `lexsym run --where` conditions on the metadata (asset_count>=3, married=false).
        limit: Keep this many tasks, stratified by dataset as `lexsym run --limit` does (inspect's own
            `--limit` takes the first N instead).
        explain: Explain every answer with the checker (one extra solve per AE..NA sample).
        judge: Judge model(s) for OPEN questions (default: the `judge_role` binding, else the model under
            evaluation).
        judge_role: The model role that judges when `judge` is not given.
    """
    return task_over(
        path,
        task=task,
        split=split,
        filter=filter,
        where=where,
        limit=limit,
        explain=explain,
        judge=judge,
        judge_role=judge_role,
    )


@task
def lexsym_exam(
    path: str,
    split: str | list[str] | None = None,
    filter: str | list[str] | None = None,
    where: str | list[str] | None = None,
    limit: int | None = None,
    judge: str | list[str] | None = None,
    judge_role: str | None = "grader",
    ensemble: str = "min",
    partial: bool = False,
    judge_temperature: float = 0.0,
    judge_seed: int | None = 0,
    judge_max_tokens: int | None = None,
    judge_retries: int = 2,
) -> Task:
    """An exam set written by `lexsym exam convert`: MCQs scored exactly (`lexsym score`'s option
    extraction), open questions and essays graded by lexsym's reference or rubric judge.

    Args:
        path: The converted set's tasks.jsonl, or its directory.
        split, filter, where, limit: Which questions, as for `lexsym_tasks`.
        judge: Judge model(s); a list is an ensemble (`-T judge=[openai/gpt-4o,anthropic/claude-…]`).
        judge_role: The model role that judges when `judge` is not given (`--model-role grader=…`).
        ensemble: min (LEXam's advice), mean or median of the judges' grades.
        partial: Combine the judges that graded when others failed (else the sample has no grade).
        judge_temperature, judge_seed, judge_max_tokens: The judges' generation settings.
        judge_retries: Follow-up turns after a judge reply without a readable grade.
    """
    return task_over(
        path,
        split=split,
        filter=filter,
        where=where,
        limit=limit,
        judge=judge,
        judge_role=judge_role,
        judge_options={
            "ensemble": ensemble,
            "partial": partial,
            "temperature": judge_temperature,
            "seed": judge_seed,
            "max_tokens": judge_max_tokens,
            "retries": judge_retries,
        },
    )
