"""What the viewer shows: the sample list (the results table's rows, plus each sample's outcome) and, per
sample, its detail record: the prompt, the raw completion and the reasoning, the extracted answer or why
none could be read, the gold, the per-field differences, the checker's violations in plain English with
citations, and the judges' replies.

Everything is plain data (`viewer_data`), so the page embeds it as JSON and needs no server to open a
sample; the same data serves `--out` and the local server.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lexsym.analysis import load_table
from lexsym.analysis.columns import SCORE_COLUMNS
from lexsym.answers import OEAnswer, parse_answer
from lexsym.runner.scores import answer_text
from lexsym.runner.tasksets import TASKS
from lexsym.viewer.fields import choice_difference, field_differences
from lexsym.viewer.run_files import RunFiles, read_run
from lexsym.viewer.violations import check_oe_answers

OUTCOMES = ("error", "unparsed", "invalid", "wrong", "suboptimal", "partial", "right", "unscored", "unjudged")
"""A sample's outcome, worst first: the call failed, no answer could be read, an OE schedule breaks a rule,
wrong (F1 below 1, the wrong option, a judge grade below 0.5), a valid OE schedule short of the optimum, a
judge grade from 0.5 to below 1, right, not scored (yet), an open answer not judged (yet)."""
FAILING = ("error", "unparsed", "invalid", "wrong", "suboptimal", "partial")

OE_GOLD_NOTE = (
    "The gold is one optimal schedule; another schedule can be as good. The checker's verdict decides."
)


def outcome(row: dict[str, Any]) -> str:
    """The outcome (one of OUTCOMES) of a results-table row."""
    if row.get("error"):
        return "error"
    task = row.get("task")
    if task == "OPEN":
        grade = row.get("judge_grade")
        if grade is None:
            return "unjudged"
        return "right" if grade >= 1 else ("partial" if grade >= 0.5 else "wrong")
    if row.get("parsed") is False:
        return "unparsed"
    if task == "OE":
        if row.get("valid") == 0:
            return "invalid"
        if row.get("optimal") is not None:
            return "right" if row["optimal"] == 1 else "suboptimal"
        return "unscored"
    score = row.get("accuracy") if task == "MCQ" else row.get("f1")
    if score is None:
        return "unscored"
    return "right" if score >= 1 else "wrong"


def _gold_text(record: dict[str, Any]) -> str:
    gold = record.get("gold")
    if record.get("task") == "OPEN" and isinstance(gold, dict):
        if isinstance(gold.get("reference"), str):
            return gold["reference"]
        if isinstance(gold.get("rubrics"), list):
            points = gold.get("points") or []
            lines = []
            for number, item in enumerate(gold["rubrics"], 1):
                worth = f" ({points[number - 1]:g} points)" if number <= len(points) else ""
                lines.append(f"{number}. {_rubric_text(item)}{worth}")
            return "\n".join(lines)
    if record.get("task") == "MCQ":
        text = (record.get("reference") or {}).get("gold_text")
        return f"{gold}: {text}" if text else str(gold)
    return gold if isinstance(gold, str) else json.dumps(gold, indent=2, ensure_ascii=False)


def _rubric_text(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("text") or item.get("rubric") or item.get("criterion") or "")
    return str(item)


def _judges(run: RunFiles, sample_id: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The judges' replies to one sample: grade, status, every attempt's raw reply, rubric decisions."""
    rubrics = (record.get("gold") or {}).get("rubrics") if isinstance(record.get("gold"), dict) else None
    texts = {number: _rubric_text(item) for number, item in enumerate(rubrics or [], 1)}
    replies = []
    for line in run.judgements.get(sample_id, []):
        replies.append(
            {
                "judge": line.get("judge"),
                "kind": line.get("kind"),
                "status": line.get("status"),
                "score": line.get("score"),
                "problem": line.get("problem"),
                "items": [
                    {**item, "text": texts.get(item.get("id"), "")}
                    for item in line.get("items") or []
                    if isinstance(item, dict)
                ],
                "attempts": [
                    {key: attempt.get(key) for key in ("raw", "reasoning", "problem")}
                    for attempt in line.get("attempts") or []
                    if isinstance(attempt, dict)
                ],
            }
        )
    return sorted(replies, key=lambda reply: (str(reply["judge"]), str(reply["kind"])))


