"""The columns of the results table: name, type and meaning, in table order.

Why a fixed list: a researcher joins, filters and plots by these names, so each is documented once
(`lexsym schema sample` prints them) and typed once (CSV and parquet agree on types). Metadata fields are
not listed here: every field of a task record's `metadata` becomes a column of its own (nested ones
joined by dots, `obfuscation.asset_opinions`; a list joined by commas), typed from its values.
"""

from __future__ import annotations

from typing import Any

#: (name, type, meaning). Types: string, int, float, bool.
BASE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run", "string", "The run directory's name (its last path part)."),
    ("run_dir", "string", "The run directory as given."),
    ("model", "string", "The answering model's id (run.json `model`)."),
    (
        "params_digest",
        "string",
        "sha256 (12 hex) of the run's generation settings: runs with the same model "
        "and another digest were sampled differently.",
    ),
    ("run_status", "string", "complete, stopped or running (run.json `status`)."),
    ("sample_id", "string", "The sample: the task id, plus #r<repeat> in runs with repeats."),
    ("task_id", "string", "The task record's id."),
    ("repeat", "int", "The repeat (epoch) index; 0 is the headline."),
    ("task", "string", "AE, EC, EV, NA, OE (generated) or MCQ, OPEN (exams)."),
    ("variant", "string", "The task's variant (prompt setting)."),
    ("suite", "string", "The suite the task was generated or converted in."),
    ("dataset", "string", "The dataset within the suite."),
    ("split", "string", "dev or test."),
    (
        "solved_steps",
        "string",
        "The earlier steps given solved in the prompt (OpenExempt's chaining), joined "
        "by ','; empty when none.",
    ),
    ("n_solved_steps", "int", "How many earlier steps the prompt gives solved."),
    ("prompt_chars", "int", "Characters of the prompt sent (system and user)."),
    ("completion_chars", "int", "Characters of the completion (0 when the call failed)."),
    ("reasoning_chars", "int", "Characters of the reasoning returned apart or in <think> blocks."),
    ("answer", "string", "The answer span read from the completion (after FINAL ANSWER), if any."),
    ("parsed", "bool", "Whether an answer was found and read (a format failure otherwise)."),
    ("parse_error", "string", "Why the answer could not be read."),
    ("error", "string", "Why the call failed (no completion), one line."),
    ("error_kind", "string", "permanent or transient."),
    ("finish_reason", "string", "stop, length, ... as the backend reported it."),
    ("tokens_in", "int", "Prompt tokens."),
    ("tokens_out", "int", "Completion tokens."),
    ("cost", "float", "Dollars spent on the sample in this run (0 for a cache hit)."),
    ("latency", "float", "Seconds of the successful call."),
    ("attempts", "int", "Model calls made for the sample."),
    ("cached", "bool", "Answered from the response cache."),
    ("format", "float", "1 when the answer was read, else 0 (scores.json)."),
    ("precision", "float", "Per-sample precision (AE, EC, EV, NA, OE)."),
    ("recall", "float", "Per-sample recall."),
    ("f1", "float", "Per-sample F1."),
    ("mare", "float", "MARE (OpenExempt, /(gold+1)) of the sample's matched amounts (EV, NA, OE)."),
    ("median_re", "float", "Median relative error of the sample's matched amounts (EV, NA, OE)."),
    ("valid", "float", "OE: 1 when the schedule breaks no rule."),
    ("optimal", "float", "OE: 1 when valid and leaving exactly the optimum's non-exempt value."),
    ("gap_percent", "float", "OE: non-exempt value above the optimum, in percent (valid schedules)."),
    ("within_tolerance", "float", "OE: 1 when valid and within 5 % of the optimum's non-exempt total."),
    ("accuracy", "float", "MCQ: 1 when the gold option was chosen."),
    ("violations", "string", "OE: the rules the schedule breaks, joined by ';'."),
    ("n_violations", "int", "OE: how many rules the schedule breaks."),
    ("judge_grade", "float", "OPEN: the judges' combined grade, 0-1 (judged.json)."),
    ("judge_status", "string", "OPEN: ok, failed, pending, no_answer or empty_answer."),
)
"""Per judge, a further column `judge:<model id>` (float) holds that judge's own grade, 0-1."""

SCORE_COLUMNS = (
    "format",
    "precision",
    "recall",
    "f1",
    "mare",
    "median_re",
    "valid",
    "optimal",
    "gap_percent",
    "within_tolerance",
    "accuracy",
)
BASE_NAMES = tuple(name for name, _, _ in BASE_COLUMNS)
BASE_TYPES = {name: kind for name, kind, _ in BASE_COLUMNS}
JUDGE_PREFIX = "judge:"


def infer_type(values: list[Any]) -> str:
    """The column type of a metadata field from its values (None ignored): bool, int, float or string."""
    present = [value for value in values if value is not None]
    if not present:
        return "string"
    if all(isinstance(value, bool) for value in present):
        return "bool"
    if all(isinstance(value, int) and not isinstance(value, bool) for value in present):
        return "int"
    if all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in present):
        return "float"
    return "string"


def describe(types: dict[str, str]) -> list[dict[str, str]]:
    """Every column of a table with its type and meaning, for `lexsym schema sample` and exports."""
    meanings = {name: meaning for name, _, meaning in BASE_COLUMNS}
    described = []
    for name, kind in types.items():
        if name in meanings:
            meaning = meanings[name]
        elif name.startswith(JUDGE_PREFIX):
            meaning = f"OPEN: the grade of judge {name.removeprefix(JUDGE_PREFIX)}, 0-1."
        else:
            meaning = "A field of the task record's metadata."
        described.append({"name": name, "type": kind, "description": meaning})
    return described


def row_schema() -> dict[str, Any]:
    """A JSON Schema of one row of the results table (what `lexsym schema sample` prints)."""
    json_types = {"string": "string", "int": "integer", "float": "number", "bool": "boolean"}
    return {
        "title": "lexsym results table: one row per (run, sample, repeat)",
        "type": "object",
        "properties": {
            name: {"type": [json_types[kind], "null"], "description": meaning}
            for name, kind, meaning in BASE_COLUMNS
        },
        "patternProperties": {
            "^judge:": {"type": ["number", "null"], "description": "OPEN: one judge's grade, 0-1."}
        },
        "additionalProperties": {
            "description": "A field of the task record's metadata: nested keys joined by dots "
            "(obfuscation.asset_opinions), lists joined by commas; typed from its values."
        },
    }
