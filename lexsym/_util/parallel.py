"""Mapping a function over jobs in worker processes, results in job order: in this process, a local fork
pool, or a Ray cluster.

Every place that spreads work (solving a batch, generating, checking OE answers, importing OpenExempt) goes
through `map_in_order`, so all of them stream their results in job order (outputs are byte-identical
however they were made) and none hangs when a worker dies: a local pool that loses a worker raises
`WorkerDied`; on Ray the lost chunk of jobs is run again. Ray is imported only when asked for, so the
commands that never use it start as fast as before.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from enum import Enum
from typing import Any, TypeVar

from lexsym._util.errors import LexsymError

Job = TypeVar("Job")
Result = TypeVar("Result")

RAY_INSTALL = "pip install 'lexsym[ray]'"
RAY_TASK_RETRIES = 2
"""Times Ray itself re-runs a chunk whose worker process died (its `max_retries`, system failures only)."""
CHUNK_RETRIES = 1
"""Times a chunk is submitted again once Ray has given up on it (its node died, its object was lost). A
chunk that kills every worker it meets (a case that runs out of memory) is tried 6 times in all."""


class Executor(str, Enum):
    """Where the jobs run once there is more than one worker (`--executor`)."""

    local = "local"  # a fork pool on this machine, `workers` processes
    ray = "ray"  # a Ray cluster: `RAY_ADDRESS`'s, or one started here


class ExecutorUnavailable(LexsymError):
    """The executor asked for cannot run here (an unknown name, or Ray is not installed)."""


class WorkerDied(LexsymError):
    """A worker process died mid-job (killed, or out of memory): an internal failure, not bad input."""

    exit_code = 3


def map_in_order(
    function: Callable[[Job], Result],
    jobs: Iterable[Job],
    *,
    workers: int = 1,
    executor: Executor | str = Executor.local,
    chunk_size: int = 4,
    progress: Callable[[int, int | None], None] | None = None,
) -> Iterator[Result]:
    """`function(job)` for every job, yielded in job order as soon as each is ready. `function` must be a
    picklable top-level function. `executor` local: in this process when `workers` <= 1 or there is at
    most one job, else a fork pool of `workers` processes. `executor` ray: chunks of `chunk_size` jobs, one
    Ray task each, as many at once as the cluster has CPUs (`workers` does not apply). `progress(done,
    total)` follows the results taken (total None when `jobs` has no length). Raises ExecutorUnavailable
    here, before any work, when the executor cannot run."""
    name = _executor_name(executor)
    total = len(jobs) if isinstance(jobs, Sized) else None
    if name == Executor.ray.value:
        ray = _import_ray()
        results = _on_ray(ray, function, iter(jobs), max(1, chunk_size))
    elif workers <= 1 or (total is not None and total <= 1):
        results = map(function, jobs)
    else:
        processes = min(workers, total) if total is not None else workers
        results = _on_fork_pool(function, iter(jobs), processes, max(1, chunk_size))
    return results if progress is None else _reported(results, progress, total)


def _executor_name(executor: Executor | str) -> str:
    value = executor.value if isinstance(executor, Executor) else str(executor)
    if value not in {member.value for member in Executor}:
        raise ExecutorUnavailable(f"unknown executor {value!r}: choose local or ray")
    return value


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable(
            f"the ray executor needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    return ray


def _reported(
    results: Iterator[Result], progress: Callable[[int, int | None], None], total: int | None
) -> Iterator[Result]:
    for done, result in enumerate(results, start=1):
        yield result
        progress(done, total)  # once the caller has taken the result


def _chunks(jobs: Iterator[Job], size: int) -> Iterator[list[Job]]:
    while chunk := list(itertools.islice(jobs, size)):
        yield chunk


def _run_chunk(function: Callable[[Job], Result], chunk: list[Job]) -> list[Result]:
    """The unit a worker runs: a few jobs per round trip, so small jobs do not drown in messaging."""
    return [function(job) for job in chunk]


def _died(function: Callable, done: int, where: str) -> WorkerDied:
    label = getattr(function, "__qualname__", repr(function))
    return WorkerDied(
        f"a worker process died ({where}) while running {label}, after {done} result(s) were delivered; "
        "it was killed or ran out of memory (rerun with --executor local --workers 1 to see it here)"
    )


def _die_with_parent(parent: int) -> None:
    """A pool worker ends when the process that started it dies. A SIGKILLed `lexsym run` left its workers
    running for ever (the audit found two orphans in one trial): each still holds the pool's queue open, so
    none ever sees it close. On Linux the kernel sends SIGKILL on the parent's death (PR_SET_PDEATHSIG);
    elsewhere a thread watches the parent's pid."""
    import signal
    import threading
    import time

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()


