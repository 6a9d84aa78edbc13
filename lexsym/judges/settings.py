"""What pins a judging session: the judges and their generation settings, the session's options, the files it
keeps in the run directory, and the checked run it grades.

Scoring reads these too (`lexsym judge --rescore` recomputes a report from judge.json), so they sit below
both the session and the scores."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.judges.prompts import REFERENCE_JUDGE, RUBRIC_JUDGE, JudgeTemplate
from lexsym.models.base import GenerationParams
from lexsym.models.redaction import redact_options
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.rundir import HEADER, SAMPLES, RunDir
from lexsym.runner.samples_log import read_samples
from lexsym.runner.tasksets import load_task_set

JUDGEMENTS = "judgements.jsonl"


JUDGEMENTS_DROPPED = "judgements.dropped"


JUDGE_HEADER = "judge.json"


JUDGE_LOCK = "judge.lock"


KINDS = {"reference": REFERENCE_JUDGE, "rubric": RUBRIC_JUDGE}


# Backend options that do not change a judge's grades: left out of its fingerprint.
_NOT_OUTPUT = frozenset({"timeout", "api_key_env", "num_retries"})


@dataclass(frozen=True)
class JudgeSpec:
    """One judge, pinned: the model, the settings that change its grades, and its backend options
    (`api_base`, `-J key=value`) as sorted pairs."""

    model: str
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = None
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed)

    @property
    def model_options(self) -> dict[str, Any]:
        return dict(self.options)

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"model": self.model, "params": self.params.key_fields()}
        if self.options:
            described["options"] = redact_options(self.model_options)
        return described

    @property
    def fingerprint(self) -> str:
        """The judge's identity in a judgement's key: a judge with no options keeps the fingerprint it
        always had; an endpoint or an output-changing option makes it another judge."""
        identity: dict[str, Any] = {"model": self.model, "params": self.params.key_fields()}
        changing = {k: v for k, v in self.options if k not in _NOT_OUTPUT}
        if changing:
            identity["options"] = changing
        text = json.dumps(identity, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class JudgeOptions:
    judges: tuple[JudgeSpec, ...]
    ensemble: str = "min"
    partial: bool = False
    retries: int = 2  # re-asks after an unparseable reply
    concurrency: int = 8
    rpm: float = 0.0  # per judge model
    cache: bool = True
    cache_dir: Path | None = None
    cost_budget: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    retry_errors: bool = False
    fail_fast: int | None = None  # stop after this many failed judgements
    max_failure_rate: float | None = None  # above this share of failed judgements, the session failed
    seed: int | None = None  # backoff jitter (tests)

    def check(self) -> None:
        from lexsym.judges.ensemble import METHODS

        if not self.judges:
            raise InputError("give at least one --judge MODEL")
        models = [spec.model for spec in self.judges]
        if len(set(models)) != len(models):
            raise InputError("the same --judge model is given twice")
        if self.ensemble not in METHODS:
            raise InputError(f"--ensemble must be one of {', '.join(METHODS)}, not {self.ensemble!r}")
        if self.concurrency < 1:
            raise InputError(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.retries < 0:
            raise InputError(f"--retries must be 0 or more, not {self.retries}")
        if self.rpm < 0:
            raise InputError(f"--rpm must be 0 (no limit) or more, not {self.rpm:g}")
        if self.cost_budget is not None and not self.cost_budget > 0:
            raise InputError(f"--cost-budget must be more than 0, not {self.cost_budget:g}")
        if self.fail_fast is not None and self.fail_fast < 1:
            raise InputError(f"--fail-fast must be at least 1, not {self.fail_fast}")
        if self.max_failure_rate is not None and not 0 <= self.max_failure_rate < 1:
            raise InputError(f"--max-failure-rate must be in [0, 1), not {self.max_failure_rate:g}")


def judge_kind(record: dict[str, Any]) -> str | None:
    """Which judge grades a task: `reference` (an answer to compare with), `rubric`, or None (not judged:
    MCQ and the generated tasks are scored exactly)."""
    gold = record.get("gold")
    if record.get("task") != "OPEN" or not isinstance(gold, dict):
        return None
    if isinstance(gold.get("rubrics"), list):
        return "rubric"
    if isinstance(gold.get("reference"), str):
        return "reference"
    return None


def judgement_key(sample_id: str, spec: JudgeSpec, template: JudgeTemplate) -> str:
    return f"{sample_id}|{spec.model}|{spec.fingerprint}|{template.id}@{template.digest}"


def load_run(run_dir: Path) -> tuple[Any, list[dict[str, Any]], dict[str, dict[str, Any]]]:
    header = RunDir(run_dir).read_header()
    if header is None:
        raise InputError(f"{run_dir}: not a run directory (no {HEADER}); run `lexsym run` first")
    task_set = load_task_set(header.tasks.path)
    if task_set.sha256 != header.tasks.tasks_sha256:
        raise InputError(
            f"{task_set.path}: changed since the run was made (its sha256 differs from {HEADER}); "
            "judging would grade the answers against other questions"
        )
    samples = list(read_samples(run_dir / SAMPLES))
    records = {record["id"]: record for record in task_set.records}
    return header, samples, records


def judge_header(options: JudgeOptions, run_header: Any, previous: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "judge_format": 1,
        "lexsym_version": __version__,
        "run_model": run_header.model,
        "tasks_sha256": run_header.tasks.tasks_sha256,
        "judges": [spec.describe() for spec in options.judges],
        "templates": {kind: {"id": t.id, "digest": t.digest} for kind, t in KINDS.items()},
        "ensemble": options.ensemble,
        "partial": options.partial,
        "retries": options.retries,
        "concurrency": options.concurrency,
        "rpm": options.rpm,
        "cost_budget": options.cost_budget,
        "sessions": (previous or {}).get("sessions", []),
    }
