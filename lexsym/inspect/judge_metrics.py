"""The judged headlines `lexsym judge` writes in judged.json, as inspect_ai metrics.

- reference judge: the mean grade over the samples that have one, its seeded bootstrap SE and its
  cluster-robust SE by exam (samples whose grade could not be formed are unscored in inspect, and left out
  of the mean in lexsym alike: never a zero);
- rubric judge: E / (T − U), the share of the decided points earned, with its bootstrap SE, and the
  bounds E / T (KCL's own figure) and (E + U) / T, all in percent as lexsym reports them.

Each is computed by `lexsym.judges.scores.build_report`, fed one line per sample from a single stand-in
judge whose grade is the sample's ensemble grade (its score value). The ensemble of several judges was
formed per sample by the scorer, with lexsym's `combine`; handing the report the combined grade keeps the
metric right under inspect's epoch reducers, which average values, not judgement lines.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

from lexsym.judges.scores import RESAMPLES, SEED, build_report

STAND_IN = "ensemble"


def _records(scores: list[SampleScore]) -> dict[str, dict[str, Any]]:
    """What the report reads of each task: its course and year (the exam it is clustered by)."""
    found = {}
    for sample_score in scores:
        meta = sample_score.score.metadata or {}
        found[str(sample_score.sample_id)] = {
            "id": str(sample_score.sample_id),
            "metadata": {"course": meta.get("course"), "year": meta.get("year")},
        }
    return found


def _line(sample_score: SampleScore, kind: str, **body: Any) -> dict[str, Any]:
    sample_id = str(sample_score.sample_id)
    meta = sample_score.score.metadata or {}
    return {
        "sample_id": sample_id,
        "task_id": sample_id,
        "repeat": 0,
        "variant": meta.get("variant"),
        "kind": kind,
        "judge": STAND_IN,
        "status": "ok",
        **body,
    }


def reference_report(scores: list[SampleScore], *, resamples: int = RESAMPLES, seed: int = SEED) -> Any:
    lines = [_line(s, "reference", score=float(s.score.as_float())) for s in scores]
    return build_report(
        lines,
        judges=[STAND_IN],
        method="min",
        partial=False,
        records=_records(scores),
        resamples=resamples,
        seed=seed,
    ).reference


def rubric_report(scores: list[SampleScore], *, resamples: int = RESAMPLES, seed: int = SEED) -> Any:
    """Each sample's earned, unmet and undecided points as three items of the stand-in judge, so the
    report's sums E, T and U are the samples' own."""
    lines = []
    for sample_score in scores:
        value = sample_score.score.value if isinstance(sample_score.score.value, dict) else {}
        earned = float(value.get("earned") or 0.0)
        undecided = float(value.get("undecided_points") or 0.0)
        unmet = float(value.get("total") or 0.0) - earned - undecided
        items = [
            {"id": 1, "points": earned, "satisfied": True},
            {"id": 2, "points": unmet, "satisfied": False},
            {"id": 3, "points": undecided, "satisfied": None},
        ]
        lines.append(_line(sample_score, "rubric", score=value.get("score"), items=items))
    return build_report(
        lines,
        judges=[STAND_IN],
        method="min",
        partial=False,
        records=_records(scores),
        resamples=resamples,
        seed=seed,
    ).rubric


def _present(values: dict[str, float | None]) -> dict[str, float]:
    return {name: value for name, value in values.items() if value is not None}


@metric
def reference_summary(resamples: int = RESAMPLES, seed: int = SEED) -> Metric:
    """Mean reference grade, bootstrap SE and clustered SE (judged.json's `reference`)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report = reference_report(scores, resamples=resamples, seed=seed)
        if report is None:
            return {}
        return _present({"mean": report.mean, "se": report.se, "se_clustered": report.se_clustered})

    return compute


@metric
def rubric_summary(resamples: int = RESAMPLES, seed: int = SEED) -> Metric:
    """Rubric points earned in percent of the decided ones, its SE and bounds (judged.json's `rubric`)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report = rubric_report(scores, resamples=resamples, seed=seed)
        if report is None:
            return {}
        return _present(
            {
                "percent": report.percent,
                "se": report.se,
                "lower_percent": report.lower_percent,
                "upper_percent": report.upper_percent,
            }
        )

    return compute
