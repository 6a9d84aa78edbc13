"""How a run is made, apart from the model, its parameters and the task set; and what a session did."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.run_records import RunHeader

DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class RunOptions:
    """How to run, apart from the model, its generation parameters and the task set.

    `concurrency` None is the backend's choice: 8 samples in flight for an API, the whole queue for a
    backend that batches it itself (vLLM's offline engine). `filters`, `where`, `sample_ids` and `limit`
    choose the tasks (`lexsym.runner.selection`). `fail_fast` stops the session once that many samples
    have failed for good; `max_failure_rate` is the share of failed samples above which the run counts as
    failed (None: only a run in which every sample failed) — see `lexsym.runner.failures`.
    `time_budget` counts seconds from the start of this session's sampling; `cost_budget` is dollars spent
    in this session, as the backend reports them. `cache_dir` None is the default cache directory.
    `retry_errors` retries recorded permanent failures too (transient ones always are). `progress` None shows
    the bar when stderr is a terminal. `score_workers` is passed to `lexsym.scoring.score`. `seed` seeds the
    backoff jitter (tests).
    """

    concurrency: int | None = None
    rpm: float = 0.0
    repeats: int = 1
    filters: tuple[str, ...] = ()
    where: tuple[str, ...] = ()
    sample_ids: tuple[str, ...] = ()
    limit: int | None = None
    fail_fast: int | None = None
    max_failure_rate: float | None = None
    time_budget: float | None = None
    cost_budget: float | None = None
    cache: bool = True
    cache_dir: Path | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    retry_errors: bool = False
    score: bool = True
    score_workers: int = 0
    progress: bool | None = None
    seed: int | None = None

    def workers(self, model: object, queued: int) -> int:
        """Samples in flight at once (see `concurrency`)."""
        if self.concurrency is not None:
            return self.concurrency
        return max(1, queued) if getattr(model, "batches_whole_queue", False) else DEFAULT_CONCURRENCY

    def check(self) -> None:
        """InputError (exit 2) for a value that makes no sense."""
        if self.concurrency is not None and self.concurrency < 1:
            raise InputError(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.limit is not None and self.limit < 1:
            raise InputError(f"--limit must be at least 1, not {self.limit}")
        if self.fail_fast is not None and self.fail_fast < 1:
            raise InputError(f"--fail-fast must be at least 1, not {self.fail_fast}")
        if self.max_failure_rate is not None and not 0 <= self.max_failure_rate < 1:
            raise InputError(f"--max-failure-rate must be in [0, 1), not {self.max_failure_rate:g}")
        if self.repeats < 1:
            raise InputError(f"--repeats must be at least 1, not {self.repeats}")
        if self.rpm < 0:
            raise InputError(f"--rpm must be 0 (no limit) or more, not {self.rpm:g}")
        for name, value in (("--time-budget", self.time_budget), ("--cost-budget", self.cost_budget)):
            if value is not None and not value > 0:
                raise InputError(f"{name} must be more than 0, not {value:g}")


@dataclass
class RunResult:
    """What a session did: the header as written, the score reports by repeat (none when not scored), the
    samples this session recorded, and the runner's own time per sample (seconds, model calls and waits
    excluded), which the overhead benchmark reads."""

    run_dir: Path
    header: RunHeader
    reports: dict[int, Any]
    recorded: int
    overheads: list[float]

    @property
    def report(self) -> Any:
        """The headline score report (repeat 0), or None."""
        return self.reports.get(self.header.scores["headline_repeat"]) if self.header.scores else None

    @property
    def stop_reason(self) -> str | None:
        return self.header.stop_reason
