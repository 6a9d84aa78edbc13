"""Judged scores: per-sample ensemble grades and their means with standard errors (judged.json).

Reference-judged samples score the ensemble grade (0 to 1); the headline is its mean over the samples that
have one, with a seeded bootstrap SE and a cluster-robust SE by exam. Samples whose grade could not be
formed (a judge's reply never parsed, a call failed) are left out of the headline and counted beside it:
never scored 0.

Rubric-judged samples score the points of the items the ensemble counts as satisfied. Over all samples,
with E the points earned, U the points of items left undecided (a reply that never parsed, a failed call,
items a judge skipped) and T the total points:
    headline  E / (T − U)   the share of the decided points that were earned (undecided items are left
                            out of both sides: neither met nor unmet), with a bootstrap SE of that ratio;
    lower     E / T         undecided items counted unmet: KCL's own figure (its evaluation sums the
                            points of the rubric grades that parsed over the full points);
    upper     (E + U) / T   undecided items counted met.
The headline always lies within the bounds (E/T ≤ E/(T−U) ≤ (E+U)/T, since E + U ≤ T), and all three agree
when every item is decided. (It was once E_c / T_c over the complete samples only, while the bounds were
over all samples: two different sets of samples, so it could fall outside them.) The headline is repeat 0,
as for the run's own scores.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.judges.ensemble import combine
from lexsym.judges.families import JudgeBias, judge_bias, model_family
from lexsym.judges.settings import JUDGE_HEADER, JUDGEMENTS, KINDS, JudgeOptions, JudgeSpec, load_run
from lexsym.runner.rundir import RunDir
from lexsym.runner.samples_log import read_samples
from lexsym.scoring.metrics import bootstrap_se

JUDGED = "judged.json"
RESAMPLES = 1000
SEED = 0


class ReferenceSummary(BaseModel):
    n: int = Field(description="Samples to grade.")
    scored: int = Field(description="Samples with an ensemble grade (the headline's base).")
    failed: int = Field(description="Samples without one: a judge's reply never parsed or its call failed.")
    no_answer: int = Field(0, description="Samples the model did not answer (graded 0, no judge call).")
    mean: float | None = None
    se: float | None = Field(None, description="Bootstrap standard error of the mean (not a variance).")
    se_clustered: float | None = Field(None, description="Cluster-robust SE, clustered by exam.")
    clusters: int = 0


class RubricSummary(BaseModel):
    n: int
    complete: int = Field(description="Samples with every rubric item decided.")
    incomplete: int = Field(description="Samples with items left undecided (their decided items count).")
    items_undecided: int = 0
    no_answer: int = 0
    earned: float = Field(0.0, description="Points earned, all samples (E).")
    total: float = Field(0.0, description="Total points, all samples (T).")
    undecided_points: float = Field(0.0, description="Points of the items left undecided (U).")
    percent: float | None = Field(
        None, description="The headline: earned points as a percentage of the decided points, E / (T − U)."
    )
    se: float | None = Field(None, description="Bootstrap SE of the percentage, in percentage points.")
    lower_percent: float | None = Field(
        None, description="E / T: undecided items counted unmet; KCL's own figure."
    )
    upper_percent: float | None = Field(None, description="(E + U) / T: undecided items counted met.")


class JudgedReport(BaseModel):
    ensemble: str
    partial: bool
    judges: list[str]
    headline_repeat: int = 0
    reference: ReferenceSummary | None = None
    reference_by_judge: dict[str, ReferenceSummary] = Field(default_factory=dict)
    reference_by_variant: dict[str, ReferenceSummary] = Field(default_factory=dict)
    rubric: RubricSummary | None = None
    rubric_by_judge: dict[str, RubricSummary] = Field(default_factory=dict)
    rubric_by_variant: dict[str, RubricSummary] = Field(default_factory=dict)
    repeats: dict[str, float | None] = Field(default_factory=dict, description="Headline mean per repeat.")
    cost_totals: dict[str, Any] = Field(default_factory=dict, description="Judge cost, apart from the run's.")
    answering_cost: float | None = None
    answering_model: str | None = Field(None, description="The run's model (run.json `model`).")
    answering_family: str | None = None
    judge_bias: dict[str, JudgeBias] = Field(
        default_factory=dict,
        description="Per judge: its family, whether it is of the answering model's, or that model itself.",
    )
    samples: list[dict[str, Any]] = Field(default_factory=list)


def _ratio_se(earned: list[float], totals: list[float], *, resamples: int, seed: int) -> float | None:
    """Bootstrap SE of sum(earned) / sum(totals), resampling samples (seeded)."""
    n = len(earned)
    if n == 0 or resamples < 2:
        return None
    if n == 1:
        return 0.0
    e, t = np.asarray(earned, dtype=float), np.asarray(totals, dtype=float)
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n, size=(resamples, n))
    sums = t[indices].sum(axis=1)
    ratios = np.where(sums > 0, e[indices].sum(axis=1) / np.where(sums > 0, sums, 1), np.nan)
    ratios = ratios[np.isfinite(ratios)]
    return float(ratios.std(ddof=1)) if len(ratios) > 1 else None


def _reference_summary(rows: list[dict[str, Any]], *, resamples: int, seed: int) -> ReferenceSummary:
    from lexsym.scoring.standard_errors import clustered_se

    graded = [row for row in rows if row["score"] is not None]
    values = [row["score"] for row in graded]
    clusters = [row["cluster"] for row in graded]
    return ReferenceSummary(
        n=len(rows),
        scored=len(graded),
        failed=len(rows) - len(graded),
        no_answer=sum(row["status"] in ("no_answer", "empty_answer") for row in rows),
        mean=float(np.mean(values)) if values else None,
        se=bootstrap_se(values, resamples=resamples, seed=seed),
        se_clustered=clustered_se(values, clusters) if values else None,
        clusters=len(set(clusters)),
    )


def _rubric_summary(rows: list[dict[str, Any]], *, resamples: int, seed: int) -> RubricSummary:
    """The headline E / (T − U) and its bounds E / T (KCL's) and (E + U) / T (see the module docstring)."""
    earned = [row["earned"] for row in rows]
    decided = [row["total"] - row["undecided_points"] for row in rows]
    e, t = sum(earned), sum(row["total"] for row in rows)
    u = sum(row["undecided_points"] for row in rows)
    se = _ratio_se(earned, decided, resamples=resamples, seed=seed)
    some_decided = t - u > 1e-9 * max(1.0, t)  # all undecided leaves float noise, not a base
    return RubricSummary(
        n=len(rows),
        complete=sum(row["complete"] for row in rows),
        incomplete=sum(not row["complete"] for row in rows),
        items_undecided=sum(row["undecided_items"] for row in rows),
        no_answer=sum(row["status"] in ("no_answer", "empty_answer") for row in rows),
        earned=e,
        total=t,
        undecided_points=u,
        percent=100 * e / (t - u) if some_decided else None,
        se=100 * se if se is not None and some_decided else None,
        lower_percent=100 * e / t if t else None,
        upper_percent=100 * (e + u) / t if t else None,
    )


def _item_values(line: dict[str, Any] | None, ids: list[int]) -> list[float | None]:
    if line is None or not line.get("items"):
        return [None] * len(ids)
    by_id = {item["id"]: item.get("satisfied") for item in line["items"]}
    return [None if by_id.get(i) is None else float(by_id[i]) for i in ids]


def sample_rows(
    lines: Iterable[dict[str, Any]],
    judges: list[str],
    method: str,
    partial: bool,
    records: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """One row per judged sample: each judge's grade and the ensemble's."""
    from lexsym.scoring.standard_errors import cluster_key

    by_sample: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for line in lines:
        by_sample[line["sample_id"]][line["judge"]] = line
    rows = []
    for sample_id, per_judge in by_sample.items():
        first = next(iter(per_judge.values()))
        record = records.get(first["task_id"], {})
        row: dict[str, Any] = {
            "sample_id": sample_id,
            "task_id": first["task_id"],
            "repeat": first["repeat"],
            "variant": first.get("variant") or "OPEN",
            "kind": first["kind"],
            "cluster": cluster_key(record, "exam"),
            "judges": {
                judge: (per_judge[judge]["score"] if judge in per_judge else None) for judge in judges
            },
            "statuses": {judge: per_judge[judge]["status"] for judge in judges if judge in per_judge},
        }
        statuses = set(row["statuses"].values())
        if statuses & {"no_answer", "empty_answer"}:
            row["status"] = "no_answer" if "no_answer" in statuses else "empty_answer"
        elif len(row["statuses"]) < len(judges):
            row["status"] = "pending"
        else:
            row["status"] = "ok" if statuses == {"ok"} else "failed"
        if first["kind"] == "reference":
            scores = [row["judges"][judge] for judge in judges]
            row["score"] = combine(scores, method, partial=partial)
        else:
            items = first.get("items") or []
            ids = [item["id"] for item in items]
            points = [float(item["points"]) for item in items]
            values = [_item_values(per_judge.get(judge), ids) for judge in judges]
            combined = [combine([v[k] for v in values], method, partial=partial) for k in range(len(ids))]
            row["earned"] = sum(p * c for p, c in zip(points, combined, strict=True) if c is not None)
            row["undecided_points"] = sum(p for p, c in zip(points, combined, strict=True) if c is None)
            row["undecided_items"] = sum(c is None for c in combined)
            row["total"] = sum(points)
            row["complete"] = row["undecided_items"] == 0
            row["score"] = row["earned"] / row["total"] if row["complete"] and row["total"] else None
        rows.append(row)
    rows.sort(key=lambda row: (row["repeat"], row["sample_id"]))
    return rows


def build_report(
    lines: list[dict[str, Any]],
    *,
    judges: list[str],
    method: str,
    partial: bool,
    records: dict[str, dict[str, Any]],
    resamples: int = RESAMPLES,
    seed: int = SEED,
    answering_model: str | None = None,
) -> JudgedReport:
    rows = sample_rows(lines, judges, method, partial, records)
    report = JudgedReport(ensemble=method, partial=partial, judges=judges, samples=rows)
    if answering_model:
        report.answering_model = answering_model
        report.answering_family = model_family(answering_model)
        report.judge_bias = judge_bias(judges, answering_model)
    headline = [row for row in rows if row["repeat"] == 0 and row["status"] != "pending"]
    reference = [row for row in headline if row["kind"] == "reference"]
    rubric = [row for row in headline if row["kind"] == "rubric"]
    if reference:
        report.reference = _reference_summary(reference, resamples=resamples, seed=seed)
        for variant, group in _grouped(reference, "variant").items():
            report.reference_by_variant[variant] = _reference_summary(group, resamples=resamples, seed=seed)
        for judge in judges:
            alone = [{**row, "score": row["judges"].get(judge)} for row in reference]
            report.reference_by_judge[judge] = _reference_summary(alone, resamples=resamples, seed=seed)
    if rubric:
        report.rubric = _rubric_summary(rubric, resamples=resamples, seed=seed)
        for variant, group in _grouped(rubric, "variant").items():
            report.rubric_by_variant[variant] = _rubric_summary(group, resamples=resamples, seed=seed)
        rubric_lines = [line for line in lines if line["kind"] == "rubric" and line["repeat"] == 0]
        for judge in judges:
            alone = sample_rows(
                [line for line in rubric_lines if line["judge"] == judge], [judge], method, partial, records
            )
            report.rubric_by_judge[judge] = _rubric_summary(alone, resamples=resamples, seed=seed)
    for repeat, group in sorted(_grouped(rows, "repeat").items()):
        scores = [row["score"] for row in group if row["score"] is not None]
        report.repeats[str(repeat)] = float(np.mean(scores)) if scores else None
    costs: dict[str, dict[str, float]] = {}
    for line in lines:
        entry = costs.setdefault(
            line["judge"],
            {"cost": 0.0, "calls": 0, "cached": 0, "tokens_in": 0, "tokens_out": 0, "judgements": 0},
        )
        entry["judgements"] += 1
        entry["cost"] += float(line.get("cost") or 0.0)
        for attempt in line.get("attempts") or []:
            entry["calls"] += not attempt.get("cached")
            entry["cached"] += bool(attempt.get("cached"))
            entry["tokens_in"] += int(attempt.get("tokens_in") or 0)
            entry["tokens_out"] += int(attempt.get("tokens_out") or 0)
    report.cost_totals = {"by_judge": costs, "cost": sum(entry["cost"] for entry in costs.values())}
    return report


def _grouped(rows: list[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
    return dict(groups)


def score_judgements(
    run_dir: Path,
    options: JudgeOptions,
    records: dict[str, dict[str, Any]],
    samples: list[dict[str, Any]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> JudgedReport:
    """The report over the judgements of the judges in `options`."""
    digests = {template.digest for template in KINDS.values()}
    wanted = {spec.model: spec.fingerprint for spec in options.judges}
    # Judgement lines carry task_id and repeat like sample lines, so the same tolerant reader serves.
    lines = [
        line
        for line in read_samples(run_dir / JUDGEMENTS)
        if wanted.get(line.get("judge")) == line.get("judge_fingerprint")
        and line.get("template_digest") in digests
    ]
    run_header = RunDir(run_dir).read_header()
    report = build_report(
        lines,
        judges=[spec.model for spec in options.judges],
        method=options.ensemble,
        partial=options.partial,
        records=records,
        resamples=resamples,
        seed=seed,
        answering_model=run_header.model if run_header is not None else None,
    )
    report.answering_cost = float(sum(float(sample.get("cost") or 0.0) for sample in samples))
    return report


def write_judged(run_dir: Path, report: JudgedReport) -> None:
    write_atomic(run_dir / JUDGED, report.model_dump_json(indent=2) + "\n")


def read_judged(run_dir: Path) -> JudgedReport | None:
    path = Path(run_dir) / JUDGED
    if not path.exists():
        return None
    return JudgedReport.model_validate_json(path.read_text(encoding="utf-8"))


def rescore_run(
    run_dir: str | Path, *, ensemble: str | None = None, resamples: int = RESAMPLES, seed: int = SEED
) -> JudgedReport | None:
    """The judged report of a run recomputed from judgements.jsonl and judge.json (another ensemble rule,
    seed or number of resamples needs no judge call); None when the run was never judged."""
    run_dir = Path(run_dir)
    path = run_dir / JUDGE_HEADER
    if not path.exists():
        return None
    try:
        header = json.loads(path.read_text(encoding="utf-8"))
        specs = tuple(
            JudgeSpec(
                judge["model"],
                temperature=judge["params"].get("temperature", 0.0),
                seed=judge["params"].get("seed"),
                max_tokens=judge["params"].get("max_tokens"),
                options=tuple(sorted((judge.get("options") or {}).items())),
            )
            for judge in header["judges"]
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise InputError(f"{path}: unreadable judge header ({error})") from None
    options = JudgeOptions(
        judges=specs, ensemble=ensemble or header.get("ensemble", "min"), partial=bool(header.get("partial"))
    )
    options.check()
    _, samples, records = load_run(run_dir)
    return score_judgements(run_dir, options, records, samples, resamples=resamples, seed=seed)
