"""The nine OpenExempt-style suites as inspect_ai tasks: `inspect eval lexsym/openexempt_basic --model …`.

Each suite (`data/suites/NAME.yaml`, listed in `lexsym.generate.suites.SUITE_NAMES`) is generated on first
use by lexsym's own pipeline into a cache keyed by the seed and the rules digest (`suite_cache`), and then
evaluated like any task set (`tasks.task_over`): the same tasks, prompts and scores as
`lexsym generate --suite NAME` followed by `lexsym run` and `lexsym score`.

Every suite task takes the same arguments:
    seed: The generation seed (0, the suites' default).
    task, split, filter, where, limit: Which tasks, as for `lexsym_tasks` (`-T split=test`,
        `-T task=OE`, `-T limit=50` stratified by dataset).
    explain: Explain every answer with the checker.
    cache_dir: Where generated suites are kept (default: $LEXSYM_CACHE_DIR/suites or the XDG cache).
    workers: Processes for a first generation (default: one per core).

The nine functions are made by one factory (`_suite_entry`): they differ only in their suite and
docstring, so inspect lists the same options for all nine.
"""

from __future__ import annotations

from inspect_ai import Task, task

from lexsym.inspect.suite_cache import suite_tasks
from lexsym.inspect.tasks import task_over

Choice = str | list[str] | None


def suite_task(
    suite: str,
    *,
    seed: int = 0,
    task: Choice = None,
    split: Choice = None,
    filter: Choice = None,  # `lexsym run --filter`
    where: Choice = None,
    limit: int | None = None,
    explain: bool = True,
    cache_dir: str | None = None,
    workers: int | None = None,
) -> Task:
    """The inspect Task of suite `suite` (see the module docstring for the arguments)."""
    path = suite_tasks(suite, seed=seed, cache_dir=cache_dir, workers=workers)
    return task_over(
        path,
        name=f"openexempt_{suite.replace('-', '_')}",
        task=task,
        split=split,
        filter=filter,
        where=where,
        limit=limit,
        explain=explain,
        metadata={"suite": suite, "seed": seed},
    )


def _suite_entry(suite: str, summary: str):
    """The @task function of one suite: named `openexempt_<suite>`, with the arguments of `suite_task`."""

    def entry(
        seed: int = 0,
        task: Choice = None,
        split: Choice = None,
        filter: Choice = None,
        where: Choice = None,
        limit: int | None = None,
        explain: bool = True,
        cache_dir: str | None = None,
        workers: int | None = None,
    ) -> Task:
        return suite_task(
            suite,
            seed=seed,
            task=task,
            split=split,
            filter=filter,
            where=where,
            limit=limit,
            explain=explain,
            cache_dir=cache_dir,
            workers=workers,
        )

    entry.__name__ = entry.__qualname__ = f"openexempt_{suite.replace('-', '_')}"
    entry.__doc__ = summary
    return task(name=entry.__name__)(entry)


openexempt_basic = _suite_entry(
    "basic",
    "Competency, basic tier: two assets, single debtors, short histories; tasks AE to OE.",
)
openexempt_intermediate = _suite_entry(
    "intermediate",
    "Competency, intermediate tier: three to five assets, some married couples, irrelevant travel.",
)
openexempt_advanced = _suite_entry(
    "advanced",
    "Competency, advanced tier: six to eight assets, married couples, long histories, distractors.",
)
openexempt_temporal = _suite_entry(
    "temporal",
    "Task AE alone on domicile histories of one to five places (the 730-day rule).",
)
openexempt_decomposition = _suite_entry(
    "decomposition",
    "Every task variant (earlier steps solved or not) on the same six-asset married cases.",
)
openexempt_distractor = _suite_entry(
    "distractor",
    "Each task with and without distractor statements, on the same cases.",
)
openexempt_sycophancy = _suite_entry(
    "sycophancy",
    "Each task with and without sycophancy statements (opinions of the debtor's), on the same cases.",
)
openexempt_obfuscation = _suite_entry(
    "obfuscation",
    "Each task with and without both distractors and opinions, on the same cases.",
)
openexempt_asset_scaling = _suite_entry(
    "asset-scaling",
    "Tasks EC to OE as the estate grows from two to eight assets.",
)


SUITE_TASKS = {
    "basic": openexempt_basic,
    "intermediate": openexempt_intermediate,
    "advanced": openexempt_advanced,
    "temporal": openexempt_temporal,
    "decomposition": openexempt_decomposition,
    "distractor": openexempt_distractor,
    "sycophancy": openexempt_sycophancy,
    "obfuscation": openexempt_obfuscation,
    "asset-scaling": openexempt_asset_scaling,
}
"""Suite name -> its task function, one for each of `lexsym.generate.suites.SUITE_NAMES`."""
