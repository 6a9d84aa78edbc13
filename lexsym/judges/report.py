"""Tables for people: judged scores with their standard errors, and judge validation results."""

from __future__ import annotations

import math
from typing import Any

from lexsym._util.console import table_console
from lexsym.judges.labels import HUMAN, Labels
from lexsym.judges.scores import JudgedReport, ReferenceSummary, RubricSummary


def _num(value: float | None, spec: str = ".3f") -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def _reference_row(name: str, s: ReferenceSummary) -> list[str]:
    return [
        name,
        str(s.n),
        f"{_num(s.mean)} ± {_num(s.se)}",
        _num(s.se_clustered),
        str(s.failed),
        str(s.no_answer),
    ]


def _rubric_row(name: str, s: RubricSummary) -> list[str]:
    return [
        name,
        str(s.n),
        f"{_num(s.percent, '.1f')}% ± {_num(s.se, '.1f')}",
        f"{_num(s.lower_percent, '.1f')}-{_num(s.upper_percent, '.1f')}%",
        f"{s.incomplete} ({s.items_undecided} items)",
        str(s.no_answer),
    ]


def _summary_table(
    title: str,
    columns: tuple[str, ...],
    row: Any,
    ensemble: tuple[str, Any],
    by_judge: dict[str, Any],
    by_variant: dict[str, Any],
    report: JudgedReport,
) -> Any:
    """One judge table: the ensemble first, then each judge alone (with its family and a bias flag, when
    the report knows the answering model), then each variant."""
    from rich.table import Table
    from rich.text import Text

    bias = report.judge_bias
    table = Table(title=Text(title))
    for column in ("Rows", *columns, *(("vs ensemble", "Family", "Bias") if bias else ())):
        table.add_column(column, justify="left" if column in ("Rows", "Family", "Bias") else "right")
    answering = ("", f"answering: {report.answering_family}", "") if bias else ()
    rows = [(*ensemble, answering)]
    for judge, summary in by_judge.items():
        known = bias.get(judge)
        away = _difference(summary, ensemble[1])
        rows.append(
            (f"judge {judge}", summary, (away, known.family, known.flag) if known else (away, "-", ""))
        )
    rows += [(f"variant {v}", s, ("", "", "") if bias else ()) for v, s in sorted(by_variant.items())]
    for name, summary, extra in rows:
        table.add_row(*map(Text, row(name, summary)), *(map(Text, extra) if bias else ()))
    return table


def _difference(summary: Any, ensemble: Any) -> str:
    """A judge's headline minus the ensemble's (grade points, or percentage points), signed."""
    field = "mean" if isinstance(summary, ReferenceSummary) else "percent"
    mine, theirs = getattr(summary, field), getattr(ensemble, field)
    if mine is None or theirs is None:
        return "-"
    return format(mine - theirs, "+.3f" if field == "mean" else "+.1f")


def bias_warning(report: JudgedReport) -> str | None:
    """One line naming the judges that grade their own answers or their own family's, or None."""
    flagged = [(judge, bias) for judge, bias in report.judge_bias.items() if bias.flag]
    if not flagged:
        return None
    named = "; ".join(
        f"{judge} is the answering model itself"
        if bias.self
        else f"{judge} is of the answering model's family ({bias.family})"
        for judge, bias in flagged
    )
    return (
        f"Judge bias: {named}: LEXam finds judges favour their own answers and family; compare their "
        "grades with the other judges' and the ensemble's."
    )


def render_judged(report: JudgedReport, console: Any = None) -> None:
    """The reference-judge and rubric-judge tables, and the judges' cost."""
    from rich.text import Text

    console = console or table_console()
    judges = ", ".join(report.judges)
    ensemble = f"ensemble ({report.ensemble})"
    if report.reference is not None:
        console.print(
            _summary_table(
                f"Reference judge ({report.ensemble} of {judges}); grades 0-1, mean ± bootstrap SE",
                ("n", "Grade", "Clustered SE", "Judge failures", "No answer"),
                _reference_row,
                (ensemble, report.reference),
                report.reference_by_judge,
                report.reference_by_variant,
                report,
            )
        )
    if report.rubric is not None:
        console.print(
            _summary_table(
                f"Rubric judge ({report.ensemble} of {judges}); score: % of the decided points ± bootstrap "
                "SE; bounds: undecided items unmet (KCL's figure) to met",
                ("n", "Score", "Bounds (low = KCL)", "Incomplete", "No answer"),
                _rubric_row,
                (ensemble, report.rubric),
                report.rubric_by_judge,
                report.rubric_by_variant,
                report,
            )
        )
    warning = bias_warning(report)
    if warning and (report.reference is not None or report.rubric is not None):
        console.print(Text(warning, style="yellow"), soft_wrap=True)
    costs = report.cost_totals.get("by_judge", {})
    if costs:
        spent = ", ".join(
            f"{judge} ${entry['cost']:.6f} ({entry['calls']} calls, {entry['cached']} cached)"
            for judge, entry in costs.items()
        )
        answering = _num(report.answering_cost, ".6f")
        console.print(Text(f"Judge cost: {spent}; answering model ${answering} (reported apart)"))


