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
PARTIAL_METRICS = ("mare", "gap_percent")


class MetricSummary(BaseModel):
    """A metric's mean over the samples where it is defined, its bootstrap standard error, and that n."""

    mean: float | None
    se: float | None
    n: int


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
    by_task: list[GroupScore]
    by_variant: list[GroupScore]
    by_suite: list[GroupScore]
    samples: list[SampleRow]
