"""The progress bar of a run, on stderr: done of planned, failed, cached, tokens, cost and ETA.

Shown only when stderr is a terminal (a log file gets no redraw noise); when hidden, updates are skipped
entirely, so a benchmark or a CI run pays nothing for it.
"""

from __future__ import annotations

import sys
from typing import Any


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{count / 1_000:.1f}k"
    return str(count)


class RunProgress:
    """A context manager around a rich Progress; `update` after every finished sample."""

    def __init__(self, total: int, *, label: str, enabled: bool | None = None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.total = total
        self.label = label
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> RunProgress:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=12),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeRemainingColumn(),  # the ETA
            console=Console(stderr=True),
            transient=False,
        )
        self._progress.__enter__()
        label = self.label if len(self.label) <= 20 else "…" + self.label[-19:]
        self._task = self._progress.add_task(label, total=self.total, stats="")
        return self

    def update(
        self, *, done: int, failed: int, cached: int, tokens_in: int, tokens_out: int, cost: float
    ) -> None:
        if self._progress is None:
            return
        tokens = f"{_tokens(tokens_in)}/{_tokens(tokens_out)}"
        stats = f"failed {failed} cached {cached} tok {tokens} ${cost:.4f}"
        self._progress.update(self._task, completed=done, stats=stats)

    def note(self, message: str) -> None:
        """A line above the bar (or on stderr when there is no bar)."""
        if self._progress is not None:
            self._progress.console.print(message, markup=False, highlight=False)
        else:
            sys.stderr.write(message + "\n")

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
            self._progress = None