def validate_judges(
    labels: Labels,
    judges: list[str],
    *,
    epsilon: float,
    alpha: float,
    metric: str,
    min_items: int,
) -> dict[str, Any]:
    """The alt-test of each judge against the annotator pool, and the pairwise agreement of all raters.

    The pool is the raters marked human, only: never another judge, an ensemble (which holds the judge's
    own grades), or any other llm rater, whether it came from a labels file or a judged run. A judge must
    be an llm rater. Raises ValueError (one line) when the raters cannot be tested as asked."""
    from lexsym.judges.validation import alt_test, first_label, pairwise_agreement, score_grid

    ratings = labels.ratings
    unknown = [name for name in judges if name not in ratings]
    if unknown:
        raise ValueError(f"no ratings by judge {', '.join(map(repr, unknown))}")
    marked_human = [name for name in judges if labels.kinds[name] == HUMAN]
    if marked_human:
        raise ValueError(
            f"judge {marked_human[0]!r} is marked human in {labels.sources[marked_human[0]]}: a judge is an "
            "llm rater, and a human one stays in the pool"
        )
    labelled = [rater for rater, scores in ratings.items() if first_label(scores) is not None]
    if labelled and len(labelled) < len(ratings):
        numeric = next(rater for rater in ratings if rater not in labelled)
        raise ValueError(
            f"rater {labelled[0]!r} gives category labels but rater {numeric!r} gives numbers: "
            "compare like with like"
        )
    humans = {rater: ratings[rater] for rater in labels.humans}
    if len(humans) < 2:
        raise ValueError(
            f"the alt-test needs at least two raters marked human; found {len(humans)}"
            + (f" ({', '.join(humans)})" if humans else "")
        )
    tests = {}
    for judge in judges:
        result = alt_test(
            humans,
            ratings[judge],
            epsilon=epsilon,
            alpha=alpha,
            metric=metric,
            min_items_per_annotator=min_items,
        )
        tests[judge] = {
            "winning_rate": result.winning_rate,
            "advantage_probability": result.advantage_probability,
            "passed": result.passed,
            "epsilon": result.epsilon,
            "alpha": result.alpha,
            "metric": result.metric,
            "items_used": result.items_used,
            "items_dropped": result.items_dropped,
            "skipped": [list(entry) for entry in result.skipped],
            "trials": [
                {
                    "annotator": trial.annotator,
                    "items": trial.items,
                    "judge_advantage": trial.judge_advantage,
                    "annotator_advantage": trial.annotator_advantage,
                    "t": trial.t_statistic,
                    "p": trial.p_value,
                    "rejected": trial.rejected,
                }
                for trial in result.trials
            ],
        }
    values = {score for scores in ratings.values() for score in scores.values()}
    grid = score_grid()
    categories = list(grid) if not labelled and values <= set(grid) else None
    agreement = [
        {
            "first": pair.first,
            "second": pair.second,
            "items": pair.items,
            "exact": pair.exact,
            "pearson": pair.pearson,
            "qwk": pair.kappa,
            "mae": pair.mae,
        }
        for pair in pairwise_agreement(ratings, categories=categories)
    ]
    return {
        "alt_test": tests,
        "agreement": agreement,
        "raters": sorted(ratings),
        "judges": judges,
        "human_pool": sorted(humans),
        "kinds": dict(sorted(labels.kinds.items())),
        "scores": "labels" if labelled else "numbers",
    }


def render_validation(result: dict[str, Any], console: Any = None) -> None:
    from rich.table import Table
    from rich.text import Text

    console = console or table_console()
    table = Table(title=Text("Alternative Annotator Test (pass: winning rate ω ≥ 0.5)"))
    for column in ("Judge", "ω", "ρ", "Passed", "ε", "Metric", "Items", "Annotators (p)"):
        table.add_column(
            column, justify="left" if column in ("Judge", "Metric", "Annotators (p)") else "right"
        )
    for judge, test in result["alt_test"].items():
        trials = ", ".join(
            f"{t['annotator']} ({_num(t['p'], '.3g')}{' won' if t['rejected'] else ''})"
            for t in test["trials"]
        )
        table.add_row(
            Text(judge),
            _num(test["winning_rate"], ".2f"),
            _num(test["advantage_probability"], ".3f"),
            "yes" if test["passed"] else "no",
            _num(test["epsilon"], ".2f"),
            Text(test["metric"]),
            str(test["items_used"]),
            Text(trials),
        )
    console.print(table)
    console.print(Text(f"Annotator pool (raters marked human): {', '.join(result['human_pool'])}"))
    pairs = Table(title=Text("Agreement between raters (Pearson, QWK and MAE for numbers only)"))
    for column in ("First", "Second", "Items", "Exact", "Pearson r", "QWK", "MAE"):
        pairs.add_column(column, justify="left" if column in ("First", "Second") else "right")
    for pair in result["agreement"]:
        pairs.add_row(
            Text(str(pair["first"])),
            Text(str(pair["second"])),
            str(pair["items"]),
            _num(pair["exact"]),
            _num(pair["pearson"]),
            _num(pair["qwk"]),
            _num(pair["mae"]),
        )
    console.print(pairs)
