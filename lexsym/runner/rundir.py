"""The run directory, the unit of resume: its header (run.json), its samples (samples.jsonl), its lock.

Layout:

- `run.json`: the header. Written atomically (temp file, fsync, rename) when a session starts, with
  status "running", and rewritten when it ends, with totals, stop reason and score summary. It ties the
  directory to one model id, one set of generation parameters and one task file hash: a run with any
  other is refused, because mixing them would make the scores meaningless.
- `samples.jsonl`: one `SampleRecord` per finished sample, appended by a single writer, each batch of lines
  flushed and fsynced before more are written. The file is the truth: totals, predictions and scores are
  computed from it, so they are right across any number of resumed sessions.
- `samples.dropped`: lines taken out of samples.jsonl when a session starts (see `prepare_samples`), kept
  for inspection rather than deleted.
- `predictions.jsonl` (`predictions.rK.jsonl` for repeat K > 0), `scores.json` (`scores.rK.json`): written
  atomically at the end, see `lexsym.runner.scores`.
- `run.lock`: an exclusive `flock` held while a session runs, so two processes never append to the same
  samples.jsonl. The kernel drops it when the process dies, even on SIGKILL, so no stale lock survives.

A session killed mid-write leaves at most one torn last line. `prepare_samples` sets it aside, so the
resumed session redoes that sample and its first append starts on a fresh line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from lexsym.atomic import write_atomic
from lexsym.errors import InputError

log = logging.getLogger("lexsym.runner")

RUN_FORMAT = 1
HEADER = "run.json"
SAMPLES = "samples.jsonl"
DROPPED = "samples.dropped"
LOCK = "run.lock"


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
    params: dict[str, Any] = Field(description="GenerationParams.key_fields(): part of the identity.")
    tasks: TaskSetRef
    filters: list[str] = Field(default_factory=list)
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
    sessions: list[Session] = Field(default_factory=list)
    scores: dict[str, Any] | None = None


def json_normal(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


@dataclass
class SampleScan:
    """What a session found in samples.jsonl before starting: the (task id, repeat) pairs already done."""

    done: set[tuple[str, int]] = field(default_factory=set)
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> lines


class RunDir:
    """A run directory. `lock()` before touching samples.jsonl; `unlock()` when done."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.header_path = self.path / HEADER
        self.samples_path = self.path / SAMPLES
        self._lock_fd: int | None = None

    def lock(self) -> None:
        """Take the directory's exclusive lock, or fail at once (exit 2) naming the holder."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{self.path}: cannot create the run directory: {error.strerror}") from None
        if not self.path.is_dir():
            raise InputError(f"{self.path}: not a directory")
        self._lock_fd = lock_file(self.path / LOCK, f"{self.path} is in use by another lexsym run")

    def unlock(self) -> None:
        unlock_file(self._lock_fd)
        self._lock_fd = None

    def read_header(self) -> RunHeader | None:
        """The header, None for a new directory; InputError for one that is not a lexsym run."""
        if not self.header_path.exists():
            if self.samples_path.exists():
                raise InputError(
                    f"{self.path} has {SAMPLES} but no {HEADER}: not a lexsym run directory (or its header "
                    "was removed); use another --out"
                )
            return None
        try:
            return RunHeader.model_validate_json(self.header_path.read_bytes())
        except (OSError, ValidationError, ValueError) as error:
            first = str(error).splitlines()[0] if str(error) else error.__class__.__name__
            raise InputError(
                f"{self.header_path}: cannot read the run header ({first}); use another --out"
            ) from None

    def write_header(self, header: RunHeader) -> None:
        write_atomic(self.header_path, header.model_dump_json(indent=2) + "\n")

    def check_resumable(
        self, previous: RunHeader, model: str, params: dict[str, Any], tasks_sha256: str
    ) -> None:
        """Refuse (InputError, exit 2, one line) to add samples of another model, other generation
        parameters or another task set to this run."""
        problems = []
        if previous.model != model:
            problems.append(f"model {previous.model!r} (not {model!r})")
        if json_normal(previous.params) != json_normal(params):
            problems.append(
                f"generation parameters {json.dumps(previous.params, sort_keys=True)} "
                f"(not {json.dumps(json_normal(params), sort_keys=True)})"
            )
        if previous.tasks.tasks_sha256 != tasks_sha256:
            problems.append(
                f"task set {previous.tasks.tasks_sha256[:12]}… from {previous.tasks.path} "
                f"(not {tasks_sha256[:12]}…)"
            )
        if problems:
            raise InputError(
                f"{self.path} holds a run with {'; '.join(problems)}: resume it with the same settings, or "
                "use another --out"
            )

    def prepare_samples(self, *, retry_errors: bool = False) -> SampleScan:
        """Read samples.jsonl before a session appends to it; the pairs already done.

        Lines that cannot stand are moved to samples.dropped (samples.jsonl is rewritten atomically without
        them): a torn or unreadable line, a second line for a sample already recorded, and a failed sample
        that should be tried again: one whose transient errors ran out of retries (the outage may be over)
        or, with `retry_errors`, any failed one. After this the file ends with a newline, so the next
        append starts on a fresh line.
        """
        scan = SampleScan()

        def verdict(line: Any, torn: bool) -> str | None:
            record = _sample_fields(line)
            if record is None:
                return "torn last line" if torn else "unreadable line"
            key = (record["task_id"], record["repeat"])
            if key in scan.done:
                return "duplicate sample"
            if record.get("error") and (record.get("error_kind") == "transient" or retry_errors):
                return "failed sample to retry"
            scan.done.add(key)
            return None

        scan.dropped, scan.kept = set_aside_lines(self.samples_path, self.path / DROPPED, verdict)
        if scan.dropped:
            summary = ", ".join(f"{count} {reason}" for reason, count in scan.dropped.items())
            log.warning(
                "%s: set aside %s in %s; those samples will be done again",
                self.samples_path,
                summary,
                DROPPED,
            )
        return scan


def lock_file(path: Path, busy: str) -> int | None:
    """Take an exclusive lock on `path` (created if needed) and write our pid into it; InputError with
    `busy` and the holder's pid when another process holds it. The kernel drops the lock when the holder
    dies, even by SIGKILL. None where there is no flock (Windows: one process per directory by convention)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        return None
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise InputError(f"{busy} (pid {holder})") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def unlock_file(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the flock


def set_aside_lines(
    path: Path, dropped: Path, verdict: Callable[[Any, bool], str | None]
) -> tuple[dict[str, int], int]:
    """Before appending to an append-only JSONL file, move the lines that cannot stand to `dropped`.

    `verdict(line, torn)` gets each line parsed (None when it is not JSON; `torn` when that is the last
    line and the file does not end with a newline, which is what a kill mid-write leaves) and returns the
    reason to set it aside, or None to keep it. With lines set aside the file is rewritten atomically;
    either way it ends with a newline afterwards, so the next append starts on a fresh line. Returns the
    set-aside counts by reason, and the number of lines kept.
    """
    if not path.exists():
        return {}, 0
    data = path.read_bytes()
    pieces = data.split(b"\n")
    tail_complete = data.endswith(b"\n") or not data
    keep: list[bytes] = []
    moved: list[bytes] = []
    reasons: dict[str, int] = {}
    for number, raw in enumerate(pieces, start=1):
        last = number == len(pieces)
        if last and not raw:
            break
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            line = None
        reason = verdict(line, last and not tail_complete)
        if reason is None:
            keep.append(raw)
        else:
            moved.append(raw)
            reasons[reason] = reasons.get(reason, 0) + 1
    if moved:
        with open(dropped, "ab") as stream:
            stream.write(b"".join(line + b"\n" for line in moved))
            stream.flush()
            os.fsync(stream.fileno())
        write_atomic(path, b"".join(line + b"\n" for line in keep).decode("utf-8"))
    elif not tail_complete:
        with open(path, "ab") as stream:  # a complete last record whose newline was cut
            stream.write(b"\n")
            stream.flush()
            os.fsync(stream.fileno())
    return reasons, len(keep)


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    """A sample line as a dict with a string task_id and an int repeat, or None."""
    try:
        return _sample_fields(json.loads(raw))
    except (ValueError, RecursionError):
        return None


def _sample_fields(record: Any) -> dict[str, Any] | None:
    """`record` when it is a sample line's dict (a string task_id, an int repeat), else None."""
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("task_id"), str)
        or not isinstance(record.get("repeat"), int)
        or isinstance(record.get("repeat"), bool)
    ):
        return None
    return record


