"""What `lexsym score` reports: per-group aggregates and per-sample rows, as JSON-ready pydantic models.

Aggregates are kept per task, per (task, variant) and per (task, suite): mixing tasks in one number would
average unlike quantities (a MARE of EV claims with one of NA totals), so a suite is reported task by task.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from lexsym._util.jsonl import LineError
from lexsym._version import __version__

TASKS = ("AE", "EC", "EV", "NA", "OE")
#: Exam tasks (`lexsym exam convert`) scored here too: MCQ, by accuracy. OPEN tasks need a judge.
EXAM_TASKS = ("MCQ",)
#: Metrics every sample has (format failures included), in table order.
RATE_METRICS = ("format", "precision", "recall", "f1")
OE_RATES = ("valid", "optimal", "within_tolerance")
#: Metrics defined for some samples only (matched amounts, valid schedules).
PARTIAL_METRICS = ("mare", "median_re", "gap_percent")
#: Partial metrics whose headline across samples is their median (`MetricSummary.median`), not their mean.
MEDIAN_METRICS = ("median_re",)
#: The metrics that apply to each task, in table order: a table or summary shows a metric only for the
#: tasks it applies to (an MCQ-only run has accuracy, not P/R/F1 or MARE).
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "AE": ("format", "precision", "recall", "f1"),
    "EC": ("format", "precision", "recall", "f1"),
    "EV": ("format", "precision", "recall", "f1", "mare", "median_re"),
    "NA": ("format", "precision", "recall", "f1", "mare", "median_re"),
    "OE": ("format", "precision", "recall", "f1", "mare", "median_re", "valid", "optimal"),
    "MCQ": ("format", "accuracy"),
}
#: MARE's label wherever it is shown: the formula is OpenExempt's, +1 in the denominator included.
MARE_LABEL = "MARE (OpenExempt, /(gold+1))"
#: What the aggregated metrics mean; written into every score report (`ScoreReport.metric_definitions`).
METRIC_DEFINITIONS: dict[str, str] = {
    "format": "share of samples whose answer was found and read (a format failure is wrong on every rate)",
    "precision": "mean over samples of the per-sample precision",
    "recall": "mean over samples of the per-sample recall",
    "f1": "mean over samples of the per-sample F1",
    "mare": f"{MARE_LABEL}: mean over samples of the mean of |pred/(gold+1) - 1| over the label-matched "
    "amounts, as OpenExempt defines it; where the gold is 0 this is about the error in dollars, so it can "
    "be very large: read it with median_re",
    "median_re": "median relative error: per sample, the median of the same |pred/(gold+1) - 1| errors; "
    "across samples, their median (MetricSummary.median; mean is the mean of the per-sample medians)",
    "gap_percent": "OE: non-exempt value left above the proven optimum, in percent, over valid schedules",
    "valid": "OE: share of schedules that break no rule",
    "optimal": "OE: share of schedules that are valid and leave exactly the optimum's non-exempt value",
    "within_tolerance": "OE: share of valid schedules whose non-exempt total is within 5 % of the optimum's",
    "accuracy": "MCQ: share of questions answered with the gold option (unreadable answers count wrong)",
}


def applies(metric: str, task: str) -> bool:
    """Whether `metric` is one of `task`'s (TASK_METRICS); unknown tasks have every metric."""
    return metric in TASK_METRICS.get(task, (metric,))


class MetricSummary(BaseModel):
    """A metric's mean over the samples where it is defined, its bootstrap standard error, and that n.
    For a metric aggregated by its median (MEDIAN_METRICS), `median` is the headline and `se` its
    bootstrap standard error."""

    mean: float | None
    se: float | None
    n: int
    median: float | None = Field(
        None, description="The median over samples, for metrics aggregated by their median (median_re)."
    )


class GroupScore(BaseModel):
    """Aggregates of one group of samples: one task, alone or within one variant or suite."""

    task: str
    variant: str | None = None
    suite: str | None = None
    n: int
    metrics: dict[str, MetricSummary]
    violations: dict[str, int] = Field(default_factory=dict, description="OE: answers breaking each rule.")
    beats_optimum: int = Field(0, description="OE: valid answers better than the proven optimum (bugs).")


class SampleRow(BaseModel):
    """One task's outcome: whether a prediction came and parsed, its scores, and OE violations."""

    id: str
    task: str
    variant: str
    suite: str
    case_id: str | None = None
    predicted: bool
    parsed: bool
    error: str | None = None
    scores: dict[str, float | None]
    violations: list[str] = Field(default_factory=list)
    beats_optimum: bool = False


class ScoreReport(BaseModel):
    """Everything `lexsym score` found: counts, problems, aggregates and per-sample rows."""

    lexsym_version: str = __version__
    tasks_path: str
    predictions_path: str
    seed: int
    resamples: int
    tasks: int = Field(description="Usable task records.")
    predictions: int = Field(description="Usable prediction records (unknown ids included).")
    scored: int = Field(
        description="Samples scored: every usable task, missing predictions included, except OE tasks whose "
        "case does not solve."
    )
    missing: list[str] = Field(description="Task ids without a usable prediction (format failures).")
    unknown: list[str] = Field(description="Prediction ids that match no task.")
    errors: list[LineError] = Field(description="Lines that could not be used, and cases not scorable.")
    warnings: list[str] = Field(default_factory=list)
    metric_definitions: dict[str, str] = Field(
        default_factory=lambda: dict(METRIC_DEFINITIONS),
        description=f"What each metric means; mare is {MARE_LABEL}, median_re the median relative error.",
    )
    by_task: list[GroupScore]
    by_variant: list[GroupScore]
    by_suite: list[GroupScore]
    samples: list[SampleRow]
