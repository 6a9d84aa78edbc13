"""The two texts a person reads in an OpenExempt export: LOSSES.md (what the format could not hold) and
README.md (how to run OpenExempt's own tools on it). losses.json holds the same losses for programs."""

from __future__ import annotations

from collections import Counter
from typing import Any


def losses_markdown(losses: dict[str, Any], summary: dict[str, Any]) -> str:
    """LOSSES.md: statute rules the statute files cannot state, tasks left out, per-task and prompt notes."""
    lines = [
        "# What this OpenExempt export could not carry over",
        "",
        "lexsym's rules and task records hold more than OpenExempt's formats. Every difference is listed",
        "here (and in losses.json); where a value had to be written, it is the closest one OpenExempt takes.",
        "",
        "## Statute files",
        "",
        "| statutes | jurisdiction | citation | lexsym's rule | written instead | effect |",
        "|---|---|---|---|---|---|",
    ]
    for loss in losses["statutes"]:
        cells = [loss[k] for k in ("statutes", "jurisdiction", "citation", "rule", "written", "effect")]
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    dropped = [(d["dataset_id"], task, why) for d in losses["datasets"] for task, why in d["dropped"].items()]
    lines += ["", "## Tasks left out", ""]
    if dropped:
        lines.append(f"{len(dropped)} task(s) could not be written in OpenExempt's format:")
        lines.append("")
        lines += [f"- `{dataset}`: `{task}`: {why}" for dataset, task, why in dropped]
    else:
        lines.append("None.")
    notes = Counter(
        _kind(note) for d in losses["datasets"] for task_notes in d["tasks"].values() for note in task_notes
    )
    lines += ["", "## Per-task notes (tasks kept)", ""]
    if notes:
        lines.append("Counted by kind; losses.json lists them per task.")
        lines.append("")
        lines += [f"- {kind}: {count}" for kind, count in sorted(notes.items())]
    else:
        lines.append("None.")
    lines += ["", "## Prompts and configs", ""]
    prompt = sorted({note for d in losses["datasets"] for note in d["prompt"]})
    lines += [f"- {note}" for note in prompt]
    lines.append(
        "- the system and user messages are one prompt string, joined by a blank line (OpenExempt "
        "sends one message)"
    )
    for d in losses["datasets"]:
        for key, change in sorted(d["config"].items()):
            lines.append(
                f"- `{d['dataset_id']}` config `{key}`: lexsym {change['lexsym']!r}, written "
                f"{change['written']!r} ({change['why']})"
            )
    lines += [f"- {note}" for note in EVALUATOR_NOTES]
    placements = Counter(d["statute_text_in"] for d in summary["datasets"] if d["path"])
    lines += [
        "",
        "Where the statute text of the prompts sits: "
        + ", ".join(f"{count} dataset(s) in `{where}`" for where, count in sorted(placements.items()))
        + " (`solved_steps` when text after it varies per task, so that the fields still join to lexsym's "
        "prompt in its own order).",
        "",
    ]
    return "\n".join(lines)


EVALUATOR_NOTES = (
    "OE tasks are kept only where OpenExempt's evaluator takes lexsym's gold schedule (every claim "
    "allocable under the statute files) and no schedule its looser rules allow leaves less non-exempt; "
    "otherwise its evaluator would stop on the gold or on a prediction that beats it",
    "11 U.S.C. § 522(b)(3)(C) is listed in every state's file, and OpenExempt reads an OE answer's "
    "jurisdiction from its first claim: an answer that starts with that claim is read as Arizona's "
    "(the first state in its order); the gold schedules are ordered to start with a claim that names "
    "their jurisdiction",
)
"""How OpenExempt's evaluator reads this export's OE datasets (true of every export)."""


def _kind(note: str) -> str:
    """A per-task note without its particulars (what follows its colon), for counting."""
    return note.split(":", 1)[0]


def export_readme(summary: dict[str, Any]) -> str:
    """README.md: the layout and the commands, run from the export root as OpenExempt's paths require."""
    suites = [s for s, how in summary["suites"].items() if how == "TaskSuite.from_directory"]
    example = summary["datasets"][0]["path"] if summary["datasets"] else "SUITE/DATASET"
    statutes = next(iter(summary["statutes"]), "statutes")
    lines = [
        "# lexsym benchmark in OpenExempt's dataset format",
        "",
        f"{summary['tasks']['test']} test and {summary['tasks']['dev']} dev tasks in "
        f"{len(summary['datasets'])} datasets; {summary['tasks']['dropped']} left out (LOSSES.md).",
        "",
        "Paths in the configs are relative to this folder, so run OpenExempt's tools from here, with its",
        "checkout ($OPENEXEMPT) on PYTHONPATH:",
        "",
        "```",
        f"PYTHONPATH=$OPENEXEMPT python $OPENEXEMPT/inference.py --mode dataset -d {example} \\",
        f"    -s {statutes} --model MODEL",
    ]
    if suites:
        lines.append(
            f"PYTHONPATH=$OPENEXEMPT python $OPENEXEMPT/inference.py --mode suite "
            f"-d {suites[0]} -s {statutes} --model MODEL"
        )
    if len(summary["statutes"]) > 1:
        lines.append("# several statute folders: give each dataset the one its config.json names")
        lines.append("# (statute_directory), one dataset at a time")
    lines += [
        "```",
        "",
        "Statute files (`statutes*/`) hold lexsym's figures in force for the tasks' petition dates, not",
        "OpenExempt's own; OpenExempt's evaluator needs them for the OE datasets. `lexsym.json` in each",
        "dataset maps its uids to lexsym's task ids.",
        "",
    ]
    return "\n".join(lines)
