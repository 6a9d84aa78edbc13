"""The runs of an eval set: one per (task set, model), each in OUT/<task set>/<model folder>/, with the
options `lexsym run` and `lexsym judge` would take for it.

A model's folder is its `name`, or a slug of its id (`litellm:openai/gpt-4o` → `litellm-openai-gpt-4o`,
lower case, so two ids differing only in case never share a folder on a case-insensitive disk). Two
entries whose slugs meet (the same id with other options, or ids that slug alike) get a short digest of
their entry appended, so every folder is unique and the same file always gives the same folders.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.evalset.config import EvalSetConfig, JudgesSection, ModelEntry
from lexsym.judges.settings import JudgeOptions, JudgeSpec
from lexsym.models.base import GenerationParams
from lexsym.models.options import STRING_KEYS
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.run_options import RunOptions

_UNSAFE = re.compile(r"[^a-z0-9._-]+")


def digest(value: Any) -> str:
    """sha256 of a value's canonical JSON."""
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def slug(model_id: str) -> str:
    """A safe folder name for a model id."""
    return _UNSAFE.sub("-", model_id.lower()).strip("-.") or "model"


def model_folders(models: list[ModelEntry]) -> list[str]:
    """Each entry's folder, unique (see the module docstring). The config has already refused a repeated
    entry or name."""
    slugs = [(entry.name or slug(entry.id)).lower() for entry in models]
    folders = []
    for entry, folder in zip(models, slugs, strict=True):
        if entry.name:
            folders.append(entry.name)
        elif slugs.count(folder) > 1:
            folders.append(f"{folder}-{digest(entry.model_dump(mode='json'))[:6]}")
        else:
            folders.append(folder)
    return folders


@dataclass(frozen=True)
class PlannedRun:
    """One run of the eval set: where it goes and how `run_tasks` and `judge_run` are called for it."""

    task_set: str
    folder: str
    model: str
    tasks: Path
    out: Path
    params: GenerationParams
    options: RunOptions
    model_options: dict[str, Any]
    judge: JudgeOptions | None
    spec: dict[str, Any]  # what makes this run what it is, for the record (eval-set.json)

    @property
    def key(self) -> str:
        return f"{self.task_set}/{self.folder}"


def _generation(config: EvalSetConfig, entry: ModelEntry, name: str, default: Any = None) -> Any:
    own = getattr(entry, name)
    if own is not None:
        return own
    shared = getattr(config, name)
    return default if shared is None else shared


def _model_options(entry: ModelEntry) -> dict[str, Any]:
    options = {
        key: str(value) if key in STRING_KEYS and value is not None else value
        for key, value in entry.model_options.items()
    }
    if entry.api_base is not None:
        options["api_base"] = entry.api_base
    return options


def judge_options(section: JudgesSection, config: EvalSetConfig) -> JudgeOptions:
    """The options of `lexsym judge` for the `judges:` section: shared -J options and api_base go to every
    judge that is not a local lexsym: one, a judge's own api_base and options to it alone."""
    specs = []
    for entry in section.models:
        options: dict[str, Any] = {}
        if not entry.id.startswith("lexsym:"):
            options.update(section.judge_options)
            if section.api_base is not None:
                options["api_base"] = section.api_base
        options.update(entry.options)
        if entry.api_base is not None:
            options["api_base"] = entry.api_base
        specs.append(
            JudgeSpec(
                entry.id,
                temperature=section.temperature,
                seed=section.seed,
                max_tokens=section.max_tokens,
                options=tuple(sorted(options.items())),
            )
        )
    return JudgeOptions(
        judges=tuple(specs),
        ensemble=section.ensemble,
        partial=section.partial,
        retries=section.retries,
        concurrency=section.concurrency,
        rpm=section.rpm,
        cache=not config.no_cache,
        cache_dir=config.cache_dir,
        retry=RetryPolicy(base=config.retry_base, cap=config.retry_cap, max_attempts=config.max_attempts),
        retry_errors=section.retry_errors,
        fail_fast=section.fail_fast,
        max_failure_rate=section.max_failure_rate,
    )


def plan_runs(config: EvalSetConfig, *, progress: bool | None = None) -> list[PlannedRun]:
    """Every run of the eval set, task set by task set, in the file's order of models."""
    folders = model_folders(config.models)
    try:
        retry = RetryPolicy(base=config.retry_base, cap=config.retry_cap, max_attempts=config.max_attempts)
    except ValueError as error:
        raise InputError(f"retry: {error}") from None
    judge = judge_options(config.judges, config) if config.judges is not None else None
    if judge is not None:
        judge.check()
    runs = []
    for task_set, tasks in config.tasks.items():
        for entry, folder in zip(config.models, folders, strict=True):
            params = GenerationParams(
                temperature=_generation(config, entry, "temperature", 0.0),
                max_tokens=_generation(config, entry, "max_tokens"),
                seed=_generation(config, entry, "seed"),
                top_p=_generation(config, entry, "top_p"),
            )
            options = RunOptions(
                concurrency=_generation(config, entry, "concurrency"),
                rpm=_generation(config, entry, "rpm", 0.0),
                repeats=_generation(config, entry, "repeats", 1),
                filters=tuple(config.filters),
                where=tuple(config.where),
                sample_ids=tuple(config.sample_ids),
                limit=config.limit,
                fail_fast=config.fail_fast,
                max_failure_rate=config.max_failure_rate,
                cache=not config.no_cache,
                cache_dir=config.cache_dir,
                retry=retry,
                retry_errors=config.retry_errors,
                score=config.score,
                progress=progress,
            )
            options.check()
            model_options = _model_options(entry)
            spec = {
                "model": entry.id,
                "tasks": str(tasks),
                "params": params.key_fields(),
                "model_options": sorted(model_options),  # the keys only: a value may be a credential
                "model_options_digest": digest(model_options),
                "selection": {
                    "filters": config.filters,
                    "where": config.where,
                    "sample_ids": config.sample_ids,
                    "limit": config.limit,
                    "repeats": options.repeats,
                },
                "judges": [s.describe() for s in judge.judges] if judge is not None else None,
            }
            runs.append(
                PlannedRun(
                    task_set=task_set,
                    folder=folder,
                    model=entry.id,
                    tasks=tasks,
                    out=config.out / task_set / folder,
                    params=params,
                    options=options,
                    model_options=model_options,
                    judge=judge,
                    spec=spec,
                )
            )
    return runs
