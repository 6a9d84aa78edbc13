"""Running an eval set: `lexsym eval-set FILE` — every model over every task set (and the judges over the
runs with open questions) into one tree, resumed as a whole, ending with one report.

The tree, after inspect_ai's `eval-set` log directory:

    OUT/eval-set.json            the record: config and digest, each run's state and verdict (atomic)
    OUT/eval-set.lock            held while a session runs (the kernel drops it on any death)
    OUT/<task set>/<model>/      one run directory each (`lexsym run`), judged in place (`lexsym judge`)
    OUT/report.json, report.md   the report: the runs side by side, per task set

A session takes the runs in order (task set by task set, models in the file's order). A run already done
under the same settings is skipped; any other is handed to `run_tasks`, which resumes its directory by
itself (samples already recorded are never asked again), then judged when it is complete, judges are
configured and its tasks hold open questions. So the same command after a kill, a Ctrl-C or a failure
picks up where the tree stands, and ends with the report an uninterrupted eval set would have written.

A run that fails (its header's `failed`: every sample failed, too many did, fail-fast) or that cannot
start (a bad model id: the error is recorded) does not stop the others; the report lists it. Ctrl-C stops
the eval set after the run in progress has recorded what it finished.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.append_log import lock_file, unlock_file
from lexsym._util.errors import InputError, LexsymError
from lexsym.evalset.config import load_config
from lexsym.evalset.plan import PlannedRun, digest, plan_runs
from lexsym.evalset.report import write_report
from lexsym.evalset.state import (
    LOCK,
    begin_state,
    check_same_config,
    failures,
    is_done,
    read_state,
    write_state,
)


@dataclass
class EvalSetResult:
    out: Path
    state: dict[str, Any]
    report: dict[str, Any]
    ran: list[str] = field(default_factory=list)  # runs handed to run_tasks in this session
    skipped: list[str] = field(default_factory=list)  # runs already done

    @property
    def failures(self) -> list[str]:
        return failures(self.state)

    @property
    def errored(self) -> bool:
        return any(entry.get("error") or entry.get("judge_error") for entry in self.state["runs"].values())


def _say(message: str) -> None:
    sys.stderr.write(f"lexsym eval-set: {message}\n")


def _needs_judging(run: PlannedRun) -> bool:
    """Whether the run's samples include open questions (the judges' work)."""
    from lexsym.judges.settings import judge_kind, load_run

    _, samples, records = load_run(run.out)
    return any(judge_kind(records.get(sample["task_id"], {})) for sample in samples)


def _judge(run: PlannedRun, entry: dict[str, Any], notify: Callable[[str], None]) -> None:
    from lexsym.judges.session import judge_run

    assert run.judge is not None
    try:
        result = judge_run(run.out, run.judge)
    except LexsymError as error:
        entry.update(judge_state="error", judge_error=str(error), judge_failed=None)
        notify(f"{run.key}: judging: error: {error}")
        return
    header = result.header
    entry.update(judge_state=header.get("status"), judge_failed=header.get("failed"), judge_error=None)
    notify(f"{run.key}: judged: {header.get('failed') or header.get('status')}")


def _one_run(run: PlannedRun, entry: dict[str, Any], notify: Callable[[str], None]) -> bool:
    """Run (resume) one run and record its outcome in `entry`; False when it was interrupted."""
    from lexsym.runner.run import run_tasks

    try:
        result = run_tasks(
            run.model,
            run.tasks,
            run.out,
            params=run.params,
            options=run.options,
            model_options=run.model_options,
        )
    except LexsymError as error:
        entry.update(state="error", error=str(error), failed=None)
        notify(f"{run.key}: error: {error}")
        return True
    header = result.header
    totals = header.totals
    entry.update(
        state=header.status,
        stop_reason=header.stop_reason,
        failed=header.failed,
        error=None,
        samples=totals.recorded,
        failed_samples=totals.failed,
        cost=totals.cost,
        spec_digest=digest(run.spec),
    )
    outcome = f"FAILED: {header.failed}" if header.failed else header.stop_reason or header.status
    notify(f"{run.key}: {outcome} ({totals.recorded} samples, {result.recorded} this session)")
    return header.stop_reason != "interrupted"


def run_eval_set(
    config_path: str | Path,
    *,
    force: bool = False,
    progress: bool | None = None,
    notify: Callable[[str], None] = _say,
) -> EvalSetResult:
    """Run (resume) the eval set of the file at `config_path`; see the module docstring. InputError for a
    bad file or a tree begun under another one; KeyboardInterrupt after a Ctrl-C, the record written."""
    config_path = Path(config_path)
    config, _ = load_config(config_path)
    try:
        runs = plan_runs(config, progress=progress)
    except InputError as error:
        raise InputError(f"{config_path}: {error}") from None
    out = config.out
    check_same_config(read_state(out), config, config_path, force=force)  # before touching the folder
    out.mkdir(parents=True, exist_ok=True)
    lock = lock_file(out / LOCK, f"{out}: another lexsym eval-set is running in this tree")
    try:
        previous = read_state(out)  # again, now that the tree is ours
        check_same_config(previous, config, config_path, force=force)
        state = begin_state(previous, config, config_path, runs)
        write_state(out, state)
        result = EvalSetResult(out, state, {})
        for index, run in enumerate(runs, 1):
            entry = state["runs"][run.key]
            if is_done(entry, run):
                result.skipped.append(run.key)
                continue
            notify(f"[{index}/{len(runs)}] {run.key}: {run.model} over {run.tasks}")
            entry.update(state="running")
            write_state(out, state)
            result.ran.append(run.key)
            finished = _one_run(run, entry, notify)
            if not finished:
                state["status"] = "interrupted"
                write_state(out, state)
                raise KeyboardInterrupt
            if run.judge is not None and entry["state"] == "complete" and _needs_judging(run):
                entry.update(judge_state="pending")
                write_state(out, state)
                _judge(run, entry, notify)
            write_state(out, state)
        state["failed"] = failures(state)
        state["status"] = "failed" if state["failed"] else "complete"
        result.report = write_report(out, runs, state)
        write_state(out, state)
        return result
    finally:
        unlock_file(lock)
