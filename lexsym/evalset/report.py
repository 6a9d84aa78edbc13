"""The eval set's one report: per task set, its runs side by side (`lexsym.reports.compare`), the runs
that failed, and the judges that share a family with the model they grade (OUT/report.json, report.md).

Run paths in the report are relative to OUT, and nothing in it is a clock reading, so a tree that was
killed and resumed gives the same report.json as one run straight through (eval-set.json has the times).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym.evalset.plan import PlannedRun

REPORT_JSON = "report.json"
REPORT_MD = "report.md"


def _judge_flags(run_dir: Path) -> dict[str, dict[str, Any]]:
    """The judges of a judged run that are the answering model or of its family (judged.json)."""
    from lexsym.judges.scores import read_judged

    try:
        judged = read_judged(run_dir)
    except ValueError:  # an unreadable judged.json: the comparison itself says so
        return {}
    if judged is None:
        return {}
    return {
        judge: bias.model_dump()
        for judge, bias in judged.judge_bias.items()
        if bias.self or bias.same_family_as_answering
    }


def build_report(out: Path, runs: list[PlannedRun], state: dict[str, Any]) -> dict[str, Any]:
    """The report as JSON: per task set the comparison table of its runs that have a run.json."""
    from lexsym.reports.compare import comparison

    task_sets: dict[str, Any] = {}
    for name in dict.fromkeys(run.task_set for run in runs):
        present = [run for run in runs if run.task_set == name and (run.out / "run.json").is_file()]
        if not present:
            task_sets[name] = None
            continue
        table = comparison([run.out for run in present])
        for column, run in zip(table["runs"], present, strict=True):
            column["path"] = run.key  # relative to OUT: the same report wherever the tree is
        task_sets[name] = table
    judge_bias = {run.key: flags for run in runs if (flags := _judge_flags(run.out))}
    return {
        "evalset_format": 1,
        "config_digest": state["config_digest"],
        "task_sets": task_sets,
        "runs": [
            {
                "run": run.key,
                "task_set": run.task_set,
                "model": run.model,
                "state": state["runs"][run.key].get("state"),
                "failed": state["runs"][run.key].get("failed"),
                "judge_state": state["runs"][run.key].get("judge_state"),
                "judge_failed": state["runs"][run.key].get("judge_failed"),
            }
            for run in runs
        ],
        "judge_bias": judge_bias,
        "failed": state["failed"],
    }


def render_report(report: dict[str, Any], console: Any, *, markdown: bool = False) -> None:
    """The report for people: a table per task set, then the failed runs and the judge-bias flags."""
    from rich.text import Text

    from lexsym.reports.compare import render_comparison

    def line(text: str) -> None:
        if markdown:
            console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(Text(text), soft_wrap=True)

    if markdown:
        line("# Eval set report\n")
    for name, table in report["task_sets"].items():
        line(f"## Task set {name}\n" if markdown else f"Task set {name}")
        if table is None:
            line("no run has started")
        else:
            render_comparison(table, console, markdown=markdown)
        if markdown:
            line("")
    flagged = [
        f"{run}: judge {judge} is "
        + (
            "the answering model itself"
            if flags["self"]
            else f"of the answering model's family ({flags['family']})"
        )
        for run, judges in report["judge_bias"].items()
        for judge, flags in judges.items()
    ]
    if flagged:
        line("Judge bias (compare these judges' grades with the others'):")
        for text in flagged:
            line(f"- {text}")
    if report["failed"]:
        line(f"Failed runs ({len(report['failed'])}):")
        for text in report["failed"]:
            line(f"- {text}")
    else:
        line(f"All {len(report['runs'])} runs complete.")


def markdown_text(report: dict[str, Any]) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None, force_terminal=False)
    render_report(report, console, markdown=True)
    return buffer.getvalue()


def write_report(out: Path, runs: list[PlannedRun], state: dict[str, Any]) -> dict[str, Any]:
    """report.json and report.md in OUT (atomic); the report."""
    report = build_report(out, runs, state)
    write_atomic(out / REPORT_JSON, json.dumps(report, indent=2) + "\n")
    write_atomic(out / REPORT_MD, markdown_text(report))
    return report