def _on_fork_pool(
    function: Callable[[Job], Result], jobs: Iterator[Job], processes: int, chunk_size: int
) -> Iterator[Result]:
    """A fork pool with a bounded window of chunks in flight (a batch of millions of cases streams)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunks = _chunks(jobs, chunk_size)
    pool = ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )
    pending: deque = deque()
    done = 0
    try:
        for chunk in itertools.islice(chunks, 4 * processes):
            pending.append(pool.submit(_run_chunk, function, chunk))
        while pending:
            results = pending.popleft().result()
            for chunk in itertools.islice(chunks, 1):
                pending.append(pool.submit(_run_chunk, function, chunk))
            for result in results:
                yield result
                done += 1
    except BrokenProcessPool:
        raise _died(function, done, "local pool") from None
    finally:
        # Let running chunks end and the workers exit on their own; drop the ones not started.
        pool.shutdown(wait=True, cancel_futures=True)


def _ray_connect(ray: Any) -> None:
    """Join `RAY_ADDRESS`'s cluster, else start one on this machine; a cluster already joined (the caller's)
    is used as it is and never shut down here."""
    if ray.is_initialized():
        return
    address = os.environ.get("RAY_ADDRESS")
    try:
        if address and "://" in address:  # Ray Client: options travel to a remote driver; send none
            ray.init(address=address)
        elif address:
            ray.init(address=address, log_to_driver=False, logging_level="warning")
        else:
            ray.init(address="local", include_dashboard=False, log_to_driver=False, logging_level="warning")
    except Exception as error:  # an unreachable address, a local start that fails: one line, no traceback
        where = f"the Ray cluster at RAY_ADDRESS={address}" if address else "a local Ray instance"
        first = str(error).strip().splitlines()[0] if str(error).strip() else error.__class__.__name__
        raise ExecutorUnavailable(f"cannot start or join {where}: {first}") from error


def _on_ray(
    ray: Any, function: Callable[[Job], Result], jobs: Iterator[Job], chunk_size: int
) -> Iterator[Result]:
    """One Ray task per chunk, a window of twice the cluster's CPUs in flight, results in chunk order. A
    chunk whose worker died is re-run by Ray (`max_retries`), then resubmitted up to CHUNK_RETRIES times,
    so a killed worker costs only its chunk."""
    from ray.exceptions import NodeDiedError, ObjectLostError, RayTaskError, WorkerCrashedError

    lost = (WorkerCrashedError, NodeDiedError, ObjectLostError)
    chunks = _chunks(jobs, chunk_size)
    first = next(chunks, None)
    if first is None:
        return  # nothing to do: no cluster started for it
    _ray_connect(ray)
    task = ray.remote(_run_chunk).options(max_retries=RAY_TASK_RETRIES, num_cpus=1)
    target = ray.put(function)
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: deque = deque()  # (object ref, chunk, resubmissions so far)
    done = 0
    try:
        for chunk in itertools.chain([first], itertools.islice(chunks, window - 1)):
            pending.append((task.remote(target, chunk), chunk, 0))
        while pending:
            ref, chunk, tries = pending.popleft()
            try:
                results = ray.get(ref)
            except RayTaskError as error:  # the job itself raised: raise it as the local pool would
                raise (error.cause if isinstance(error.cause, BaseException) else error) from error
            except lost:
                if tries >= CHUNK_RETRIES:
                    raise _died(function, done, "ray, after its retries") from None
                pending.appendleft((task.remote(target, chunk), chunk, tries + 1))
                continue
            for chunk in itertools.islice(chunks, 1):
                pending.append((task.remote(target, chunk), chunk, 0))
            for result in results:
                yield result
                done += 1
    finally:
        for ref, _, _ in pending:  # stop the work nobody will read
            ray.cancel(ref)
