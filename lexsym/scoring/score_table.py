"""`lexsym score` for people: rich tables of the aggregates (the metrics that apply to the tasks present,
then the relative errors of amounts), per task or per slice, then what went wrong with the inputs."""

from __future__ import annotations

from typing import Any

from lexsym.scoring.results import MARE_LABEL, GroupScore, MetricSummary, ScoreReport, applies
from lexsym.scoring.slices import label


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


def _median(summary: MetricSummary | None) -> str:
    return "–" if summary is None or summary.median is None else format(summary.median, ".3g")


#: The main table's metric columns: (header, metric, cell). A column is shown only when it applies to a
#: task present (`results.TASK_METRICS`), and a row's cell is "–" where it does not apply to the row's task.
SCORE_COLUMNS = (
    ("format%", "format", _percent),
    ("P", "precision", _plain),
    ("R", "recall", _plain),
    ("F1 ± SE", "f1", _with_se),
    ("acc%", "accuracy", _percent),  # its SEs are on the MCQ line below the table
    ("valid%", "valid", _percent),
    ("optimal%", "optimal", _percent),
)
#: The amounts table (EV, NA, OE): MARE as OpenExempt defines it, with the median relative error beside it.
ERROR_COLUMNS = (
    (MARE_LABEL, "mare", lambda m: _plain(m, ".3g")),
    ("median RE", "median_re", _median),
)
ERROR_NOTE = (
    f"{MARE_LABEL}: the mean of |pred/(gold+1) - 1| over matched amounts, as OpenExempt defines it; where "
    "the gold is 0 it is about the error in dollars. median RE: the median over samples of each sample's "
    "median of the same errors."
)


def _labels(report: ScoreReport, by: str) -> tuple[list[Any], list[tuple[str, Any]]]:
    """The groups that are the table's rows, and its label columns before Task: (header, cell text)."""
    if by == "task":
        return list(report.by_task), []
    if by in ("variant", "suite"):
        groups = report.by_variant if by == "variant" else report.by_suite
        return list(groups), [(by.capitalize(), lambda g: (g.variant if by == "variant" else g.suite) or "")]
    slices = getattr(report, "by_fields", None)  # a SlicedScoreReport (`slices`)
    if slices is None or ",".join(slices.fields) != by:
        raise ValueError(f"the report has no slices by {by!r}: score it with by={by.split(',')!r}")
    return list(slices.groups), [
        (name, lambda g, name=name: label(g.values.get(name))) for name in slices.fields
    ]


def render_report(report: ScoreReport, console: Any, *, by: str = "task") -> None:
    """Print `report` for people: one rich table (per task, or per task within each variant or suite, or
    within each slice of a SlicedScoreReport, `by` its fields joined by ",") with the columns that apply
    to the tasks present, a second one of relative errors when amounts were compared (EV, NA, OE), then
    what went wrong with the inputs. `console` is a rich Console. Only F1 shows its standard error in the
    table, to keep it narrow (MCQ accuracy's are on the line below it); every SE is in the JSON report."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    groups, labels = _labels(report, by)

    def table_of(title: Text, columns: tuple, rows: list[GroupScore], count: Any) -> Any:
        shown = [c for c in columns if any(applies(c[1], g.task) for g in rows)]
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
        for header, text_of in labels:
            longest = max((len(text_of(g)) for g in rows), default=0)
            if by in ("variant", "suite"):
                table.add_column(header, min_width=max(longest, len(header)), no_wrap=True)
            else:  # a slice's field: a long name folds first, and no value is cut short
                table.add_column(Text(header), min_width=longest, overflow="fold")
        table.add_column("Task", min_width=4, no_wrap=True)
        for header, _, _ in (("n", None, None), *shown):
            table.add_column(header, justify="right", no_wrap=True)
        for group in rows:
            m = group.metrics
            cells = [cell(m.get(name)) if applies(name, group.task) else "–" for _, name, cell in shown]
            # names from the file: Text, so that brackets in them are not markup
            names = (*(text_of(group) for _, text_of in labels), group.task)
            table.add_row(*(Text(text) for text in names), str(count(group)), *cells)
        return table

    title = Text(f"Scores of {report.predictions_path}")  # a Text: brackets in a path are not markup
    table = table_of(title, SCORE_COLUMNS, groups, lambda g: g.n)
    console.print(table)
    amounts = [g for g in groups if applies("mare", g.task)]
    if amounts:

        def matched(group: GroupScore) -> int:
            summary = group.metrics.get("mare")
            return summary.n if summary is not None else 0

        title = Text("Relative errors of amounts (n: samples with a matched amount)")
        console.print(table_of(title, ERROR_COLUMNS, amounts, matched))
        console.print(ERROR_NOTE, markup=False, highlight=False, soft_wrap=True)
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
