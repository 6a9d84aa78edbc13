"""Scoring one MCQ output, and accuracy over many: the per-item record and its summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from lexsym.answers.choices import extract_choice
from lexsym.scoring.standard_errors import accuracy, bootstrap_se, cluster_key, clustered_se

# --- evaluation ---------------------------------------------------------------------------------------------


def mcq_task_problem(record: Mapping[str, Any]) -> str | None:
    """Why an MCQ task record cannot be scored, or None: its gold must be one of its option labels."""
    identifier = record.get("id")
    reference = record.get("reference")
    if not isinstance(reference, Mapping):
        return f"task {identifier!r}: an MCQ task needs its reference (labels and options)"
    labels = reference.get("labels")
    if not isinstance(labels, list) or len(labels) < 2 or not all(isinstance(x, str) for x in labels):
        return f"task {identifier!r}: reference.labels must list the option labels"
    if len(set(labels)) != len(labels):
        return f"task {identifier!r}: reference.labels repeat a label"
    options = reference.get("options")
    if options is not None and (not isinstance(options, list) or len(options) != len(labels)):
        return f"task {identifier!r}: reference.options must give one text per label"
    if record.get("gold") not in labels:
        return f"task {identifier!r}: gold {record.get('gold')!r} is not one of the labels {labels}"
    return None


class McqSample(BaseModel):
    """One question's outcome."""

    id: str
    variant: str
    gold: str
    predicted: str | None
    correct: bool
    extracted: bool
    method: str
    error: str | None = None
    n_choices: int
    gold_position: int
    predicted_position: int | None = None
    predicted_original_index: int | None = Field(
        None, description="The predicted option's index in the source's order (through the permutation)."
    )
    cluster: str
    language: str | None = None
    course: str | None = None


class AccuracySummary(BaseModel):
    """Accuracy of a group of questions with its standard errors."""

    n: int
    correct: int
    extraction_failures: int
    accuracy: float | None
    se_bootstrap: float | None = Field(description="SD of bootstrap means (not their variance).")
    se_clustered: float | None = Field(description="Cluster-robust SE; None with fewer than two clusters.")
    clusters: int
    accuracy_extracted: float | None = Field(description="Accuracy among the answers that were extracted.")


def score_sample(record: Mapping[str, Any], output: str | None, cluster_by: str = "course") -> McqSample:
    """Score one model output against one (valid) MCQ task record."""
    reference = record["reference"]
    labels = list(reference["labels"])
    meta = record.get("metadata") if isinstance(record.get("metadata"), Mapping) else {}
    extraction = extract_choice(output, labels, options=reference.get("options"))
    gold = str(record["gold"])
    permutation = meta.get("permutation")
    position = labels.index(extraction.label) if extraction.label is not None else None
    original = None
    if position is not None and isinstance(permutation, list) and len(permutation) == len(labels):
        original = int(permutation[position])
    return McqSample(
        id=str(record["id"]),
        variant=str(record.get("variant") or "MCQ"),
        gold=gold,
        predicted=extraction.label,
        correct=extraction.label == gold,
        extracted=extraction.ok,
        method=extraction.method,
        error=extraction.error if output is not None else "no prediction",
        n_choices=len(labels),
        gold_position=labels.index(gold),
        predicted_position=position,
        predicted_original_index=original,
        cluster=cluster_key(record, cluster_by),
        language=meta.get("language"),
        course=meta.get("course"),
    )


def summarise(samples: Sequence[McqSample], *, seed: int, resamples: int) -> AccuracySummary:
    correct = [float(s.correct) for s in samples]
    extracted = [float(s.correct) for s in samples if s.extracted]
    return AccuracySummary(
        n=len(samples),
        correct=int(sum(correct)),
        extraction_failures=sum(not s.extracted for s in samples),
        accuracy=accuracy(correct),
        se_bootstrap=bootstrap_se(correct, resamples=resamples, seed=seed),
        se_clustered=clustered_se(correct, [s.cluster for s in samples]),
        clusters=len({s.cluster for s in samples}),
        accuracy_extracted=accuracy(extracted),
    )
