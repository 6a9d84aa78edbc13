"""`lexsym exam`: law-exam datasets (LEXam, KCL) converted to task records, MCQs scored, questions built."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.console import table_console
from lexsym.cli.common import fail

exam_app = typer.Typer(
    no_args_is_help=True, help="Law-exam datasets (LEXam, KCL): convert to task records, score MCQs."
)


_WARNINGS_SHOWN = 5  # warnings printed one by one; the manifest lists them all


class ExamFormatName(str, Enum):
    lexam_mcq = "lexam-mcq"
    lexam_open = "lexam-open"
    kcl_essay = "kcl-essay"
    kcl_mcqa = "kcl-mcqa"


class LabelStyle(str, Enum):
    letters = "letters"
    numbers = "numbers"


class ContextSetting(str, Enum):
    none = "none"
    precedents = "precedents"


@exam_app.command("convert")
def exam_convert(
    source: Annotated[
        str,
        typer.Argument(
            help="A .jsonl, .csv or .xlsx file, a saved `datasets` directory, or "
            "hf:OWNER/NAME[:CONFIG][@REVISION]."
        ),
    ],
    format_: Annotated[ExamFormatName, typer.Option("--format", help="The dataset's format.")],
    out: Annotated[Path, typer.Option(help="Output directory: tasks.jsonl and manifest.json.")],
    shuffle_seed: Annotated[
        int | None, typer.Option(help="Shuffle MCQ options with this seed (the permutation is recorded).")
    ] = None,
    labels: Annotated[LabelStyle, typer.Option(help="MCQ option labels: A, B, ... or 1, 2, ...")] = (
        LabelStyle.letters
    ),
    context: Annotated[
        ContextSetting, typer.Option(help="KCL: put the supporting precedents into the prompt.")
    ] = ContextSetting.none,
    max_context_chars: Annotated[
        int | None, typer.Option(help="Precedent characters per question at most (fair-share cut).")
    ] = None,
    kcl_cut: Annotated[
        bool,
        typer.Option(
            "--kcl-cut/--no-kcl-cut",
            help="KCL essays with precedents: cut the precedents of KCL's eleven long-precedent questions "
            "before the first '\\n\\n사건', as KCL's own evaluation does.",
        ),
    ] = True,
    split: Annotated[str, typer.Option(help="The split to read (Hugging Face) and to record.")] = "test",
    name: Annotated[
        str | None, typer.Option(help="Dataset name, the id prefix (default: the format).")
    ] = None,
    sheet: Annotated[str | None, typer.Option(help="XLSX: the sheet to read (default: the first).")] = None,
    cache_dir: Annotated[
        str | None, typer.Option(help="Hugging Face: the `datasets` cache directory.")
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="Skip invalid rows (listed in the manifest) instead of failing."),
    ] = False,
) -> None:
    """Convert exam items into task records (MCQ or OPEN), the layout `lexsym generate` writes."""
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.items import ExamFormat
    from lexsym.exams.tasks import ConvertOptions, convert

    options = ConvertOptions(
        name=name,
        split=split,
        shuffle_seed=shuffle_seed,
        labels=labels.value,
        context=context.value,
        max_context_chars=max_context_chars,
        kcl_cut=kcl_cut,
    )
    options.check(ExamFormat(format_.value))  # bad settings fail before the source is read
    loaded = load_exam(
        source, format_.value, split=split, sheet=sheet, cache_dir=cache_dir, strict=not skip_invalid
    )
    manifest = convert(loaded, out, options)
    for warning in loaded.warnings[:_WARNINGS_SHOWN]:
        sys.stderr.write(f"lexsym: warning: {warning}\n")
    if len(loaded.warnings) > _WARNINGS_SHOWN:
        sys.stderr.write(
            f"lexsym: warning: and {len(loaded.warnings) - _WARNINGS_SHOWN} more (manifest.json)\n"
        )
    skipped = f", {len(loaded.errors)} invalid rows skipped" if loaded.errors else ""
    short = (
        f", {len(loaded.warnings)} rows show fewer statements than n_statements (kept; listed in the "
        "manifest's warnings)"
        if loaded.warnings
        else ""
    )
    sys.stdout.write(f"lexsym exam convert: {manifest['tasks']} tasks written to {out}{skipped}{short}\n")


@exam_app.command("score")
def exam_score(
    tasks: Annotated[Path, typer.Argument(help="A tasks.jsonl with MCQ records.")],
    predictions: Annotated[Path, typer.Argument(help="Model predictions (JSONL), as `lexsym score` reads.")],
    cluster_by: Annotated[
        str, typer.Option(help="Cluster SEs by this metadata field, or 'exam' (course and year).")
    ] = "course",
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap standard errors.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    json_output: Annotated[bool, typer.Option("--json", help="Print the evaluation as JSON.")] = False,
    out: Annotated[Path | None, typer.Option(help="Write the evaluation JSON to this file.")] = None,
) -> None:
    """MCQ accuracy with bootstrap and clustered SEs, extraction failures apart, and position bias."""
    from lexsym.scoring.mcq_evaluation import evaluate
    from lexsym.scoring.mcq_report import evaluation_json, render_evaluation

    if resamples < 2:
        fail("--resamples must be at least 2", 2)
    report = evaluate(tasks, predictions, cluster_by=cluster_by, seed=seed, resamples=resamples)
    text = evaluation_json(report)
    if out is not None:
        from lexsym._util.atomic import write_atomic

        write_atomic(out, text + "\n")
    if json_output:
        sys.stdout.write(text + "\n")
        return

    console = table_console()
    render_evaluation(report, console)


@exam_app.command("build")
def exam_build(
    statements: Annotated[
        Path,
        typer.Argument(
            help='JSONL: {"id", "stem", "statements": [{"text", "correct"}], "negated", "language", ...}.'
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output JSONL in LEXam's 4/8/16/32-choice shape.")],
    k: Annotated[list[int] | None, typer.Option("--k", help="Choice counts (default 4 8 16 32).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of distractors and option order.")] = 0,
    nested: Annotated[
        bool, typer.Option("--nested", help="Each version's distractors include the smaller versions' ones.")
    ] = False,
) -> None:
    """Build k-choice questions from numbered true/false statements, as LEXam does."""
    from lexsym.exams.statements import build_statement_file

    count = build_statement_file(statements, out, ks=tuple(k or (4, 8, 16, 32)), seed=seed, nested=nested)
    sys.stdout.write(f"lexsym exam build: {count} questions written to {out}\n")


@exam_app.command("fingerprint")
def exam_fingerprint(
    source: Annotated[str, typer.Argument(help="A file, a saved `datasets` directory, or hf:OWNER/NAME...")],
    split: Annotated[str, typer.Option(help="Hugging Face: the split.")] = "test",
    cache_dir: Annotated[
        str | None, typer.Option(help="Hugging Face: the `datasets` cache directory.")
    ] = None,
) -> None:
    """Print what pins a source (sha256 or revision) as JSON, for run headers."""
    from lexsym.exams.sources import source_fingerprint

    sys.stdout.write(
        json.dumps(source_fingerprint(source, split=split, cache_dir=cache_dir), indent=2) + "\n"
    )
