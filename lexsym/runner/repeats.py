"""What `--repeats k` adds up to: the spread between repeats, pass@k and the majority vote.

Each repeat is scored on its own (`scores.rK.json`, the same report `lexsym score` writes); this module
reads those reports together:

- **per table cell** (task × metric): the mean over repeats of the cell's value, its standard deviation
  between repeats, and its range: how much the headline could move on a re-run;
- **per sample** (task id): the mean and standard deviation over repeats of its headline metric (F1;
  accuracy for MCQ; optimal for OE), and how many repeats got it fully right;
- **pass@k** with n repeats of which c are right, the unbiased estimate 1 - C(n-c, k) / C(n, k) (Chen et
  al., 2021), averaged over tasks, for k = 1 and k = n; and **all@n**, the share of tasks right in every
  repeat (consistency);
- **majority**: the answer given most often across repeats (self-consistency), scored as the repeat that
  gave it was scored. Answers are compared after parsing (MCQ: the chosen label; the generated tasks: the
  parsed answer as canonical JSON); an unreadable answer does not vote; a tie goes to the answer first
  given. A task where no repeat gave a readable answer counts as wrong.

"Fully right" is F1 = 1 for AE, EC, EV and NA (every item, amounts within tolerance), an optimal schedule
for OE, and the gold option for MCQ.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from math import comb
from typing import Any

from lexsym.runner.tasksets import TASKS, TaskSet

#: The file beside scores.json holding the summary, per sample included (run.json has the rest).
REPEATS = "repeats.json"
#: The metric that says whether a sample was fully right, by task.
HEADLINE = {"AE": "f1", "EC": "f1", "EV": "f1", "NA": "f1", "OE": "optimal", "MCQ": "accuracy"}


def pass_at_k(n: int, correct: int, k: int) -> float:
    """The unbiased pass@k estimate from n draws of which `correct` are right."""
    if n - correct < k:
        return 1.0
    return 1.0 - comb(n - correct, k) / comb(n, k)


def _spread(values: list[float]) -> dict[str, Any]:
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else None,
        "min": min(values),
        "max": max(values),
        "repeats": len(values),
    }


def _vote_key(record: dict[str, Any], text: str | None) -> str | None:
    """What an answer says, comparable across repeats; None for an answer that cannot be read."""
    if text is None:
        return None
    if record["task"] == "MCQ":
        from lexsym.answers.choices import extract_choice

        reference = record.get("reference") or {}
        return extract_choice(text, reference.get("labels") or [], options=reference.get("options")).label
    if record["task"] not in TASKS:
        return None
    from pydantic_core import to_jsonable_python

    from lexsym.answers import parse_answer

    parsed = parse_answer(record["task"], text)
    if not parsed.ok:
        return None
    return json.dumps(to_jsonable_python(parsed.value), sort_keys=True, ensure_ascii=False)


def repeats_summary(
    reports: dict[int, Any], task_set: TaskSet, outputs: dict[int, dict[str, str | None]]
) -> dict[str, Any] | None:
    """The summary over repeats (see the module docstring); None for fewer than two scored repeats."""
    if len(reports) < 2:
        return None
    cells: dict[str, dict[str, list[float]]] = {}
    for report in reports.values():
        for group in report.by_task:
            for name, metric in group.metrics.items():
                if metric.mean is not None:
                    cells.setdefault(group.task, {}).setdefault(name, []).append(float(metric.mean))
    right: dict[str, dict[int, float]] = {}
    tasks: dict[str, str] = {}
    for repeat, report in reports.items():
        for row in report.samples:
            value = row.scores.get(HEADLINE.get(row.task, "f1"))
            tasks[row.id] = row.task
            right.setdefault(row.id, {})[repeat] = float(value) if isinstance(value, (int, float)) else 0.0
    records = {record["id"]: record for record in task_set.records}
    samples: dict[str, dict[str, Any]] = {}
    by_task: dict[str, dict[str, list[float]]] = {}
    for task_id, values in right.items():
        repeats = sorted(values)
        scores = [values[r] for r in repeats]
        n, correct = len(scores), sum(score == 1.0 for score in scores)
        votes = Counter()
        first: dict[str, int] = {}
        for repeat in repeats:
            key = _vote_key(records[task_id], outputs.get(repeat, {}).get(task_id))
            if key is not None:
                votes[key] += 1
                first.setdefault(key, repeat)
        majority = 0.0
        if votes:
            top = max(votes.values())
            winner = min((key for key, count in votes.items() if count == top), key=lambda key: first[key])
            majority = float(values[first[winner]] == 1.0)
        samples[task_id] = {
            "metric": HEADLINE.get(tasks[task_id], "f1"),
            "mean": statistics.fmean(scores),
            "sd": statistics.stdev(scores) if n > 1 else None,
            "right": correct,
            "repeats": n,
            "majority_right": bool(majority),
        }
        into = by_task.setdefault(tasks[task_id], {"pass@1": [], "pass@n": [], "all@n": [], "majority": []})
        into["pass@1"].append(pass_at_k(n, correct, 1))
        into["pass@n"].append(pass_at_k(n, correct, n))
        into["all@n"].append(float(correct == n))
        into["majority"].append(majority)
    return {
        "repeats": len(reports),
        "cells": {task: {name: _spread(v) for name, v in metrics.items()} for task, metrics in cells.items()},
        "by_task": {
            task: {"n": len(v["pass@1"]), **{name: statistics.fmean(values) for name, values in v.items()}}
            for task, v in by_task.items()
        },
        "samples": samples,
    }


def render_repeats(summary: dict[str, Any], console: Any) -> None:
    """The summary for people: per task, the headline metric's mean ± sd between repeats and its range,
    then pass@1, pass@n, all@n and the majority vote."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    n = summary["repeats"]
    table = Table(
        title=Text(f"Over {n} repeats (mean ± sd between repeats; pass@k over tasks)"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for header in (
        "Task",
        "n",
        "metric",
        "mean ± sd",
        "range",
        "pass@1",
        f"pass@{n}",
        f"all@{n}",
        "majority",
    ):
        table.add_column(header, justify="left" if header in ("Task", "metric") else "right", no_wrap=True)
    for task, rates in summary["by_task"].items():
        metric = HEADLINE.get(task, "f1")
        cell = summary["cells"].get(task, {}).get(metric)
        spread = "–" if cell is None else f"{cell['mean']:.3f} ± {cell['sd'] or 0.0:.3f}"
        scope = "–" if cell is None else f"{cell['min']:.3f}–{cell['max']:.3f}"
        table.add_row(
            Text(task),
            str(rates["n"]),
            metric,
            spread,
            scope,
            *(f"{rates[name]:.1%}" for name in ("pass@1", "pass@n", "all@n", "majority")),
        )
    console.print(table)
