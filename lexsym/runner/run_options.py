"""How a run is made, apart from the model, its parameters and the task set; and what a session did."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.run_records import RunHeader


@dataclass(frozen=True)
class RunOptions:
    """How to run, apart from the model, its generation parameters and the task set.

    `time_budget` counts seconds from the start of this session's sampling; `cost_budget` is dollars spent
    in this session, as the backend reports them. `cache_dir` None is the default cache directory.
    `retry_errors` retries recorded permanent failures too (transient ones always are). `progress` None shows
    the bar when stderr is a terminal. `score_workers` is passed to `lexsym.scoring.score`. `seed` seeds the
    backoff jitter (tests).
    """

    concurrency: int = 8
    rpm: float = 0.0
    repeats: int = 1
    filters: tuple[str, ...] = ()
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

    def check(self) -> None:
        """InputError (exit 2) for a value that makes no sense."""
        if self.concurrency < 1:
            raise InputError(f"--concurrency must be at least 1, not {self.concurrency}")
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
