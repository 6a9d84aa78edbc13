"""`lexsym report RUN_DIR ...`: several runs side by side, one column per run.

Why a separate view: a run's own table answers "how did this model do"; a paper or a regression check
asks "which model is better, and by more than the error bars". Each cell is a mean ± its bootstrap SE
from the run's own files (scores.json, judged.json, run.json); nothing is recomputed or re-asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.scoring.results import MARE_LABEL, MEDIAN_METRICS, applies

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


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise InputError(f"{path}: invalid JSON: {error}") from None


def run_column(run_dir: str | Path) -> RunColumn:
    """The figures of one run directory."""
    run_dir = Path(run_dir)
    header_path = run_dir / "run.json"
    if not header_path.is_file():
        raise InputError(f"{run_dir}: not a run directory (no run.json)")
    header = _read_json(header_path)
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
    )
    judge_header = run_dir / "judge.json"
    if judge_header.is_file():
        for judge in _read_json(judge_header).get("judges") or []:
            column.not_sent += [f"judge {name}" for name in sorted(judge.get("params_dropped") or {})]
    scores_path = run_dir / "scores.json"
    if scores_path.is_file():
        scores = _read_json(scores_path)
        for group in scores.get("by_task", []):
            task = group["task"]
            for metric, label in EXACT_ROWS:
                summary = group.get("metrics", {}).get(metric)
                value = summary.get("median" if metric in MEDIAN_METRICS else "mean") if summary else None
                if value is not None and applies(metric, task):
                    column.cells[f"{task} {label}"] = (value, summary.get("se"))
    judged_path = run_dir / "judged.json"
    if judged_path.is_file():
        judged = _read_json(judged_path)
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


def comparison(run_dirs: list[str | Path]) -> dict[str, Any]:
    """The runs' figures as one table: rows (task and metric) by columns (runs)."""
    if not run_dirs:
        raise InputError("give at least one run directory")
    columns = [run_column(path) for path in run_dirs]
    rows = _row_order({row for column in columns for row in column.cells})
    return {
        "runs": [
            {
                "path": c.path,
                "model": c.model,
                "status": c.status,
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


def render_comparison(table: dict[str, Any], console: Any, *, markdown: bool = False) -> None:
    heads = [f"{run['model']} ({Path(run['path']).name})" for run in table["runs"]]
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
    body = [(row, [_cell(value, row) for value in table["cells"][row]]) for row in table["rows"]]
    if markdown:
        lines = ["| | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
        lines += [f"| {row} | " + " | ".join(cells) + " |" for row, cells in body + footer]
        console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
        return
    from rich.table import Table
    from rich.text import Text

    grid = Table(
        title=Text(
            "Runs compared: mean ± bootstrap SE (percentages for %, F1 and grades 0-1; median RE: the "
            f"median ± its SE; {MARE_LABEL} as OpenExempt defines it)"
        )
    )
    grid.add_column("")
    for head in heads:
        grid.add_column(Text(head), justify="right")
    for row, cells in body:
        grid.add_row(Text(row), *map(Text, cells))
    grid.add_section()
    for row, cells in footer:
        grid.add_row(Text(row), *map(Text, cells))
    console.print(grid)
