"""The `lexsym` command: one verb per job, rich tables for people, `--json` for machines.

This module assembles the Typer app from the verb groups (`law_commands`, `generate_commands`,
`check_commands`, `run_commands`, `analysis_commands` with `publish_commands` and
`openexempt_export_commands` under `export`, `judge_commands`, `exam_commands`, `import_commands`) and
turns errors into exit codes. Exit codes: 0 ok; 1 the answer is wrong or a rule is broken (checking
verbs), or a run failed (`run`, `judge`); 2 bad input or a rule file clingo refuses; 3 an internal
error. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import os

import typer

from lexsym._util.errors import LexsymError, os_problem
from lexsym.cli import (
    analysis_commands,
    check_commands,
    doc_commands,
    evalset_commands,
    generate_commands,
    law_commands,
    lint_commands,
    run_commands,
    view_commands,
)
from lexsym.cli.common import fail
from lexsym.cli.exam_commands import exam_app
from lexsym.cli.import_commands import import_app
from lexsym.cli.judge_commands import judge_app
from lexsym.cli.new_commands import new_app
from lexsym.cli.run_commands import cache_app

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Bankruptcy exemption law as a logic program: solve cases, check answers, evaluate models.",
)
# In this order in `lexsym --help`.
app.command()(law_commands.solve)
app.command()(check_commands.check)
app.command()(law_commands.explain)
app.command()(lint_commands.lint)
app.command()(law_commands.test)
app.command()(doc_commands.doc)
app.command()(generate_commands.generate)
app.command()(check_commands.score)
app.command()(run_commands.run)
app.command()(run_commands.report)
app.command("eval-set")(evalset_commands.eval_set)
app.add_typer(analysis_commands.export_app, name="export")
app.command()(view_commands.view)
app.add_typer(cache_app, name="cache")
app.add_typer(judge_app, name="judge")
app.add_typer(exam_app, name="exam")
app.add_typer(import_app, name="import")
app.add_typer(new_app, name="new")
app.command()(law_commands.schema)


def main() -> None:
    """Entry point: run the app, turning lexsym's errors into one line and an exit code."""
    try:
        app()
    except LexsymError as error:
        fail(str(error), error.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except OSError as error:  # a write no verb turned into its own message: still the file and the reason
        fail(f"cannot write or read {os_problem(error)}", 2)
    except Exception as error:
        if os.environ.get("LEXSYM_DEBUG"):
            raise
        fail(f"internal error: {error.__class__.__name__}: {error} (set LEXSYM_DEBUG=1 for a traceback)", 3)
