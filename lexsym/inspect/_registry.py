"""What inspect_ai loads through lexsym's entry point (`[project.entry-points.inspect_ai]`): importing the
modules that define the @task, @scorer and @metric functions registers them under the `lexsym/` prefix,
so `inspect eval lexsym/openexempt_basic` and `inspect score --scorer lexsym/lexsym_score` find them."""

from lexsym.inspect.judge_metrics import reference_summary, rubric_summary
from lexsym.inspect.judges import reference_judge, rubric_judge
from lexsym.inspect.metrics import lexsym_summary
from lexsym.inspect.scorers import lexsym_score
from lexsym.inspect.suites import (
    openexempt_advanced,
    openexempt_asset_scaling,
    openexempt_basic,
    openexempt_decomposition,
    openexempt_distractor,
    openexempt_intermediate,
    openexempt_obfuscation,
    openexempt_sycophancy,
    openexempt_temporal,
)
from lexsym.inspect.tasks import lexsym_exam, lexsym_tasks

__all__ = [
    "lexsym_exam",
    "lexsym_score",
    "lexsym_summary",
    "lexsym_tasks",
    "openexempt_advanced",
    "openexempt_asset_scaling",
    "openexempt_basic",
    "openexempt_decomposition",
    "openexempt_distractor",
    "openexempt_intermediate",
    "openexempt_obfuscation",
    "openexempt_sycophancy",
    "openexempt_temporal",
    "reference_judge",
    "reference_summary",
    "rubric_judge",
    "rubric_summary",
]
