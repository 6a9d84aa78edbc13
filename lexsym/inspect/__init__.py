"""inspect_ai integration (the optional extra `inspect`): lexsym task sets, the nine suites and exam sets
as inspect tasks, scored by lexsym's own scoring code and checker, and the essay judges as model-graded
scorers.

    inspect eval lexsym/openexempt_basic --model openai/gpt-4o
    inspect eval lexsym/lexsym_tasks -T path=demo/tasks/tasks.jsonl --model …
    inspect eval lexsym/lexsym_exam -T path=exams/lexam_open --model … --model-role grader=…

Modules, one concept each: `samples` (records as samples: `lexsym run`'s exact messages), `tasks` (the
task functions over any task set), `suites` and `suite_cache` (the nine suites, generated once per input
digest), `answer_scoring` (one answer scored as `lexsym score` scores it), `explanations` (the checker's
words), `scorers` (`lexsym_score`), `metrics` (`lexsym score`'s per-task aggregates), `judge_models`
(inspect models as lexsym judges), `judges` (`reference_judge`, `rubric_judge`), `judge_metrics`
(judged.json's headlines), `offline_tokens` (token counting without a download), `_registry` (what the
entry point loads).

Names are imported lazily: importing `lexsym.inspect` costs nothing until one is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from lexsym.generate.suites import SUITE_NAMES
from lexsym.inspect.offline_tokens import use_bundled_vocabulary

use_bundled_vocabulary()

_WHERE = {
    "lexsym_tasks": "tasks",
    "lexsym_exam": "tasks",
    "task_over": "tasks",
    "suite_task": "suites",
    "suite_tasks": "suite_cache",
    "SUITE_TASKS": "suites",
    "lexsym_score": "scorers",
    "lexsym_summary": "metrics",
    "reference_judge": "judges",
    "rubric_judge": "judges",
    "reference_summary": "judge_metrics",
    "rubric_summary": "judge_metrics",
    "record_dataset": "samples",
    "record_sample": "samples",
    **{f"openexempt_{name.replace('-', '_')}": "suites" for name in SUITE_NAMES},
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return __all__
