"""`lexsym report RUN_DIR ...`: several runs side by side, one column per run.

Why a separate view: a run's own table answers "how did this model do"; a paper or a regression check
asks "which model is better, and by more than the error bars". Each cell is a mean ± its bootstrap SE
from the run's own files (scores.json, judged.json, run.json); nothing is re-asked.

- **Slices** (`--by FIELD[,FIELD]`, `lexsym.scoring.slices`): the same rows per task and value of the
  fields, computed from scores.json's per-sample rows and the metadata of the run's task file (run.json
  `tasks.path`) by the aggregation of the per-task rows, with the run's own seed and resamples. Judged
  grades are not sliced.
- **Warnings**, one line each (`warnings`): runs over different task sets (run.json `tasks.tasks_sha256`)
  or over different selections of one (`--filter`, `--where`, `--sample-id`, `--limit`), and unfinished
  runs, whose column head says so ("(stopped: time budget)"): their figures cover only what was answered.
- **Names are never cut short**: a column head too wide for the terminal folds instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.scoring.results import EXAM_TASKS, MARE_LABEL, MEDIAN_METRICS, TASKS, applies

#: The rows read from each run's scores.json, per task: (metric, label). A row appears only for the tasks
#: the metric applies to (`scoring.results.TASK_METRICS`): MCQ has accuracy, not F1, MARE or validity.
EXACT_ROWS = (
    ("f1", "F1"),
    ("accuracy", "accuracy%"),
    ("valid", "valid%"),
    ("optimal", "optimal%"),
    ("mare", MARE_LABEL),
    ("median_re", "median RE"),
)
#: Rows of errors, which are not bounded by 1: shown with three significant digits.
ERROR_LABELS = {MARE_LABEL, "median RE"}


@dataclass
class RunColumn:
    path: str
    model: str
    status: str
    samples: int
    failed: int
    cost: float
    judge_cost: float | None
    cells: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)  # row -> (mean, se)
    not_sent: list[str] = field(default_factory=list)  # settings asked for that the provider never got
    stop_reason: str | None = None
    header: dict[str, Any] = field(default_factory=dict)  # run.json
    scores: dict[str, Any] | None = None  # scores.json


def _state(status: str, stop_reason: str | None) -> str | None:
    """How an unfinished run is named ("stopped: time budget"); None for a complete one."""
    if status == "complete":
        return None
    return f"{status}: {stop_reason}" if stop_reason else status


def run_column(run_dir: str | Path) -> RunColumn:
    """The figures of one run directory."""
    run_dir = Path(run_dir)
    header_path = run_dir / "run.json"
    if not header_path.is_file():
        raise InputError(f"{run_dir}: not a run directory (no run.json)")
    header = read_json(header_path)
    totals = header.get("totals") or {}
    column = RunColumn(
        path=str(run_dir),
        model=str(header.get("model")),
        status=str(header.get("status")),
        samples=int(totals.get("recorded") or 0),
        failed=int(totals.get("failed") or 0),
        cost=float(totals.get("cost") or 0.0),
        judge_cost=None,
        not_sent=sorted(header.get("params_dropped") or {}),
        stop_reason=header.get("stop_reason"),
        header=header,
    )
    judge_header = run_dir / "judge.json"
    if judge_header.is_file():
        for judge in read_json(judge_header).get("judges") or []:
            column.not_sent += [f"judge {name}" for name in sorted(judge.get("params_dropped") or {})]
    scores_path = run_dir / "scores.json"
    if scores_path.is_file():
        scores = column.scores = read_json(scores_path)
        for group in scores.get("by_task", []):
            task = group["task"]
            for metric, label in EXACT_ROWS:
                summary = group.get("metrics", {}).get(metric)
                value = summary.get("median" if metric in MEDIAN_METRICS else "mean") if summary else None
                if value is not None and applies(metric, task):
                    column.cells[f"{task} {label}"] = (value, summary.get("se"))
    judged_path = run_dir / "judged.json"
    if judged_path.is_file():
        judged = read_json(judged_path)
        column.judge_cost = float((judged.get("cost_totals") or {}).get("cost") or 0.0)
        reference = judged.get("reference")
        if reference and reference.get("mean") is not None:
            column.cells[f"OPEN judged grade ({judged['ensemble']})"] = (
                reference["mean"],
                reference.get("se"),
            )
        rubric = judged.get("rubric")
        if rubric and rubric.get("percent") is not None:
            se = rubric.get("se")
            column.cells[f"OPEN rubric % ({judged['ensemble']})"] = (
                rubric["percent"] / 100,
                None if se is None else se / 100,
            )
    return column


def _row_order(rows: set[str]) -> list[str]:
    order = {task: n for n, task in enumerate(("AE", "EC", "EV", "NA", "OE", "MCQ", "OPEN"))}
    metrics = {label: n for n, (_, label) in enumerate(EXACT_ROWS)}
    return sorted(
        rows, key=lambda row: (order.get(row.split()[0], 99), metrics.get(row.split(" ", 1)[-1], 9), row)
    )


def comparison(run_dirs: list[str | Path], by: tuple[str, ...] = ()) -> dict[str, Any]:
    """The runs' figures as one table: rows (task and metric) by columns (runs), the warnings about what
    makes them hard to compare, and with `by` (fields) the same rows per slice (`by_fields`)."""
    if not run_dirs:
        raise InputError("give at least one run directory")
    columns = [run_column(path) for path in run_dirs]
    rows = _row_order({row for column in columns for row in column.cells})
    table: dict[str, Any] = {
        "runs": [
            {
                "path": c.path,
                "model": c.model,
                "status": c.status,
                "stop_reason": c.stop_reason,
                "samples": c.samples,
                "failed": c.failed,
                "cost": c.cost,
                "judge_cost": c.judge_cost,
                "not_sent": c.not_sent,
            }
            for c in columns
        ],
        "rows": rows,
        "cells": {row: [columns[i].cells.get(row) for i in range(len(columns))] for row in rows},
        "warnings": comparison_warnings(columns),
    }
    if by:
        table["by_fields"] = sliced_rows(columns, by, table["warnings"])
    return table


def comparison_warnings(columns: list[RunColumn]) -> list[str]:
    """One line per thing that makes the runs' figures not comparable as they stand."""
    warnings: list[str] = []
    tasks = [c.header.get("tasks") or {} for c in columns]
    by_set: dict[str, list[str]] = {}
    for column, ref in zip(columns, tasks, strict=True):
        by_set.setdefault(str(ref.get("tasks_sha256") or "unknown"), []).append(column.path)
    if len(by_set) > 1:
        sets = "; ".join(f"sha256 {sha[:12]}: {', '.join(paths)}" for sha, paths in by_set.items())
        warnings.append(
            f"the runs are over different task sets, so their figures are not comparable ({sets})"
        )
    elif len(columns) > 1:
        keys = ("filters", "where", "sample_ids", "limit")
        chosen = {json.dumps([c.header.get(k) or None for k in keys]) for c in columns}
        if len(chosen) > 1:
            warnings.append(
                "the runs take different tasks of one task set (--filter, --where, --sample-id or --limit "
                "differ), so their figures are over different samples"
            )
    for column in columns:
        state = _state(column.status, column.stop_reason)
        if state is not None:
            totals = column.header.get("totals") or {}
            planned, remaining = int(totals.get("planned") or 0), int(totals.get("remaining") or 0)
            done = f": {planned - remaining} of {planned} samples recorded" if planned else ""
            warnings.append(
                f"{column.path} ({column.model}) is an unfinished run ({state}){done}; its figures cover "
                "only the samples answered"
            )
    return warnings


