"""When a run (or a judging session) has failed as a whole, and why: the verdict behind a non-zero exit.

A run whose every sample failed used to end "complete" with exit 0, so a script looping over models
could not tell a wrong key or a refused parameter from a result. Here:

- a run fails when every recorded sample failed, or when the share that failed is above
  `max_failure_rate` (when given), or when `--fail-fast N` stopped it;
- the reasons are the samples' error messages grouped (`top_reasons`), most frequent first, so the summary
  says "4 × UnsupportedParamsError: anthropic does not support parameters: ['seed']" rather than a count.

A wrong or unreadable answer is not a failure here: the model answered, and the scores say how well.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

FAIL_FAST = "fail-fast"
_REASON_CHARS = 160
_SHOWN = 5


def reason_of(error: str) -> str:
    """An error message cut to the part that groups alike failures (the first 160 characters)."""
    text = " ".join(error.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def top_reasons(errors: Iterable[str], shown: int = _SHOWN) -> dict[str, int]:
    """{reason: count} of the most frequent reasons, most frequent first."""
    counts = Counter(reason_of(error) for error in errors if error)
    return dict(counts.most_common(shown))


def fail_fast_reason(failed: int) -> str:
    return f"{FAIL_FAST}: {failed} failed"


def verdict(
    failed: int,
    total: int,
    *,
    max_failure_rate: float | None,
    stop_reason: str | None,
    unit: str = "sample",
) -> str | None:
    """Why the run counts as failed, or None when it does not (see the module docstring). `unit` names
    what was counted ("sample", "judgement")."""
    if stop_reason and stop_reason.startswith(FAIL_FAST):
        return f"stopped by --fail-fast after {failed} failure(s)"
    if total <= 0 or failed <= 0:
        return None
    if failed == total:
        return f"every {unit} failed ({failed} of {total})"
    if max_failure_rate is not None and failed / total > max_failure_rate:
        share = f"{failed / total:.0%} > --max-failure-rate {max_failure_rate:g}"
        return f"{failed} of {total} {unit}s failed ({share})"
    return None


def reasons_in(samples: Iterable[dict]) -> dict[str, int]:
    """`top_reasons` of the failed samples (lines of samples.jsonl or judgements.jsonl)."""
    return top_reasons(str(line["error"]) for line in samples if line.get("error"))


def summary_lines(reasons: dict[str, int]) -> list[str]:
    """The reasons as lines for a terminal: `  4 × <reason>`."""
    return [f"  {count} × {reason}" for reason, count in reasons.items()]
