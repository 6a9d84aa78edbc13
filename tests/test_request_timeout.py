"""A model that never answers cannot stall a run (issue 19, item 6): `--timeout` holds every request to its
seconds whatever the backend does, retries stay bounded, and the run ends with each sample failed and the
reason given. (Before, a server that accepted and never answered stalled each attempt for litellm's 600 s.)"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from tests.task_sets import ae_task_set


class SilentModel:
    """Accepts every request and never answers."""

    id = "test:silent"

    async def generate(self, messages: Any, params: Any, *, task: dict[str, Any] | None = None) -> Any:
        await asyncio.sleep(3600)


def test_a_model_that_never_answers_fails_each_sample_within_the_deadline(tmp_path):
    tasks = ae_task_set(tmp_path / "tasks", 3, seed=2)
    retry = RetryPolicy(base=0.01, cap=0.05, max_attempts=2, timeout=0.3)
    options = RunOptions(concurrency=3, retry=retry, progress=False, seed=1, score=False)
    started = time.perf_counter()
    result = run_tasks(SilentModel(), tasks, tmp_path / "run", options=options)
    elapsed = time.perf_counter() - started
    assert elapsed < 10, elapsed  # three samples in parallel, each within 2 x 0.3 s plus pauses
    samples = list(read_samples(tmp_path / "run" / "samples.jsonl"))
    assert len(samples) == 3
    assert all("no answer within 0.3 s" in (s.get("error") or "") for s in samples), samples
    assert all(s.get("attempts") == 2 for s in samples)
    assert result.header.failed and "every sample failed" in result.header.failed  # exit 1 from the CLI


def test_the_deadline_is_the_attempts_and_pauses_at_their_longest():
    assert RetryPolicy(timeout=10, max_attempts=3, cap=5).deadline() == 10 * 3 + 5 * 2
    assert RetryPolicy().deadline() is None
