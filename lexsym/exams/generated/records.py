"""The task records of generated MCQ questions: prompts, gold labels and metadata, written as a task set
(tasks.jsonl and manifest.json) byte-identical for a configuration on any machine and worker count."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.parallel import map_in_order
from lexsym._version import __version__
from lexsym.exams.generated.case_statements import case_statements, select_statements
from lexsym.exams.generated.config import MANIFEST_VERSION, TASK, TEMPLATE_VERSION, MCQConfig
from lexsym.exams.generated.questions import Question, build_questions
from lexsym.exams.generated.wording import debtor_phrase
from lexsym.generate.config import GeneratorConfig, shape_id
from lexsym.generate.render import render_fact_pattern
from lexsym.generate.sampling import Scenario, case_rng, sample_scenario
from lexsym.generate.templates import environment
from lexsym.law.gold import gold_answers
from lexsym.law.rules import encoded_jurisdictions, rules_root
from lexsym.law.solver import solve
from lexsym.law.statute_sheet import StatuteSheet, sheet_for
from lexsym.law.vocabulary import FEDERAL, systems_of

INTRO = "Read the facts of the case and the statutes, then answer the multiple-choice question at the end."


RESPONSE_FORMAT = (
    "Exactly one option lists all of the statements asked for and no others. End your response with a final "
    "line of the form 'ANSWER: X', where X is the label of that option ({first}–{last})."
)
"""The answer line of `lexsym.exams.mcq_prompts`'s templates, so the same extraction and scoring read these
tasks too."""


def _tidy(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return re.sub(r"\n{3,}", "\n\n", text)


def prompt_jurisdictions(config: GeneratorConfig, allowable: Sequence[str] = ()) -> tuple[str, ...]:
    """US first, then the states whose statutes the prompt shows (as `lexsym generate` does), plus any
    allowable jurisdiction the list lacks, since statements speak of those."""
    if config.statutes_in_prompt == "all":
        states = [code for code in encoded_jurisdictions(rules_root()) if code != FEDERAL]
    else:  # a state's systems: California's two
        states = [system for state in config.state_jurisdictions for system in systems_of(state)]
    return tuple(dict.fromkeys([FEDERAL, *states, *allowable]))


def render_mcq_prompt(
    scenario: Scenario, config: GeneratorConfig, sheet: StatuteSheet, question: Question
) -> dict[str, str]:
    """{"system", "user"}: the shared system message; then the facts, the statutes, the question and its
    options."""
    env = environment()
    married = scenario.married
    context = {
        "married": married,
        "plural": married,
        "debtor": debtor_phrase(married),
        "has_assets": bool(scenario.case.assets),
    }
    system = env.get_template("prompt/system.j2").render(context)
    statutes = env.get_template("prompt/statutes.j2").render(
        sheet=sheet, show_statutes=config.statutes_in_prompt != "none"
    )
    options = "\n".join(f"{o.label}. {o.text}" for o in question.options)
    labels = [o.label for o in question.options]
    user = "\n\n".join(
        [
            INTRO,
            "## Facts",
            render_fact_pattern(scenario, config),
            "## Statutes",
            statutes.strip(),
            "## Question",
            question.text,
            options,
            "## Response format",
            RESPONSE_FORMAT.format(first=labels[0], last=labels[-1]),
        ]
    )
    return {"system": _tidy(system), "user": _tidy(user)}


def case_records(config: GeneratorConfig, mcq: MCQConfig, index: int) -> list[dict[str, Any]]:
    """The task records of case `index`: one question per k, all over the same statements."""
    scenario = sample_scenario(config, index)
    case = scenario.case
    solution = solve(case)
    gold = gold_answers(case, solution)
    codes = prompt_jurisdictions(config, solution.allowable.jurisdictions)
    sheet = sheet_for(case.petition_date, codes)
    pool = case_statements(
        scenario, solution, sheet, kinds=mcq.kinds, rng=case_rng(config, index, "mcq-statements")
    )
    try:
        statements = select_statements(
            pool, mcq.statement_count, case_rng(config, index, "mcq-select"), true_ratio=mcq.true_ratio
        )
    except ValueError as error:
        raise ValueError(f"case {case.id}: {error}") from None
    negated = case_rng(config, index, "mcq-stem").random() < mcq.negated_ratio
    split = "dev" if index < config.split.dev else "test"
    recorded_case = scenario.obfuscated_case() if config.obfuscated else case
    records = []
    questions = build_questions(
        statements,
        mcq.choices,
        negated=negated,
        seed=f"lexsym-mcq:{shape_id(config)}:{index}",
        allow_none=mcq.allow_none,
        nested=mcq.nested,
    )
    for k, question in questions.items():
        records.append(
            {
                "id": f"{config.name}/{TASK}-{k}/{split}-{index:04d}",
                "task": TASK,
                "variant": f"{TASK}-{k}",
                "split": split,
                "prompt": render_mcq_prompt(scenario, config, sheet, question),
                "gold": question.gold,
                "solved_steps": {},
                "reference": {
                    "question": question.text,
                    "labels": [o.label for o in question.options],
                    "options": [o.text for o in question.options],
                    "gold_label": question.gold,
                    "gold_text": next(o.text for o in question.options if o.label == question.gold),
                    "case_gold": gold,
                },
                "metadata": {
                    "dataset": config.name,
                    "case_id": case.id,
                    "seed": config.seed,
                    "k": k,
                    "n_choices": k,
                    "gold_index": [o.label for o in question.options].index(question.gold),
                    "negated": negated,
                    "negative_question": int(negated),
                    "none_as_an_option": any(not o.statements for o in question.options),
                    "language": "en",
                    "stem": question.stem,
                    "statement_count": len(statements),
                    "n_statements": len(statements),
                    "statements": [s.to_json(n) for n, s in enumerate(statements, start=1)],
                    "options": [
                        {"label": o.label, "statements": list(o.statements), "text": o.text}
                        for o in question.options
                    ],
                    "gold_statements": list(question.gold_statements),
                    "template": TEMPLATE_VERSION,
                    "married": scenario.married,
                    "asset_count": len(case.assets),
                    "domicile_count": len(scenario.residences),
                    "rule_path": scenario.rule_path,
                    "governing_state": scenario.target_state,
                    "petition_date": case.petition_date.isoformat(),
                    "states_in_prompt": list(codes[1:]),
                    "obfuscation": {
                        "irrelevant_asset_facts": config.irrelevant_asset_facts,
                        "irrelevant_domicile_facts": config.irrelevant_domicile_facts,
                        "asset_opinions": config.asset_opinions,
                        "domicile_opinions": config.domicile_opinions,
                    },
                    "rules_digest": solution.rules_digest,
                },
                "case": json.loads(recorded_case.model_dump_json()),
            }
        )
    return records


def _case_lines(job: tuple[GeneratorConfig, MCQConfig, int]) -> list[str]:
    config, mcq, index = job
    return [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in case_records(config, mcq, index)]


def generate_mcq(
    config: GeneratorConfig, mcq: MCQConfig | None = None, *, workers: int | None = 1
) -> list[str]:
    """The JSON lines of a task set: every case of `config` (dev then test), each with one record per k."""
    mcq = mcq or MCQConfig()
    jobs = [(config, mcq, index) for index in range(config.split.size)]
    chunks = map_in_order(_case_lines, jobs, workers=workers or os.cpu_count() or 1)
    return [line for chunk in chunks for line in chunk]


def write_task_set(
    out: str | Path, config: GeneratorConfig, mcq: MCQConfig | None = None, *, workers: int | None = 1
) -> dict[str, Any]:
    """Write `tasks.jsonl` and `manifest.json` for the MCQ task set of `config` into `out`; return the
    manifest."""
    from lexsym.generate.pipeline import inputs_digest

    out = Path(out)
    mcq = mcq or MCQConfig()
    lines = generate_mcq(config, mcq, workers=workers)
    text = "".join(line + "\n" for line in lines)
    write_atomic(out / "tasks.jsonl", text)
    per_case = len(mcq.choices)
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "lexsym_version": __version__,
        "inputs": inputs_digest(),
        "task": TASK,
        "template_version": TEMPLATE_VERSION,
        "tasks": len(lines),
        "splits": {"dev": config.split.dev * per_case, "test": config.split.test * per_case},
        "case_shape": shape_id(config),
        "config": json.loads(config.model_dump_json()),
        "mcq": json.loads(mcq.model_dump_json()),
        "tasks_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
