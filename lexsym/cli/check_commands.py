"""`lexsym check` and `lexsym score`: answers judged by the logic program, one file or a whole run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.console import table_console
from lexsym._util.parallel import Executor
from lexsym.cli.common import by_fields, fail


def check(
    answer_file: Annotated[
        Path,
        typer.Argument(
            help="An answer file (see `lexsym schema answer`), or a .jsonl file of them, one per line."
        ),
    ],
    case: Annotated[Path | None, typer.Option(help="The case, if the answer file does not carry it.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="A .jsonl of answers: write one verdict line per answer here (resumed if it exists)."
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(help="A .jsonl of answers: processes to use (0: one per core).")
    ] = 1,
    executor: Annotated[
        Executor, typer.Option(help="A .jsonl of answers: local processes, or a Ray cluster.")
    ] = Executor.local,
) -> None:
    """Judge answers against the logic program: exit 0 all correct, 1 wrong or suboptimal, 2 bad input.

    Given a .jsonl file, every line is an answer record judged in one batch: one line per answer on the
    terminal (or --json lines), or verdict lines in --out; a line that cannot be read or checked is
    recorded and the batch goes on (exit 1)."""
    if answer_file.suffix == ".jsonl":
        _check_batch(answer_file, case, json_output, out, workers, executor)
    if out is not None:
        fail("--out is for a .jsonl file of answers; a single answer file prints its verdicts", 2)
    from lexsym.check.answer_file import check_answer_file, load_answer_file

    answer, loaded = load_answer_file(answer_file, case)
    report = check_answer_file(answer, loaded)
    if json_output:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    else:
        for verdict in report.verdicts:
            status = "correct" if verdict.correct else ("unparseable" if not verdict.parsed else "WRONG")
            if verdict.task.value == "OE" and verdict.parsed:
                status = (
                    "valid and optimal"
                    if verdict.correct
                    else ("INVALID" if verdict.violations else "valid but NOT optimal")
                )
            sys.stdout.write(f"{verdict.task.value}: {status}\n")
            if verdict.error:
                sys.stdout.write(f"  format: {verdict.error}\n")
            for violation in verdict.violations:
                sys.stdout.write(f"  - {violation['name']}: {violation['message']}\n")
            for difference in verdict.differences:
                sys.stdout.write(f"  - {difference}\n")
            if (
                verdict.task.value == "OE"
                and verdict.parsed
                and verdict.protected is not None
                and verdict.gap is not None
            ):
                sys.stdout.write(
                    f"  protects ${verdict.protected:,} of the optimum ${verdict.optimal_protected:,} "
                    f"(gap ${verdict.gap:,}, {verdict.gap_percent:.1f}%)\n"
                )
    raise typer.Exit(0 if report.all_correct else 1)


def _check_batch(
    answers: Path, case: Path | None, json_output: bool, out: Path | None, workers: int, executor: Executor
) -> None:
    """`lexsym check ANSWERS.jsonl`: exit 0 when every answer is right, 1 when one is wrong or a line could
    not be checked, 2 when the file itself cannot be used."""
    import json
    import os

    from lexsym.check.answer_batch import CheckOutcome, check_answers

    def show(outcome: CheckOutcome) -> None:
        if out is not None:
            return
        if json_output:
            sys.stdout.write(json.dumps(outcome.record(), ensure_ascii=False, sort_keys=True) + "\n")
        elif outcome.report is None:
            sys.stdout.write(f"line {outcome.line}: error: {outcome.error}\n")
        else:
            verdicts = ", ".join(
                f"{v.task.value} {'correct' if v.correct else ('unparseable' if not v.parsed else 'WRONG')}"
                for v in outcome.report.verdicts
            )
            sys.stdout.write(f"line {outcome.line} ({outcome.case_id}): {verdicts}\n")

    counts = check_answers(
        answers,
        out,
        case_override=case,
        workers=workers or os.cpu_count() or 1,
        executor=executor,
        on_outcome=show,
    )
    summary = (
        f"{counts.checked + counts.failed} answers: {counts.correct} all correct, "
        f"{counts.wrong} with a wrong task, {counts.failed} not checked"
        + (f" ({counts.resumed} resumed)" if counts.resumed else "")
    )
    sys.stderr.write(summary + "\n")
    if counts.checked == 0 and counts.failed and not counts.resumed:
        fail(f"{answers}: no answer could be checked; first error: {counts.errors[0]}", 2)
    raise typer.Exit(0 if counts.wrong == 0 and counts.failed == 0 else 1)


def score(
    tasks: Annotated[
        Path, typer.Argument(help="A tasks.jsonl written by `lexsym generate`, or a run directory.")
    ],
    predictions: Annotated[
        Path | None,
        typer.Argument(
            help='Model predictions (JSONL): "id" and the raw text in "output", "completion", "prediction", '
            '"response" or "text", or a parsed "answer". Not given with a run directory.'
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the ScoreReport as JSON.")] = False,
    out: Annotated[
        Path | None, typer.Option(help="Write the ScoreReport JSON to this file (atomically).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap standard errors.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    by: Annotated[
        str,
        typer.Option(
            help="Rows of the table: task, variant or suite; or, within each task, the values of any task "
            "field (metadata paths like asset_count or obfuscation.asset_opinions, split, dataset, "
            "solved_steps; a list joined by ',', a missing value '–'), comma-separated for their cross "
            "product (JSON: by_fields)."
        ),
    ] = "task",
    workers: Annotated[
        int, typer.Option(help="Processes checking OE cases (0: one per core), --executor local.")
    ] = 0,
    executor: Annotated[
        Executor,
        typer.Option(help="Where OE cases are checked: local processes, or a Ray cluster (RAY_ADDRESS)."),
    ] = Executor.local,
    table: Annotated[
        str | None,
        typer.Option(
            help="OpenExempt input only: the statutes to re-gold under, openexempt (default: the parameters "
            "its prompts state, from its statute files) or lexsym."
        ),
    ] = None,
    statutes: Annotated[
        Path | None,
        typer.Option(
            help="OpenExempt input only: its data/statutes folder (default: found from its configs)."
        ),
    ] = None,
) -> None:
    """Score predictions: per-task precision, recall, F1 (± bootstrap SE), MARE, format and OE validity.

    TASKS may also be OpenExempt's own files (a dataset or suite folder, or a test.jsonl beside shared.json)
    and PREDICTIONS its response files (`{"uid", "prediction"}`; a folder: every predictions.jsonl under
    it): the tasks are re-golded by the logic program first."""
    from lexsym.interop.openexempt_dataset import looks_like_openexempt
    from lexsym.scoring import render_report
    from lexsym.scoring import score as run

    fields = by_fields(by)
    by = ",".join(fields) or by
    if resamples < 2:
        fail("--resamples must be at least 2", 2)
    if (tasks / "run.json").is_file():
        if predictions is not None:
            fail("a run directory holds its own predictions: give only the directory", 2)
        _score_run_dir(
            tasks, json_output=json_output, out=out, seed=seed, resamples=resamples, by=by, fields=fields
        )
        return
    if predictions is None:
        fail("give the predictions file (or a run directory instead of the tasks file)", 2)
    if looks_like_openexempt(tasks):
        report = _score_openexempt(
            tasks, predictions, table, statutes, seed, resamples, workers, fields, executor
        )
    else:
        if table is not None or statutes is not None:
            fail(
                "--table and --statutes apply to OpenExempt's files only (a lexsym task set has its gold)", 2
            )
        report = run(
            tasks, predictions, seed=seed, resamples=resamples, workers=workers, by=fields, executor=executor
        )
    if out is not None or json_output:
        text = report.model_dump_json(indent=2)
        if out is not None:
            from lexsym._util.atomic import write_atomic

            write_atomic(out, text + "\n")
        if json_output:
            sys.stdout.write(text + "\n")
    if not json_output:
        console = table_console()
        render_report(report, console, by=by)


def _score_run_dir(
    run_dir: Path,
    *,
    json_output: bool,
    out: Path | None,
    seed: int,
    resamples: int,
    by: str,
    fields: tuple[str, ...] = (),
) -> None:
    """A run directory's scores: the exact ones (scores.json; sliced by `fields` from its per-sample rows
    and the run's task file) and the judged ones, recomputed from the judgements with this seed (judge
    calls are never repeated for a table)."""
    from lexsym.judges.scores import rescore_run
    from lexsym.scoring import ScoreReport, render_report

    exact = None
    if (run_dir / "scores.json").is_file():
        try:
            exact = ScoreReport.model_validate_json((run_dir / "scores.json").read_text(encoding="utf-8"))
        except ValueError as error:
            fail(f"{run_dir / 'scores.json'}: unreadable ({str(error).splitlines()[0]})", 2)
    if fields:
        if exact is None:
            fail(f"{run_dir}: no scores.json to slice by {by} (judged grades are not sliced)", 2)
        from lexsym.reports.compare import task_records
        from lexsym.scoring.slices import sliced_report

        path, records = task_records(run_dir)
        exact = sliced_report(exact, records, fields, str(path))
    judged = rescore_run(run_dir, seed=seed, resamples=resamples)
    if exact is None and judged is None:
        fail(f"{run_dir}: no scores yet: run `lexsym run` to the end, or `lexsym judge {run_dir}`", 2)
    payload = {
        "scores": None if exact is None else json.loads(exact.model_dump_json()),
        "judged": None if judged is None else json.loads(judged.model_dump_json(exclude={"samples"})),
    }
    if out is not None:
        from lexsym._util.atomic import write_atomic

        write_atomic(out, json.dumps(payload, indent=2) + "\n")
    if json_output:
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return

    from lexsym.judges.report import render_judged

    console = table_console()
    if exact is not None:
        render_report(exact, console, by=by)
    if judged is not None:
        render_judged(judged, console)


def _score_openexempt(
    tasks: Path,
    predictions: Path,
    table: str | None,
    statutes: Path | None,
    seed: int,
    resamples: int,
    workers: int,
    fields: tuple[str, ...],
    executor: Executor = Executor.local,
):
    """OpenExempt's tasks re-golded into a temporary lexsym task set, then scored like any other."""
    import tempfile

    from lexsym.generate.openexempt_import import regold_for_scoring
    from lexsym.interop.openexempt_responses import gather_responses
    from lexsym.scoring import score as run

    with tempfile.TemporaryDirectory(prefix="lexsym-openexempt-") as scratch:
        regolded = regold_for_scoring(
            Path(tasks), Path(scratch), table=table, statutes=statutes, workers=workers, executor=executor
        )
        responses = gather_responses(Path(predictions), Path(scratch) / "predictions.jsonl")
        report = run(
            regolded, responses, seed=seed, resamples=resamples, workers=workers, by=fields, executor=executor
        )
    return report.model_copy(update={"tasks_path": str(tasks), "predictions_path": str(predictions)})