def _answer_part(record: dict[str, Any], sample: dict[str, Any], detail: dict[str, Any]) -> Any:
    """Fill in the answer, the parse error and the field rows; the parsed OE answer when there is one."""
    task = record.get("task")
    completion = sample.get("completion")
    if task in TASKS and isinstance(completion, str):
        parsed = parse_answer(task, answer_text(completion) or "")
        detail["answer"] = sample.get("answer") or parsed.span
        detail["parse_error"] = sample.get("parse_error") or (None if parsed.ok else parsed.error)
        if parsed.ok:
            detail["fields"] = field_differences(task, parsed.value, record.get("gold"))
            if task == "OE":
                detail["fields_note"] = OE_GOLD_NOTE
                return parsed.value
    elif task == "MCQ" and isinstance(record.get("reference"), dict):
        from lexsym.scoring.mcq_samples import score_sample

        try:
            scored = score_sample(record, completion)
        except (KeyError, TypeError, ValueError):
            return None
        reference = record["reference"]
        labels, options = list(reference.get("labels") or []), list(reference.get("options") or [])
        chosen = scored.predicted
        text = options[labels.index(chosen)] if chosen in labels and len(options) == len(labels) else None
        detail["answer"] = chosen
        detail["parse_error"] = None if scored.extracted else scored.error
        detail["fields"] = [choice_difference(scored.gold, reference.get("gold_text"), chosen, text)]
    return None


def _detail(run_index: int, run: RunFiles, row: dict[str, Any], sample: dict[str, Any]) -> dict[str, Any]:
    record = run.records[sample["task_id"]]
    prompt = record.get("prompt") or {}
    detail: dict[str, Any] = {
        "run": run_index,
        "sample_id": row["sample_id"],
        "task_id": row["task_id"],
        "repeat": row["repeat"],
        "task": record.get("task"),
        "variant": record.get("variant"),
        "model": row.get("model"),
        "outcome": row["outcome"],
        "scores": {name: row[name] for name in (*SCORE_COLUMNS, "judge_grade") if row.get(name) is not None},
        "prompt": {"system": prompt.get("system") or "", "user": prompt.get("user") or ""},
        "completion": sample.get("completion"),
        "reasoning": sample.get("reasoning"),
        "answer": sample.get("answer"),
        "parse_error": sample.get("parse_error"),
        "error": sample.get("error"),
        "gold": _gold_text(record),
        "fields": [],
        "fields_note": None,
        "violations": [],
        "checker_notes": [],
        "checker_error": None,
        "judges": _judges(run, row["sample_id"], record),
    }
    detail["oe_answer"] = _answer_part(record, sample, detail)
    return detail


def _run_labels(runs: list[RunFiles]) -> list[dict[str, Any]]:
    names = [run.path.name for run in runs]
    return [
        {
            "index": index,
            "name": run.path.name if names.count(run.path.name) == 1 else str(run.path),
            "dir": str(run.path),
            "model": run.header.get("model"),
            "status": run.header.get("status"),
        }
        for index, run in enumerate(runs)
    ]


def _prompt_id(prompt: dict[str, str]) -> str:
    text = prompt["system"] + "\0" + prompt["user"]
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def viewer_data(run_dirs: list[str | Path]) -> dict[str, Any]:
    """The page's data for these run directories (each read once, in the order given): runs, columns,
    rows (each with `outcome` and its detail's `_key`), details by key, and the prompts they share, by id."""
    paths = list(dict.fromkeys(Path(path) for path in run_dirs))
    table = load_table(paths)
    runs = [read_run(path) for path in paths]
    index_of = {str(path): index for index, path in enumerate(paths)}
    samples = [{(s["task_id"], s["repeat"]): s for s in run.samples} for run in runs]
    rows, details, prompts = [], {}, {}
    oe_jobs: list[tuple[dict[str, Any], OEAnswer]] = []
    oe_keys: list[str] = []
    for row in table.rows:
        index = index_of[row["run_dir"]]
        key = f"{index}|{row['sample_id']}"
        row = {**row, "outcome": outcome(row), "_key": key, "_run": index}
        rows.append(row)
        detail = _detail(index, runs[index], row, samples[index][(row["task_id"], row["repeat"])])
        answer = detail.pop("oe_answer")
        if answer is not None:
            oe_jobs.append((runs[index].records[row["task_id"]].get("case"), answer))
            oe_keys.append(key)
        prompt_id = _prompt_id(detail["prompt"])
        prompts.setdefault(prompt_id, detail["prompt"])
        detail["prompt"] = prompt_id
        details[key] = detail
    for key, verdict in zip(oe_keys, check_oe_answers(oe_jobs), strict=True):
        details[key].update(
            violations=verdict.violations, checker_notes=verdict.notes, checker_error=verdict.error
        )
    columns = [{"name": name, "type": kind} for name, kind in table.types.items()]
    columns.insert(
        columns.index({"name": "sample_id", "type": "string"}) + 1, {"name": "outcome", "type": "string"}
    )
    return {
        "runs": _run_labels(runs),
        "columns": columns,
        "rows": rows,
        "details": details,
        "prompts": prompts,
        "outcomes": list(OUTCOMES),
        "failing": list(FAILING),
    }
