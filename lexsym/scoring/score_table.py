"""`lexsym score` for people: one rich table of the aggregates, then what went wrong with the inputs."""

from __future__ import annotations

from typing import Any

from lexsym.scoring.results import GroupScore, MetricSummary, ScoreReport


def _percent(summary: MetricSummary | None) -> str:
    if summary is None or summary.mean is None:
        return "–"
    return f"{100 * summary.mean:.1f}"


def _plain(summary: MetricSummary | None, spec: str = ".3f") -> str:
    return "–" if summary is None or summary.mean is None else format(summary.mean, spec)


def _with_se(summary: MetricSummary | None) -> str:
    if summary is None or summary.mean is None:
        return "–"
    se = f" ± {summary.se:.3f}" if summary.se is not None else ""
    return f"{summary.mean:.3f}{se}"


def render_report(report: ScoreReport, console: Any, *, by: str = "task") -> None:
    """Print `report` for people: one rich table (per task, or per task within each variant or suite), then
    what went wrong with the inputs. `console` is a rich Console. Only F1 shows its standard error, to keep
    the table narrow; every SE is in the JSON report. "valid%" and "optimal%" are OE's."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    groups = {"task": report.by_task, "variant": report.by_variant, "suite": report.by_suite}[by]
    title = Text(f"Scores of {report.predictions_path}")  # a Text: brackets in a path are not markup
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    if by != "task":
        longest = max((len(g.variant if by == "variant" else g.suite or "") for g in groups), default=0)
        table.add_column(by.capitalize(), min_width=max(longest, len(by)), no_wrap=True)
    table.add_column("Task", min_width=4, no_wrap=True)
    for header in ("n", "format%", "P", "R", "F1 ± SE", "MARE", "valid%", "optimal%"):
        table.add_column(header, justify="right", no_wrap=True)
    for group in groups:
        m = group.metrics
        cells = [
            str(group.n),
            _percent(m.get("format")),
            _plain(m.get("precision")),
            _plain(m.get("recall")),
            _with_se(m.get("f1")),
            _plain(m.get("mare"), ".3g"),
            _percent(m.get("valid")),
            _percent(m.get("optimal")),
        ]
        label = {"task": [], "variant": [group.variant or ""], "suite": [group.suite or ""]}[by]
        table.add_row(
            *(Text(text) for text in (*label, group.task)), *cells
        )  # names from the file: no markup
    console.print(table)
    oe = next((g for g in report.by_task if g.task == "OE"), None)
    if oe is not None and oe.violations:
        broken = ", ".join(
            f"{name} {count}" for name, count in sorted(oe.violations.items(), key=lambda i: -i[1])
        )
        console.print(f"OE answers breaking each rule: {broken}")
    if oe is not None and oe.beats_optimum:
        console.print(f"[bold red]{oe.beats_optimum} OE answer(s) beat the proven optimum: a solver bug[/]")
    for group in (g for g in report.by_task if g.task == "MCQ"):
        console.print(_mcq_line(group), markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{report.tasks} tasks, {report.predictions} predictions; {len(report.missing)} tasks without a "
        f"prediction (scored as format failures), {len(report.unknown)} predictions for unknown ids, "
        f"{len(report.errors)} unusable lines"
    )
    for error in report.errors[:5]:
        console.print(f"  {error}", markup=False, highlight=False, soft_wrap=True)
    if len(report.errors) > 5:
        console.print(f"  … and {len(report.errors) - 5} more (see --json)")
    for warning in report.warnings:
        style = "bold red" if warning.startswith("SOLVER BUG") else "yellow"
        console.print(warning, style=style, markup=False, highlight=False, soft_wrap=True)


def _mcq_line(group: GroupScore) -> str:
    m = group.metrics
    accuracy, clustered = m["accuracy"], m.get("accuracy_clustered")
    failures = round(group.n * (1 - (m["format"].mean or 0.0)))
    by_course = (
        f", ± {100 * clustered.se:.1f} clustered by course ({clustered.n} courses)"
        if clustered is not None and clustered.se is not None
        else ""
    )
    se = f" ± {100 * accuracy.se:.1f}" if accuracy.se is not None else ""
    return (
        f"MCQ accuracy {_percent(accuracy)}%{se} (bootstrap SE){by_course}; "
        f"{failures} of {group.n} outputs without a readable option (counted wrong)"
    )
