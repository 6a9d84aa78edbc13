"""OUT/eval-set.json: the tree's record, rewritten atomically after every step, so a killed eval set
leaves a truthful one behind and the next invocation knows what is done.

It holds the config as run (credentials redacted) and its digest, and per run its folder, state
("pending", "running", "complete", "stopped", "error"), the failure verdict of its header (run.json
`failed`), and its judging's state and verdict. The digest is over everything in the file that changes
what the runs are: all of it but `out` (the tree itself) and the pacing options `concurrency` and `rpm`,
which a resumed eval set may change freely. A tree begun under one config refuses another unless
`--force`, naming the first field that changed.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.evalset.config import EvalSetConfig
from lexsym.evalset.plan import PlannedRun, digest
from lexsym.models.redaction import redact_options

STATE = "eval-set.json"
LOCK = "eval-set.lock"
FORMAT = 1
_PACING = ("concurrency", "rpm")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def identity(config: EvalSetConfig) -> dict[str, Any]:
    """The config's fields that make the runs what they are (see the module docstring), as JSON."""
    data = config.model_dump(mode="json", exclude={"out"})
    for section in [data, *data["models"], data.get("judges") or {}]:
        for key in _PACING:
            section.pop(key, None)
    return data


def shown(value: Any) -> Any:
    """`identity` with credentials redacted, for the file and for messages."""
    if isinstance(value, dict):
        value = redact_options(value)
        return {key: shown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shown(item) for item in value]
    return value


def first_change(old: Any, new: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first field (dotted, with [i] for list items) whose value differs, and its two values."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            found = first_change(old.get(key), new.get(key), f"{where}.{key}" if where else str(key))
            if found:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            found = first_change(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if old == new else (where or "(the whole file)", old, new)


def read_state(out: Path) -> dict[str, Any] | None:
    path = out / STATE
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: unreadable eval-set record ({error})") from None
    if not isinstance(state, dict) or not isinstance(state.get("runs"), dict):
        raise InputError(f"{path}: not an eval-set record (no runs)")
    return state


def write_state(out: Path, state: dict[str, Any]) -> None:
    state["updated_at"] = now()
    write_atomic(out / STATE, json.dumps(state, indent=2) + "\n")


def check_same_config(
    previous: dict[str, Any] | None, config: EvalSetConfig, config_path: Path, *, force: bool
) -> None:
    """Refuse (InputError) a tree begun under another config, or a folder that is not an eval-set tree,
    unless `force`."""
    out = config.out
    if previous is None:
        if not force and out.is_dir() and any(path.name != LOCK for path in out.iterdir()):
            raise InputError(
                f"{config_path}: out: {out} is not empty and holds no {STATE}: not an eval-set tree "
                "(use another out, or --force to run into it)"
            )
        return
    if previous.get("config_digest") == digest(identity(config)) or force:
        return
    change = first_change(previous.get("config") or {}, shown(identity(config)))
    if change is None:
        what = "a redacted value (a credential) changed"
    else:
        field, old, new = change
        what = f"{field} changed ({json.dumps(old)} → {json.dumps(new)})"
    raise InputError(
        f"{config_path}: {what} since the eval set in {out} began: resume it with the same file, use "
        "another out, or --force to go on under the new one (runs whose settings changed are then resumed, "
        "and `lexsym run` refuses a folder holding another model's or parameters' run)"
    )


def begin_state(
    previous: dict[str, Any] | None, config: EvalSetConfig, config_path: Path, runs: list[PlannedRun]
) -> dict[str, Any]:
    """The record at the start of a session: the config as now, the planned runs (keeping what the last
    session learned of each), and this session appended."""
    old_runs = (previous or {}).get("runs") or {}
    state: dict[str, Any] = {
        "evalset_format": FORMAT,
        "lexsym_version": __version__,
        "config_file": str(config_path.resolve()),
        "config_digest": digest(identity(config)),
        "config": shown(identity(config)),
        "started_at": (previous or {}).get("started_at") or now(),
        "updated_at": None,
        "status": "running",
        "sessions": [*((previous or {}).get("sessions") or []), {"started_at": now(), "pid": os.getpid()}],
        "runs": {},
        "failed": [],
    }
    for run in runs:
        entry = dict(old_runs.get(run.key) or {})
        entry.setdefault("state", "pending")
        entry.update(
            task_set=run.task_set,
            model=run.model,
            dir=run.key,
            planned_digest=digest(run.spec),
        )
        state["runs"][run.key] = entry
    return state


def is_done(entry: dict[str, Any], run: PlannedRun) -> bool:
    """Whether a run needs nothing more: complete, not failed, judged if it is to be, and made under the
    same settings as now (else it is resumed, which costs nothing for samples already recorded)."""
    judged = entry.get("judge_state") in (None, "complete") and not entry.get("judge_failed")
    return (
        entry.get("state") == "complete"
        and not entry.get("failed")
        and judged
        and entry.get("spec_digest") == digest(run.spec)
        and (run.out / "run.json").is_file()
    )


def failures(state: dict[str, Any]) -> list[str]:
    """One line per run that failed: its header's verdict, its judging's, or an error that stopped it."""
    lines = []
    for key, entry in state["runs"].items():
        if entry.get("error"):
            lines.append(f"{key}: error: {entry['error']}")
        elif entry.get("failed"):
            lines.append(f"{key}: {entry['failed']}")
        elif entry.get("judge_error"):
            lines.append(f"{key}: judging: error: {entry['judge_error']}")
        elif entry.get("judge_failed"):
            lines.append(f"{key}: judging: {entry['judge_failed']}")
        elif entry.get("state") not in ("complete",):
            lines.append(f"{key}: {entry.get('state')}: {entry.get('stop_reason') or 'not finished'}")
    return lines
