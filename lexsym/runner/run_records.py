"""The records of a run directory as pydantic models: the header (run.json), its parts, one sample line."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

RUN_FORMAT = 1


class PromptRef(BaseModel):
    """Which prompt was sent, without its text (the task file holds it): the task id and the sha256 of the
    messages as sent (`lexsym.runner.tasksets.prompt_sha256`)."""

    task_id: str
    sha256: str


class SampleRecord(BaseModel):
    """One line of samples.jsonl: one finished sample (answered, or failed for good)."""

    id: str = Field(description='The sample id: the task id, plus "#r<repeat>" when the run has repeats.')
    task_id: str
    repeat: int
    task: str
    variant: str | None = None
    prompt: PromptRef
    completion: str | None = Field(None, description="The completion text exactly as the model returned it.")
    reasoning: str | None = Field(
        None, description="Reasoning the backend returned apart, or the <think> blocks of the text."
    )
    answer: str | None = Field(None, description="The span parse_answer read (after FINAL ANSWER).")
    parsed: bool | None = Field(
        False, description="Whether parse_answer read an answer; None for task types it does not know."
    )
    parse_error: str | None = None
    scores: dict[str, float | bool | None] = Field(
        default_factory=dict,
        description="Cheap per-sample scores (see lexsym.runner.quick_score); scores.json has the full ones.",
    )
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = Field(0.0, description="Dollars spent on this sample in this run (0 for a cache hit).")
    latency: float = Field(0.0, description="Seconds of the successful call (the cache lookup for a hit).")
    attempts: int = Field(0, description="Model calls made (0 for a cache hit).")
    cached: bool = False
    error: str | None = Field(None, description="Why the sample failed (no completion), one line.")
    error_kind: Literal["permanent", "transient"] | None = Field(
        None, description="transient: retries ran out; such samples are retried when the run is resumed."
    )
    finish_reason: str | None = None
    model: str | None = Field(None, description="The model name the backend reported, if any.")
    finished_at: float = Field(0.0, description="Unix time the sample finished.")


class TaskSetRef(BaseModel):
    path: str
    tasks_sha256: str = Field(description="sha256 of the task file's bytes: the run's identity.")
    manifest_tasks_sha256: str | None = Field(None, description="What the manifest beside it says.")
    manifest_inputs: dict[str, str] | None = None
    tasks: int
    selected: int = Field(description="Tasks chosen by the filters of the latest session.")


class CacheRef(BaseModel):
    enabled: bool
    path: str | None = None
    note: str | None = None


class Totals(BaseModel):
    """Counts over every line of samples.jsonl (all sessions), and the selection still to do."""

    planned: int = Field(0, description="Samples the latest session's selection asks for (tasks x repeats).")
    recorded: int = Field(0, description="Lines in samples.jsonl.")
    remaining: int = Field(0, description="Planned samples not yet recorded.")
    ok: int = 0
    failed: int = 0
    cached: int = 0
    parse_failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_seconds: float = 0.0


class Session(BaseModel):
    """One invocation of the run command on this directory."""

    started_at: str
    ended_at: str | None = None
    pid: int
    recorded: int = 0
    stop_reason: str | None = None
    wall_seconds: float | None = None


class RunHeader(BaseModel):
    """run.json."""

    run_format: int = RUN_FORMAT
    lexsym_version: str
    git_revision: str | None = None
    git_dirty: bool | None = None
    python: str
    inputs: dict[str, str] = Field(description="Digests of statutes/encodings, templates, catalogue.")
    model: str
    model_options: dict[str, Any] = Field(default_factory=dict)
    model_settings: dict[str, Any] = Field(
        default_factory=dict, description="The backend's set-up as built: endpoint, engine options (no key)."
    )
    params: dict[str, Any] = Field(description="GenerationParams.key_fields(): part of the identity.")
    params_sent: dict[str, Any] | None = Field(
        None, description="The generation settings actually sent to the backend."
    )
    params_dropped: dict[str, str] = Field(
        default_factory=dict,
        description="Settings asked for but not sent, and why (a seed a provider lacks).",
    )
    tasks: TaskSetRef
    filters: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list)
    sample_ids: list[str] = Field(default_factory=list)
    limit: int | None = None
    fail_fast: int | None = None
    max_failure_rate: float | None = None
    repeats: int = 1
    concurrency: int
    rpm: float = 0.0
    time_budget: float | None = None
    cost_budget: float | None = None
    retry: dict[str, Any] = Field(default_factory=dict)
    cache: CacheRef
    started_at: str
    ended_at: str | None = None
    status: Literal["running", "complete", "stopped"] = "running"
    stop_reason: str | None = None
    totals: Totals = Field(default_factory=Totals)
    failed: str | None = Field(None, description="Why the run counts as failed (exit 1), if it does.")
    failure_reasons: dict[str, int] = Field(
        default_factory=dict, description="The most frequent error messages of failed samples, with counts."
    )
    sessions: list[Session] = Field(default_factory=list)
    scores: dict[str, Any] | None = None
