"""`lexsym export openexempt`: a lexsym task set written in OpenExempt's dataset layout (to be registered
in the `export` group by cli/__init__.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer


def export_openexempt_command(
    tasks: Annotated[
        Path, typer.Argument(help="A tasks.jsonl from `lexsym generate`, its folder, or a folder of suites.")
    ],
    out: Annotated[Path, typer.Option(help="The folder to write (empty, new, or a previous export).")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the export summary as JSON.")] = False,
) -> None:
    """Write OpenExempt dataset folders (config, shared, tasks, native cases), statute files holding lexsym's
    figures, and LOSSES.md: everything OpenExempt's format could not carry over."""
    from lexsym.interop.openexempt_export import export_openexempt

    summary = export_openexempt(tasks, out)
    if json_output:
        sys.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return
    sys.stdout.write(summary_text(summary, out))


def summary_text(summary: dict, out: Path) -> str:
    """One screen: tasks and datasets written, what was left out or changed, where to read more."""
    counts = summary["tasks"]
    datasets = [d for d in summary["datasets"] if d["path"]]
    lines = [
        f"lexsym export openexempt: {counts['test']} test and {counts['dev']} dev tasks in {len(datasets)} "
        f"dataset(s) written to {out}",
    ]
    for suite, reader in summary["suites"].items():
        lines.append(
            f"  {suite}/: {sum(1 for d in datasets if d['path'].startswith(suite + '/'))} dataset(s), "
            f"{reader}"
        )
    for folder, start in summary["statutes"].items():
        lines.append(f"  {folder}/: lexsym's figures in force from {start}")
    dropped = [d for d in summary["datasets"] if d["dropped"]]
    if dropped:
        lines.append(
            f"  left out: {counts['dropped']} task(s), in "
            + ", ".join(f"{d['dataset_id']} ({d['dropped']})" for d in dropped[:6])
            + (", ..." if len(dropped) > 6 else "")
        )
    changed = sorted({key for d in summary["datasets"] for key in d["outside_openexempt_ranges"]})
    if changed:
        lines.append("  outside OpenExempt's config ranges (nearest value written): " + ", ".join(changed))
    lines.append(
        f"  {summary['statute_losses']} statute rule(s) OpenExempt cannot state; see {out / 'LOSSES.md'}"
    )
    return "\n".join(lines) + "\n"
