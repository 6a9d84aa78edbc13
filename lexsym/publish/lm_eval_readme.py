"""The README.md of an lm-eval export: how to run it, how prompts are sent, and what lm-eval's numbers
are (and are not) next to `lexsym score`'s."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from lexsym._version import __version__
from lexsym.publish.lm_eval_hooks import metric_specs
from lexsym.publish.task_sources import identifier

if TYPE_CHECKING:
    from lexsym.publish.lm_eval_export import LmEvalExport

SCORED_ORDER = ("AE", "EC", "EV", "NA", "OE", "MCQ")
CANNOT_REPRODUCE = """\
lm-eval aggregates each task's per-sample scores itself, so some of what `lexsym score` reports has no
counterpart here (score the same outputs with `lexsym score TASKS PREDICTIONS` for those):

- **Standard errors.** lexsym's are bootstrap standard errors (1,000 resamples, seed 0). lm-eval reports,
  for a `mean`, the sample standard deviation over the square root of n; for a `nanmean` its own bootstrap
  (`--bootstrap_iters`); for `median_re` none.
- **n per metric.** lexsym reports how many samples each partial metric was computed over (MARE over the
  samples with a matched amount, the gap over valid schedules); lm-eval reports the task's sample count.
- **The mean of median_re.** lexsym reports the median of the per-sample median relative errors (the
  headline, reproduced here) and their mean; lm-eval gives one number per metric.
- **Pooled partial metrics.** The per-task-type groups (`lexsym_ae`, ...) pool the rates over suites,
  weighted by sample count, which equals lexsym's mean over all of them. MARE, median_re, gap_percent and
  accuracy_extracted cannot be pooled from per-suite means (they are over the defined samples only), so
  the groups leave them out; the suites' own tasks have them.
- **Slices.** lexsym reports by task, by variant, by suite and by any metadata field (`--by`); here each
  task is one task type of one suite (variants of a task type are pooled, as lexsym's per-suite rows are).
- **OE diagnostics.** The rules each invalid schedule breaks, answers that beat the proven optimum (a
  solver bug lexsym flags), and checker failures are not metrics; lm-eval cannot show them.
- **MCQ.** The exam-clustered standard error (accuracy_clustered) and the position-bias report.
- **Missing answers and repeats.** lexsym counts predictions that never came and unknown ids, and
  summarises `--repeats` (pass@k, majority vote); lm-eval always has an output, and its repeats are not
  mapped to lexsym's summaries.
- **Open questions.** OPEN tasks need a judge (`lexsym judge`) and are not exported.
"""


def _metrics_table(tasks: list[str]) -> str:
    lines = ["| task | metric | aggregation | better |", "|---|---|---|---|"]
    for task in tasks:
        for spec in metric_specs(task):
            aggregation = {
                "mean": "mean over samples",
                "nanmean": "nanmean: mean over the samples that have it",
                "median": "median over the samples that have it (`utils.median_over_defined`)",
            }[spec.aggregation]
            better = "higher" if spec.higher_is_better else "lower"
            lines.append(f"| {task} | {spec.name} | {aggregation} | {better} |")
    return "\n".join(lines)


def lm_eval_readme(export: LmEvalExport, *, system: str, max_gen_toks: int) -> str:
    """The README.md text for `export`, made with the `system` mode and `max_gen_toks`."""
    suites = "\n".join(
        f"| {suite} | {', '.join(f'`{name}`' for name in names.values())} |"
        for suite, names in export.tasks.items()
    )
    types = [task for task in SCORED_ORDER if any(task in names for names in export.tasks.values())]
    first = identifier(next(iter(export.tasks)))
    if system == "message":
        prompts = (
            "Each document's `system` field is the task's `description`, which lm-eval sends as the "
            "system message when run with `--apply_chat_template`; `doc_to_text` is the user message. So "
            "with a chat template the model gets exactly the two messages `lexsym run` sends. Without one, "
            "lm-eval joins the description and the text with nothing between them: for a model without a "
            "chat template, export with `--system inline` instead."
        )
    else:
        prompts = (
            "Exported with `--system inline`: `doc_to_text` is the system message, a blank line, and the "
            "user message, as one text, for models without a chat template. lexsym itself sends two chat "
            "messages; export with `--system message` (the default) and run with `--apply_chat_template` "
            "for that."
        )
    skipped = ""
    if export.skipped:
        left = ", ".join(f"{n} {task}" for task, n in sorted(export.skipped.items()))
        skipped = f"\nLeft out: {left} task(s), which lm-eval cannot score with lexsym.\n"
    return f"""# lexsym benchmark for lm-evaluation-harness

Written by `lexsym export lm-eval` (lexsym {__version__}): {export.documents:,} documents.
The gold answers were computed by lexsym's logic program (clingo); scoring is lexsym's own.

| suite | tasks |
|---|---|
{suites}

Groups: `lexsym_<suite>` (a suite's tasks, no aggregate: lexsym never averages unlike tasks),
`lexsym_<task>` (one task type over every suite) and `lexsym` (all of them).
{skipped}
## Requirements

`utils.py` imports lexsym (`lexsym.publish.lm_eval_hooks`): install it where lm_eval runs,
`pip install 'lexsym[lmeval]'` (lexsym {__version__} or later). Scoring an OE answer runs the logic program.
The documents are zstd parquet files under `<suite>/data/`, read with pyarrow (which lm_eval's `datasets`
brings).

## Running

```bash
lm_eval --model hf --model_args pretrained=Qwen/Qwen3-8B --include_path . --tasks lexsym \\
    --apply_chat_template --bootstrap_iters 1000
lm_eval --model vllm --model_args pretrained=Qwen/Qwen3-8B --include_path . --tasks lexsym_{first} \\
    --apply_chat_template --log_samples --output_path results
```

Each task evaluates its suite's test split (dev, where present, is the validation split); prompts are
zero-shot, as `lexsym run` sends them. Generation: greedy (temperature 0), no stop sequence, at most
{max_gen_toks:,} new tokens (`lexsym export lm-eval --max-gen-toks`).

## Prompts

{textwrap.fill(prompts, 105)}

## Metrics

`process_results` scores each output with lexsym's per-sample scorer (the answer read as `lexsym score`
reads it, assets aligned, citations normalised, OE schedules checked by the logic program); a metric a
sample does not have is NaN and is left out of its aggregate. The means equal `lexsym score`'s on the same
outputs (its per-suite rows).

{_metrics_table(types)}

## What lm-eval cannot reproduce

{CANNOT_REPRODUCE}"""