def read_samples(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every readable sample line of a samples.jsonl, streaming. Torn or unreadable lines are skipped (a
    killed session may leave one at the end), so readers never crash on a live or crashed run."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb") as stream:
        for raw in stream:
            if not raw.strip():
                continue
            record = _parse_line(raw)
            if record is not None:
                yield record


class SampleWriter:
    """The only appender to samples.jsonl: a task that drains a queue of finished lines, writes each batch
    with one `os.write` loop, and fsyncs it in a worker thread, so the event loop never blocks on the disk
    and samples that finish while one batch is being synced go out together in the next (group commit)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.written = 0
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._fd: int | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, on_error: Any = None) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._task = asyncio.get_running_loop().create_task(self._run())
        if on_error is not None:
            self._task.add_done_callback(
                lambda task: on_error(task.exception()) if not task.cancelled() and task.exception() else None
            )

    def append(self, line: str) -> None:
        """Queue one finished line (ending in a newline)."""
        self._queue.put_nowait(line)

    async def _run(self) -> None:
        assert self._fd is not None
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            lines = [line for line in batch if line is not None]
            if lines:
                data = "".join(lines).encode("utf-8")
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
                await asyncio.to_thread(os.fsync, self._fd)
                self.written += len(lines)
            if len(lines) != len(batch):
                return

    async def close(self) -> None:
        """Write what is queued, then close the file. Re-raises a write error."""
        try:
            if self._task is not None:
                if not self._task.done():
                    self._queue.put_nowait(None)
                await self._task
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
