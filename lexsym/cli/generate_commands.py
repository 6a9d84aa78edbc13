"""`lexsym generate`: task sets with gold answers from the logic program."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.parallel import Executor
from lexsym.cli.common import fail


def generate(
    out: Annotated[Path, typer.Option(help="Output directory.")],
    suite: Annotated[
        str | None, typer.Option(help="A suite name (data/suites) or a suite YAML file.")
    ] = None,
    config: Annotated[Path | None, typer.Option(help="A single-dataset config (YAML/JSON).")] = None,
    all_suites: Annotated[
        bool, typer.Option("--all-suites", help="Every suite: the whole benchmark.")
    ] = False,
    seed: Annotated[int | None, typer.Option(help="Override the seed of every dataset.")] = None,
    workers: Annotated[int, typer.Option(help="Processes to use (0: one per core), --executor local.")] = 0,
    executor: Annotated[
        Executor,
        typer.Option(
            help="Where cases are solved: local processes, or a Ray cluster (RAY_ADDRESS, else one here)."
        ),
    ] = Executor.local,
) -> None:
    """Generate tasks with gold answers from the logic program: tasks.jsonl and manifest.json."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from lexsym.generate.config import load_config
    from lexsym.generate.pipeline import generate as run
    from lexsym.generate.suites import SUITE_NAMES, Dataset, load_suite

    chosen = [bool(suite), config is not None, all_suites]
    if sum(chosen) != 1:
        fail("give exactly one of --suite, --config, --all-suites", 2)
    if all_suites:
        datasets = [d for name in SUITE_NAMES for d in load_suite(name, seed=seed)]
    elif suite:
        datasets = load_suite(suite, seed=seed)
    else:
        loaded = load_config(config)
        if seed is not None:
            loaded = loaded.model_copy(update={"seed": seed})
        datasets = [Dataset(suite="custom", name=loaded.name, config=loaded)]
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task("cases", total=None)
        manifest = run(
            datasets,
            out,
            workers=workers or None,
            executor=executor,
            per_suite=all_suites,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    sys.stdout.write(f"lexsym generate: {manifest['tasks']} tasks written to {out}\n")
