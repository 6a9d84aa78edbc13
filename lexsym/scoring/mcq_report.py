"""The MCQ evaluation for people (rich tables) and machines (JSON)."""

from __future__ import annotations

import json
from typing import Any

from lexsym.scoring.mcq_evaluation import McqEvaluation


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def render_evaluation(report: McqEvaluation, console: Any) -> None:
    """Print an McqEvaluation for people: accuracy tables, then position bias per k."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=Text(f"MCQ accuracy of {report.predictions_path}"), title_justify="left", box=box.SIMPLE_HEAD
    )
    for header in (
        "Group",
        "n",
        "acc%",
        "± SE boot",
        f"± SE by {report.cluster_by}",
        "clusters",
        "no answer",
    ):
        table.add_column(header, justify="left" if header == "Group" else "right", no_wrap=True)
    rows = [("all", report.overall)]
    rows += [(f"k={k}", s) for k, s in report.by_n_choices.items()]
    rows += [(f"lang {k}", s) for k, s in report.by_language.items()]
    rows += [(f"variant {k}", s) for k, s in report.by_variant.items()]
    for name, s in rows:
        table.add_row(
            Text(name),
            str(s.n),
            _pct(s.accuracy),
            _pct(s.se_bootstrap),
            _pct(s.se_clustered),
            str(s.clusters),
            str(s.extraction_failures),
        )
    console.print(table)
    for bias in report.position_bias:
        if bias.p_value is None:
            continue
        rates = ", ".join(f"{c.label} {_pct(c.predicted_rate)}%" for c in bias.positions)
        note = " (expected counts under 5: rough)" if (bias.min_expected or 0) < 5 else ""
        console.print(
            f"k={bias.k}: predicted positions {rates}; chi2={bias.chi2:.2f} (dof {bias.dof}), "
            f"p={bias.p_value:.3g}{note}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    methods = ", ".join(f"{name} {count}" for name, count in report.extraction_methods.items())
    console.print(
        f"{report.overall.n} MCQ tasks ({report.skipped} other records skipped); "
        f"answers found by: {methods}; "
        f"{len(report.missing)} without a prediction, {len(report.unknown)} predictions for unknown ids, "
        f"{len(report.errors)} unusable lines",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for error in report.errors[:5]:
        console.print(f"  {error}", markup=False, highlight=False, soft_wrap=True)


def evaluation_json(report: McqEvaluation) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)
