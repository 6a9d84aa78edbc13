"""`lexsym export lm-eval` and `lexsym export hf`: a benchmark published for another harness, or for the
Hugging Face Hub (`lexsym.publish`). Libraries are imported when a command runs, so `lexsym` starts fast."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

TASKS_HELP = (
    "A tasks.jsonl, a folder with one, or a folder of suite folders (`lexsym generate --all-suites`)."
)


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        sys.stderr.write(f"lexsym export: warning: {warning}\n")


def lm_eval(
    tasks_dir: Annotated[Path, typer.Argument(help=TASKS_HELP)],
    out: Annotated[
        Path, typer.Option(help="The folder to write (replaced if it holds an earlier lm-eval export).")
    ],
    system: Annotated[
        str,
        typer.Option(
            help="message: the system prompt is the task's description (sent as the system turn with "
            "--apply_chat_template); inline: system and user prompt as one text, for models without a "
            "chat template."
        ),
    ] = "message",
    max_gen_toks: Annotated[int, typer.Option(help="lm-eval's limit on new tokens per answer.")] = 8192,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was written as JSON on stdout.")
    ] = False,
) -> None:
    """Write lm-evaluation-harness tasks (one per suite and task type) that score with lexsym's scorer."""
    from lexsym.publish.lm_eval_export import export_lm_eval

    result = export_lm_eval(tasks_dir, out, system=system, max_gen_toks=max_gen_toks)
    _warn(result.warnings)
    tasks = sum(len(names) for names in result.tasks.values())
    if result.skipped:
        left = ", ".join(f"{n} {task}" for task, n in sorted(result.skipped.items()))
        sys.stderr.write(f"lexsym export: left out {left} task(s): lm-eval cannot score them with lexsym\n")
    if as_json:
        summary = {
            "out": str(out),
            "documents": result.documents,
            "tasks": result.tasks,
            "skipped": result.skipped,
        }
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    sys.stderr.write(
        f"lexsym export lm-eval: {result.documents:,} documents in {tasks} task(s) of {len(result.tasks)} "
        f"suite(s) to {out}; run: lm_eval --include_path {out} --tasks lexsym --apply_chat_template ...\n"
    )


def hf(
    tasks_dir: Annotated[Path, typer.Argument(help=TASKS_HELP)],
    out: Annotated[
        Path, typer.Option(help="The folder to write (replaced if it holds an earlier hf export).")
    ],
    license: Annotated[str, typer.Option(help="The dataset card's license (a Hub license id).")] = "mit",
    name: Annotated[str | None, typer.Option(help="The dataset card's pretty_name.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was written as JSON on stdout.")
    ] = False,
) -> None:
    """Write a Hugging Face dataset folder: parquet splits per suite, shared prompt texts, a dataset card."""
    from lexsym.publish.hf_export import export_hf

    result = export_hf(tasks_dir, out, license=license, pretty_name=name)
    _warn(result.warnings)
    rows = sum(sum(splits.values()) for splits in result.rows.values())
    if as_json:
        summary = {
            "out": str(out),
            "rows": result.rows,
            "shared_texts": result.shared_texts,
            "bytes_written": result.bytes_written,
            "prompt_chars": result.prompt_chars,
            "stored_prompt_chars": result.stored_prompt_chars,
        }
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    sys.stderr.write(
        f"lexsym export hf: {rows:,} rows in {len(result.rows)} suite config(s), {result.shared_texts} "
        f"shared text(s), {result.bytes_written / 1e6:.1f} MB to {out} (prompts: "
        f"{result.prompt_chars / 1e6:.1f} M characters, {result.stored_prompt_chars / 1e6:.1f} M stored)\n"
    )