def task_records(
    run_dir: str | Path, header: dict[str, Any] | None = None
) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The task file of a run (run.json `tasks.path`, `header` when read already; for a run directory moved
    with its tasks, the same path relative to the run directory's parent) and its records by id."""
    from lexsym._util.jsonl import read_jsonl
    from lexsym.scoring.slices import records_by_id

    run_dir = Path(run_dir)
    if header is None:
        header = read_json(run_dir / "run.json")
    named = str((header.get("tasks") or {}).get("path") or "")
    for candidate in (Path(named), run_dir.parent / named) if named else ():
        path = candidate / "tasks.jsonl" if candidate.is_dir() else candidate
        if path.is_file():
            return path, records_by_id(record for _, record in read_jsonl(path, []))
    missing = f"its task file {named} is not there (moved or deleted?)" if named else "it names no task file"
    raise InputError(f"{run_dir / 'run.json'}: {missing}; --by needs the tasks' metadata")


def sliced_rows(columns: list[RunColumn], by: tuple[str, ...], warnings: list[str]) -> dict[str, Any]:
    """The comparison's rows per slice: for each (task, metric, values of `by`), in that order so that a
    metric's slices are read one after another, each run's (mean, SE) and n. A field none of the runs'
    task sets has is an InputError listing those they have; a run whose task set lacks a field the others
    have has it missing ("–")."""
    from lexsym.scoring import ScoreReport
    from lexsym.scoring.slices import (
        available_fields,
        rows_of_samples,
        slice_scores,
        unknown_field,
        value_order,
    )

    loaded: list[tuple[ScoreReport, dict[str, dict[str, Any]]] | None] = []
    known: set[str] = set()
    for column in columns:
        if column.scores is None:
            warnings.append(f"{column.path}: no scores.json, so no slices of its figures")
            loaded.append(None)
            continue
        records = task_records(column.path, column.header)[1]
        known.update(available_fields(records.values()))
        loaded.append((ScoreReport.model_validate(column.scores), records))
    if not any(loaded):
        raise InputError("--by: none of the runs has a scores.json to slice")
    unknown = [name for name in by if name not in known]
    if unknown:
        raise unknown_field(unknown[0], known, "these runs' task sets")
    found: dict[tuple[str, tuple[Any, ...], str], list[Any]] = {}
    for i, files in enumerate(loaded):
        if files is None:
            continue
        report, records = files
        rows = rows_of_samples(report.samples, records)
        for group in slice_scores(rows, records, by, report.seed, report.resamples).groups:
            values = tuple(group.values[name] for name in by)
            for metric, _ in EXACT_ROWS:
                summary = group.metrics.get(metric)
                value = (
                    None if summary is None else summary.median if metric in MEDIAN_METRICS else summary.mean
                )
                if value is None or not applies(metric, group.task):
                    continue
                cell = found.setdefault((group.task, values, metric), [None] * len(columns))
                cell[i] = {"mean": value, "se": summary.se, "n": group.n}
    tasks = {task: n for n, task in enumerate((*TASKS, *EXAM_TASKS))}
    metrics = {metric: n for n, (metric, _) in enumerate(EXACT_ROWS)}
    order = sorted(
        found,
        key=lambda k: (tasks.get(k[0], 99), k[0], metrics[k[2]], tuple(value_order(v) for v in k[1])),
    )
    labels = dict(EXACT_ROWS)
    return {
        "fields": list(by),
        "rows": [
            {
                "task": task,
                "values": dict(zip(by, values, strict=True)),
                "metric": metric,
                "label": f"{task} {labels[metric]}",
                "cells": [None if c is None else [c["mean"], c["se"]] for c in found[(task, values, metric)]],
                "n": [None if c is None else c["n"] for c in found[(task, values, metric)]],
            }
            for task, values, metric in order
        ],
    }


def _cell(value: tuple[float | None, float | None] | None, row: str) -> str:
    if value is None or value[0] is None:
        return "–"
    mean, se = value
    percent = row.endswith("%") or " rubric %" in row
    if percent:
        return f"{100 * mean:.1f}" + ("" if se is None else f" ± {100 * se:.1f}")
    if row.split(" ", 1)[-1] in ERROR_LABELS:
        return f"{mean:.3g}" + ("" if se is None else f" ± {se:.3g}")
    return f"{mean:.3f}" + ("" if se is None else f" ± {se:.3f}")


def _head(run: dict[str, Any]) -> str:
    """A run's column head: its model, its directory's name, and its state when unfinished."""
    state = _state(str(run["status"]), run.get("stop_reason"))
    return f"{run['model']} ({Path(run['path']).name})" + ("" if state is None else f" ({state})")


def render_comparison(table: dict[str, Any], console: Any, *, markdown: bool = False) -> None:
    """Print `table` (`comparison`) as a rich table, or as Markdown; with `by_fields`, one row per slice,
    task and metric, with the slice's fields and n in columns of their own."""
    heads = [_head(run) for run in table["runs"]]
    footer = [
        ("samples (failed)", [f"{run['samples']} ({run['failed']})" for run in table["runs"]]),
        ("cost $", [f"{run['cost']:.6f}" for run in table["runs"]]),
        (
            "judge cost $",
            ["–" if run["judge_cost"] is None else f"{run['judge_cost']:.6f}" for run in table["runs"]],
        ),
    ]
    if any(run["not_sent"] for run in table["runs"]):  # a "seeded" run whose provider took no seed
        footer.append(("not sent", [", ".join(run["not_sent"]) or "–" for run in table["runs"]]))
    sliced = table.get("by_fields")
    if sliced is None:
        labels: list[str] = []
        body = [([], row, [_cell(value, row) for value in table["cells"][row]]) for row in table["rows"]]
    else:
        from lexsym.scoring.slices import label

        labels = [*sliced["fields"], "n"]
        body = [
            (
                [*(label(row["values"][name]) for name in sliced["fields"]), _counts(row["n"])],
                row["label"],
                [_cell(None if cell is None else tuple(cell), row["label"]) for cell in row["cells"]],
            )
            for row in sliced["rows"]
        ]
    blank = [""] * len(labels)
    if markdown:
        lines = ["|" + "".join(f" {name} |" for name in labels) + " | " + " | ".join(heads) + " |"]
        lines.append("|---|" + "---|" * (len(labels) + len(heads)))
        lines += [f"| {' | '.join([*keys, row])} | " + " | ".join(cells) + " |" for keys, row, cells in body]
        lines += [f"| {' | '.join([*blank, row])} | " + " | ".join(cells) + " |" for row, cells in footer]
        console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
        return
    from rich.table import Table
    from rich.text import Text

    by = "" if sliced is None else f", per {' × '.join(sliced['fields'])}"
    grid = Table(
        title=Text(
            f"Runs compared{by}: mean ± bootstrap SE (percentages for %, F1 and grades 0-1; median RE: the "
            f"median ± its SE; {MARE_LABEL} as OpenExempt defines it)"
        )
    )
    for name in labels:  # names and values from the files: folded when too long, never cut short
        grid.add_column(Text(name), overflow="fold", justify="right" if name == "n" else "left")
    grid.add_column("", overflow="fold")
    widths = _head_widths(console.width, labels, heads, body, footer)
    if widths is None:  # too many or too long to fit: numbered heads, and the runs named in full above
        for number, head in enumerate(heads, 1):
            console.print(Text(f"run {number}: {head}"), soft_wrap=True)
        heads, widths = [f"run {number}" for number in range(1, len(heads) + 1)], [None] * len(heads)
    for head, width in zip(heads, widths, strict=True):
        grid.add_column(Text(head), justify="right", overflow="fold", width=width)
    for keys, row, cells in body:
        grid.add_row(*map(Text, keys), Text(row), *map(Text, cells))
    grid.add_section()
    for row, cells in footer:
        grid.add_row(*map(Text, blank), Text(row), *map(Text, cells))
    console.print(grid)


def _head_widths(
    width: int, labels: list[str], heads: list[str], body: list[Any], footer: list[Any]
) -> list[int | None] | None:
    """The run columns' widths in a table `width` wide: their own (None) when the table fits so; else, when
    it fits so, each as wide as the longest word of its head (the model's name) or its widest cell, the
    rest of the head wrapping below it; else None: the heads do not fit unbroken. (Left to itself, rich
    narrows the widest columns first, which are the runs', and folds their names.)"""
    rows = [(keys, row, cells) for keys, row, cells in body]
    rows += [([""] * len(labels), row, cells) for row, cells in footer]
    own = [max([len(name), *(len(keys[i]) for keys, _, _ in rows)]) for i, name in enumerate(labels)]
    own.append(max((len(row) for _, row, _ in rows), default=0))
    cells = [max((len(r[2][i]) for r in rows), default=0) for i in range(len(heads))]
    chrome = 3 * (len(own) + len(heads)) + 1  # two of padding and one of border per column, one more border
    if sum(own) + sum(max(len(h), c) for h, c in zip(heads, cells, strict=True)) + chrome <= width:
        return [None] * len(heads)
    narrow = [max([c, *(len(word) for word in h.split())]) for h, c in zip(heads, cells, strict=True)]
    return narrow if sum(own) + sum(narrow) + chrome <= width else None


def _counts(counts: list[int | None]) -> str:
    """A slice's n: one number when every run has the same, else each run's ("12/9/–")."""
    shown = ["–" if n is None else str(n) for n in counts]
    return shown[0] if len(set(shown)) == 1 else "/".join(shown)
