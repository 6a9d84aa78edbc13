"""Running models over task sets: `lexsym run`, its run directories, response cache and limits.

Modules, one concept each: `run` (the session: plan, workers, retries, budgets), `rundir` (run.json,
samples.jsonl, the lock, resume), `cache` (the SQLite response cache), `limits` (rate limiter, backoff,
budgets, the stop signal), `tasksets` (task files, filters, messages), `quick_score` (per-sample scores),
`scores` (predictions and score reports at the end), `progress` (the bar), `fakes` (test aids).
"""

from __future__ import annotations

from lexsym.runner.cache import (
    CacheError,
    ResponseCache,
    cache_key,
    cache_stats,
    clear_cache,
    default_cache_dir,
)
from lexsym.runner.limits import RateLimiter, RetryPolicy
from lexsym.runner.run import resolve_model, run_tasks, run_tasks_async
from lexsym.runner.run_options import RunOptions, RunResult
from lexsym.runner.run_records import RunHeader, SampleRecord
from lexsym.runner.samples_log import read_samples

__all__ = [
    "CacheError",
    "RateLimiter",
    "ResponseCache",
    "RetryPolicy",
    "RunHeader",
    "RunOptions",
    "RunResult",
    "SampleRecord",
    "cache_key",
    "cache_stats",
    "clear_cache",
    "default_cache_dir",
    "read_samples",
    "resolve_model",
    "run_tasks",
    "run_tasks_async",
]
