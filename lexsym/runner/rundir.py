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

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexsym._util.append_log import lock_file, set_aside_lines, unlock_file
from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.runner.run_records import (
    RunHeader,
)
from lexsym.runner.samples_log import sample_fields

log = logging.getLogger("lexsym.runner")


HEADER = "run.json"


SAMPLES = "samples.jsonl"


DROPPED = "samples.dropped"


LOCK = "run.lock"


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
            record = sample_fields(line)
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
