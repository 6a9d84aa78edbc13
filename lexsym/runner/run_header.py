"""The run header of a session: what pins a run (lexsym version, git revision, rules digest, task set,
options), merged with the header of the run it resumes."""

from __future__ import annotations

import dataclasses
import logging
import platform
import subprocess
from pathlib import Path
from typing import Any

from lexsym._version import __version__
from lexsym.runner.run_options import RunOptions
from lexsym.runner.run_records import CacheRef, RunHeader, Session, TaskSetRef
from lexsym.runner.tasksets import TaskSet

log = logging.getLogger("lexsym.runner")


def _git() -> tuple[str | None, bool | None]:
    """The revision of the checkout lexsym runs from, and whether it has changes; None outside one (an
    installed wheel must not report the revision of whatever repository happens to contain it)."""
    root = Path(__file__).resolve().parents[2]
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.split()
        if len(top) != 2 or Path(top[0]).resolve() != root:
            return None, None
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        return top[1], bool(dirty)
    except (OSError, subprocess.SubprocessError):
        return None, None


def session_header(
    previous: RunHeader | None,
    *,
    model_id: str,
    model_options: dict[str, Any],
    model_settings: dict[str, Any],
    params: dict[str, Any],
    params_sent: dict[str, Any],
    params_dropped: dict[str, str],
    concurrency: int,
    task_set: TaskSet,
    selected: int,
    options: RunOptions,
    cache: CacheRef,
    session: Session,
) -> RunHeader:
    from lexsym.generate.pipeline import inputs_digest

    revision, dirty = _git()
    current: dict[str, Any] = {
        "lexsym_version": __version__,
        "git_revision": revision,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "inputs": inputs_digest(),
        "model_options": model_options,
        "model_settings": model_settings,
        "params_sent": params_sent,
        "params_dropped": params_dropped,
        "tasks": TaskSetRef(
            path=str(task_set.path),
            tasks_sha256=task_set.sha256,
            manifest_tasks_sha256=task_set.manifest_sha256,
            manifest_inputs=task_set.manifest_inputs,
            tasks=len(task_set.records),
            selected=selected,
        ),
        "filters": list(options.filters),
        "where": list(options.where),
        "sample_ids": list(options.sample_ids),
        "limit": options.limit,
        "fail_fast": options.fail_fast,
        "max_failure_rate": options.max_failure_rate,
        "repeats": options.repeats,
        "concurrency": concurrency,
        "rpm": options.rpm,
        "time_budget": options.time_budget,
        "cost_budget": options.cost_budget,
        "retry": dataclasses.asdict(options.retry),
        "cache": cache,
        "ended_at": None,
        "status": "running",
        "stop_reason": None,
    }
    if previous is None:
        return RunHeader(
            model=model_id, params=params, started_at=session.started_at, sessions=[session], **current
        )
    if previous.inputs != current["inputs"]:
        log.warning(
            "the statutes, encodings or templates changed since this run began (%s -> %s): OE answers are "
            "checked against the current rules",
            previous.inputs,
            current["inputs"],
        )
    header = previous.model_copy(update=current, deep=True)
    if previous.status == "running" and header.sessions and header.sessions[-1].ended_at is None:
        header.sessions[-1].stop_reason = "did not finish (killed?)"
    header.sessions.append(session)
    return header
