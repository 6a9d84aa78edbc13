"""Generated multiple-choice questions: LEXam-style k-choice questions whose statements our logic program
decides.

For a sampled case (`sample_scenario`) and its Solution (`solve`), statements of five kinds are drawn. Each
is true or false because of one fact of the gold, which the statement carries as its `reason` (prose) and
its `fact` (machine-readable, enough to re-check it against a fresh solve):

- AE  "The debtor may claim the exemptions of Oregon."            true iff OR ∈ allowable jurisdictions
- EC  'Under the Oregon exemptions, "…" falls under C.'           true iff C ∈ classification(OR, asset)
- EV  'The most that C on its own can protect of "…" is $X.'       true iff X = max_claim(J, asset, C)
- NA  'If the debtor claims the Oregon exemptions …, the least
       total value left non-exempt is $Y.'                         true iff Y = non_exempt_total(OR)
- OE  'Under the Oregon exemptions, the following claims together
       form a valid schedule …: …'                                 true iff `check_schedules` finds it valid

EC, EV, NA and OE statements speak of allowable jurisdictions only, as the gold of those tasks does. False EV
and NA statements change the true amount into a plausible wrong one (the asset's whole value, another
exemption's figure, another jurisdiction's total); false OE statements are the gold schedule (or another
allowable jurisdiction's optimal one) mutated, and they count as false only when the checker finds a
violation, which becomes the reason. A mutation the checker accepts is kept as a true statement.

Questions follow LEXam §2.1.2 and are built by `lexsym.exams.statements` (the shared construction): n
numbered statements (i, ii, …); each option is a subset of the statement numbers ("i and iii"), the empty
one reading "none of the statements"; one correct option and k − 1 distractors, k ∈ {4, 8, 16, 32} (k ≤ 2^n).
A negated stem asks for the incorrect statements, and then the gold option is the set of false statements.
The statements and their order are drawn once per case and shared by every k, as in LEXam's robustness set
(the choice count varies; stem and statements are held constant).

Records have the fields of `lexsym generate`'s (id, task "MCQ", variant "MCQ-k", split, prompt, gold = the
gold option's label, solved_steps, reference, metadata, case) with the MCQ conventions of
`lexsym.exams.tasks`: `reference` holds the question, the option labels and texts in display order (so
`lexsym.exams.mcq` extracts and scores answers) and, under "case_gold", the case's AE..OE gold answers;
`metadata` holds the statements with their truth, reason and fact, the options as statement numbers, k,
the case id and the seed.

Determinism: every draw comes from `case_rng` (seeded by text from the case shape, the case index and a
purpose), so the same configuration gives byte-identical task sets on any machine and with any worker count.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lexsym._version import __version__
from lexsym.atomic import write_atomic
from lexsym.case import Case
from lexsym.checker import ClaimedSchedule, check_schedules
from lexsym.exams.mcq import option_labels
from lexsym.exams.statements import K_CHOICES, build_versions, roman, statement_question
from lexsym.generate.config import GeneratorConfig, shape_id
from lexsym.generate.gold import gold_answers
from lexsym.generate.render import environment, format_money, render_fact_pattern
from lexsym.generate.sampling import Scenario, case_rng, sample_scenario
from lexsym.rules import encoded_jurisdictions, rules_root
from lexsym.solution import JurisdictionResult, Solution
from lexsym.solver import solve
from lexsym.statute_sheet import StatuteSheet, sheet_for
from lexsym.vocabulary import FEDERAL, JURISDICTION_NAMES, STATES

TASK = "MCQ"
KINDS = ("AE", "EC", "EV", "NA", "OE")
TEMPLATE_VERSION = "mcq/1"
"""Version of the question and prompt wording below; bump it whenever a phrasing changes."""
MANIFEST_VERSION = 1

STEM = {
    False: "Consider the following statements about this case, under the statutes above. Which of them are "
    "correct?",
    True: "Consider the following statements about this case, under the statutes above. Which of them are "
    "incorrect?",
}
INTRO = "Read the facts of the case and the statutes, then answer the multiple-choice question at the end."
RESPONSE_FORMAT = (
    "Exactly one option lists all of the statements asked for and no others. End your response with a final "
    "line of the form 'ANSWER: X', where X is the label of that option ({first}–{last})."
)
"""The answer line of `lexsym.exams.mcq`'s templates, so its extraction and scoring read these tasks too."""


class MCQConfig(BaseModel):
    """How the questions of a task set are shaped (the cases come from a GeneratorConfig)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    choices: tuple[int, ...] = Field(default=K_CHOICES, description="k: options per question.")
    statement_count: int = Field(default=5, ge=1, le=8, description="n: numbered statements per question.")
    negated_ratio: float = Field(default=0.3, ge=0.0, le=1.0, description="Share of negated stems.")
    true_ratio: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Chance that each statement slot asks for a true statement."
    )
    kinds: tuple[str, ...] = Field(default=KINDS, description="Which kinds of statement to draw.")
    allow_none: bool = Field(default=True, description='Offer "none of the statements" as a distractor.')
    nested: bool = Field(default=False, description="Each k's distractors contain the smaller k's ones.")

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [kind for kind in value if kind not in KINDS]
        if unknown or not value:
            raise ValueError(f"kinds must be a non-empty subset of {', '.join(KINDS)} (got {list(value)})")
        return tuple(kind for kind in KINDS if kind in value)

    @model_validator(mode="after")
    def _fits(self) -> MCQConfig:
        if not self.choices or len(set(self.choices)) != len(self.choices):
            raise ValueError(f"choices must be distinct and at least one (got {list(self.choices)})")
        # Without "none of the statements" among the distractors, one subset fewer is sure to exist.
        most = 2**self.statement_count - (0 if self.allow_none else 1)
        for k in self.choices:
            if not 2 <= k <= most:
                raise ValueError(
                    f"k = {k} options need 2 <= k <= {most} (n = {self.statement_count} statements"
                    + ("" if self.allow_none else ', without "none of the statements"')
                    + ")"
                )
        return self


@dataclass(frozen=True)
class Statement:
    """One statement about a case, with its truth under the gold and why.

    `fact` is the machine-readable claim: {"jurisdiction"} (AE); {"jurisdiction", "asset_id", "citation"}
    (EC), plus "value" in whole dollars (EV); {"jurisdiction", "value"} (NA); {"jurisdiction", "claims":
    [[asset_id, citation, amount], ...]} (OE).
    `topic` keeps one question from asking twice about the same thing.
    """

    kind: str
    text: str
    truth: bool
    reason: str
    fact: dict[str, Any]
    topic: tuple

    def to_json(self, number: int) -> dict[str, Any]:
        return {
            "number": number,
            "label": roman(number),
            "kind": self.kind,
            "text": self.text,
            "truth": self.truth,
            "reason": self.reason,
            "fact": self.fact,
        }


@dataclass(frozen=True)
class Option:
    label: str
    statements: tuple[int, ...]  # 1-based statement numbers, ascending; () is "none of the statements"
    text: str


@dataclass(frozen=True)
class Question:
    stem: str
    negated: bool
    statements: tuple[Statement, ...]
    options: tuple[Option, ...]
    gold: str

    @property
    def text(self) -> str:
        """The stem, then the statements numbered "i.", "ii.", … (as LEXam prints them)."""
        return statement_question(self.stem, [s.text for s in self.statements])

    @property
    def gold_statements(self) -> tuple[int, ...]:
        """The numbers of the statements the stem asks for: the true ones, or the false ones if negated."""
        return tuple(n for n, s in enumerate(self.statements, start=1) if s.truth != self.negated)


# -- wording ---------------------------------------------------------------------------------------------


def _subject(married: bool) -> str:
    return "the debtors" if married else "the debtor"


def _upfirst(text: str) -> str:
    return text[:1].upper() + text[1:]


def _system(code: str) -> str:
    """A jurisdiction's exemptions as a sentence names them."""
    return "federal exemptions (11 U.S.C. § 522(d))" if code == FEDERAL else f"{_name(code)} exemptions"


def _name(code: str) -> str:
    return JURISDICTION_NAMES.get(code, code)


def _names(codes: Sequence[str]) -> str:
    return ", ".join(_name(code) for code in codes) or "none"


def _nice(value: int) -> int:
    """Round a made-up amount to a figure a statement would state."""
    if value < 100:
        return max(value, 0)
    step = 10 if value < 10_000 else 100 if value < 100_000 else 500
    return max(step, round(value / step) * step)


# -- statements ------------------------------------------------------------------------------------------


def _ae_statements(scenario: Scenario, solution: Solution, prompt_codes: Sequence[str]) -> list[Statement]:
    allowable = solution.allowable.jurisdictions
    reasons = {r.jurisdiction: r for r in solution.allowable.reasons}
    lived = [r.state for r in scenario.residences if r.state in STATES]
    subject = _upfirst(_subject(scenario.married))
    out = []
    for code in dict.fromkeys([FEDERAL, *prompt_codes, *lived, *allowable]):
        truth = code in allowable
        if code == FEDERAL:
            text = f"{subject} may claim the federal exemptions of 11 U.S.C. § 522(d)."
        else:
            text = f"{subject} may claim the exemptions of {_name(code)}."
        if truth:
            reason = f"allowable({code}): {reasons[code].justification}"
        else:
            reason = (
                f"not allowable({code}): under 11 U.S.C. § 522(b) only {_names(allowable)} may be claimed "
                f"(rule path {solution.allowable.rule_path})"
            )
        out.append(Statement("AE", text, truth, reason, {"jurisdiction": code}, ("AE", code)))
    return out


def _ec_statements(case: Case, results: Sequence[JurisdictionResult], sheet: StatuteSheet) -> list[Statement]:
    out = []
    for result in results:
        code = result.jurisdiction
        citations = [entry.citation for entry in sheet.for_jurisdiction(code)]
        eligible = {a.id: {m.citation: m for m in result.classification.get(a.id, [])} for a in case.assets}
        for asset in case.assets:
            mine = eligible[asset.id]
            for citation, match in mine.items():
                text = f'Under the {_system(code)}, "{asset.description}" falls under {citation}.'
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": citation}
                reason = f"eligible({code}, {asset.id}, {citation}): {match.because}"
                out.append(Statement("EC", text, True, reason, fact, ("asset-citation", asset.id, citation)))
            # False ones: prefer near misses, exemptions that cover another asset of the same case.
            others = [c for c in citations if c not in mine]
            near = [c for c in others if any(c in eligible[a.id] for a in case.assets if a.id != asset.id)]
            for citation in near or others:
                text = f'Under the {_system(code)}, "{asset.description}" falls under {citation}.'
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": citation}
                reason = (
                    f"not eligible({code}, {asset.id}, {citation}): under {_name(code)} law the asset falls "
                    f"under {', '.join(mine) or 'no exemption'}"
                )
                out.append(Statement("EC", text, False, reason, fact, ("asset-citation", asset.id, citation)))
    return out


def _ev_text(citation: str, description: str, value: int, married: bool) -> str:
    together = " (for the two spouses together)" if married else ""
    money = format_money(value)
    return f'The most that {citation} on its own can protect of "{description}" is {money}{together}.'


def _ev_statements(
    case: Case, results: Sequence[JurisdictionResult], married: bool, rng: random.Random
) -> list[Statement]:
    out = []
    for result in results:
        code = result.jurisdiction
        for asset in case.assets:
            values = result.valuation.get(asset.id, [])
            for value in values:
                true = value.max_claim
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": value.citation}
                topic = ("asset-citation", asset.id, value.citation)
                reason = f"max_claim({code}, {asset.id}, {value.citation}) = {true}"
                out.append(
                    Statement(
                        "EV",
                        _ev_text(value.citation, asset.description, true, married),
                        True,
                        reason,
                        {**fact, "value": true},
                        topic,
                    )
                )
                candidates = {asset.value, 2 * true, _nice(true // 2), _nice(true + max(100, true // 4))}
                candidates |= {v.max_claim for v in values}
                candidates |= {
                    v.max_claim
                    for other in case.assets
                    for v in result.valuation.get(other.id, [])
                    if v.citation == value.citation
                }
                wrong = sorted(c for c in candidates if c != true and c > 0)
                stated = rng.choice(wrong)
                reason = f"max_claim({code}, {asset.id}, {value.citation}) = {true}, not {stated}"
                out.append(
                    Statement(
                        "EV",
                        _ev_text(value.citation, asset.description, stated, married),
                        False,
                        reason,
                        {**fact, "value": stated},
                        topic,
                    )
                )
    return out


def _na_text(code: str, value: int, married: bool) -> str:
    claim = "claim" if married else "claims"
    return (
        f"If {_subject(married)} {claim} the {_system(code)} as advantageously as the statutes allow, the "
        f"least total value left non-exempt is {format_money(value)}."
    )


def _na_statements(
    solution: Solution, results: Sequence[JurisdictionResult], married: bool, rng: random.Random
) -> list[Statement]:
    out = []
    for result in results:
        code, true = result.jurisdiction, result.non_exempt_total
        reason = f"non_exempt_total({code}) = {true}"
        fact = {"jurisdiction": code}
        out.append(
            Statement(
                "NA", _na_text(code, true, married), True, reason, {**fact, "value": true}, ("NA", code)
            )
        )
        candidates = {r.non_exempt_total for r in results} | {solution.total_value, 0}
        candidates |= {_nice(true + max(100, true // 4)), _nice(max(true - max(100, true // 4), 0))}
        wrong = sorted(c for c in candidates if c != true)
        stated = rng.choice(wrong)
        reason = f"non_exempt_total({code}) = {true}, not {stated}"
        out.append(
            Statement(
                "NA", _na_text(code, stated, married), False, reason, {**fact, "value": stated}, ("NA", code)
            )
        )
    return out


Claims = tuple[tuple[str, str, int], ...]


def _aggregate(result: JurisdictionResult) -> Claims:
    """A jurisdiction's schedule as an answer states it: both spouses' claims added per asset and citation."""
    totals: dict[tuple[str, str], int] = {}
    for claim in result.schedule:
        totals[(claim.asset_id, claim.citation)] = (
            totals.get((claim.asset_id, claim.citation), 0) + claim.amount
        )
    return tuple(
        (asset, citation, amount) for (asset, citation), amount in sorted(totals.items()) if amount > 0
    )


def _merge(claims: list[tuple[str, str, int]]) -> Claims:
    totals: dict[tuple[str, str], int] = {}
    for asset, citation, amount in claims:
        totals[(asset, citation)] = totals.get((asset, citation), 0) + amount
    return tuple((asset, citation, amount) for (asset, citation), amount in sorted(totals.items()))


def _mutations(
    case: Case, result: JurisdictionResult, base: Claims, citations: Sequence[str], rng: random.Random
) -> list[tuple[str, Claims]]:
    """Schedules derived from `base`: (how it was changed, claims). The checker decides each one's truth."""
    eligible = {a.id: {m.citation for m in result.classification.get(a.id, [])} for a in case.assets}
    value = {a.id: a.value for a in case.assets}
    out: list[tuple[str, Claims]] = []
    if base:
        asset, citation, amount = rng.choice(base)
        rest = [c for c in base if c[:2] != (asset, citation)]
        bump = _nice(max(100, amount // 4))
        out.append(
            (
                f"raised the claim on {asset} under {citation} by {bump}",
                _merge([*rest, (asset, citation, amount + bump)]),
            )
        )
        wrong = [c for c in citations if c not in eligible[asset]]
        if wrong:
            other = rng.choice(wrong)
            out.append(
                (
                    f"moved the claim on {asset} from {citation} to {other}",
                    _merge([*rest, (asset, other, amount)]),
                )
            )
        if amount > 1:
            cut = max(1, _nice(amount // 3)) if amount > 3 else 1
            cut = min(cut, amount - 1)
            out.append(
                (
                    f"lowered the claim on {asset} under {citation} by {cut}",
                    _merge([*rest, (asset, citation, amount - cut)]),
                )
            )
        if len(base) > 1:
            out.append((f"dropped the claim on {asset} under {citation}", _merge(rest)))
    claimed = {asset: sum(a for x, _, a in base if x == asset) for asset in value}
    open_assets = [asset for asset in value if claimed[asset] < value[asset]]
    if open_assets:
        asset = rng.choice(open_assets)
        wrong = [c for c in citations if c not in eligible[asset]]
        if wrong:
            other = rng.choice(wrong)
            amount = max(1, _nice((value[asset] - claimed[asset]) // 2))
            out.append((f"added {amount} on {asset} under {other}", _merge([*base, (asset, other, amount)])))
    return out


def _claims_text(case: Case, claims: Claims) -> str:
    description = {a.id: a.description for a in case.assets}
    return "; ".join(
        f'{format_money(amount)} in "{description[asset]}" under {citation}'
        for asset, citation, amount in claims
    )


def _oe_statements(
    case: Case,
    solution: Solution,
    results: Sequence[JurisdictionResult],
    sheet: StatuteSheet,
    rng: random.Random,
) -> list[Statement]:
    candidates: list[tuple[str, str, Claims]] = []  # (jurisdiction, provenance, claims)
    for result in results:
        code = result.jurisdiction
        base = _aggregate(result)
        which = "the optimal schedule" if code == solution.optimal.jurisdiction else "an optimal schedule"
        if base:
            candidates.append((code, f"{which} under {_name(code)}", base))
        citations = [entry.citation for entry in sheet.for_jurisdiction(code)]
        for how, claims in _mutations(case, result, base, citations, rng):
            if claims and claims != base:
                candidates.append((code, f"{which} under {_name(code)}, {how}", claims))
    unique: dict[tuple[str, Claims], str] = {}
    for code, provenance, claims in candidates:
        unique.setdefault((code, claims), provenance)
    if not unique:
        return []
    keys = list(unique)
    verdicts = check_schedules(
        case, [ClaimedSchedule(code, [list(c) for c in claims]) for code, claims in keys], solution=solution
    )
    out = []
    for (code, claims), verdict in zip(keys, verdicts, strict=True):
        provenance = unique[(code, claims)]
        if verdict.valid:
            reason = f"check_schedules: valid ({provenance})"
        else:
            reason = f"check_schedules: invalid ({provenance}): " + "; ".join(
                v.message for v in verdict.violations
            )
        text = (
            f"Under the {_system(code)}, the following claims together form a valid schedule that respects "
            f"every limit of the statutes: {_claims_text(case, claims)}."
        )
        fact = {"jurisdiction": code, "claims": [list(c) for c in claims]}
        out.append(Statement("OE", text, verdict.valid, reason, fact, ("OE", code, claims)))
    return out


def case_statements(
    scenario: Scenario,
    solution: Solution,
    sheet: StatuteSheet,
    *,
    kinds: Sequence[str] = KINDS,
    rng: random.Random,
) -> list[Statement]:
    """Every candidate statement about the case (true and false), in a fixed order."""
    case = scenario.case
    results = [r for r in solution.jurisdictions if r.allowable]
    prompt_codes = [code for code in sheet.jurisdictions if code != FEDERAL]
    out: list[Statement] = []
    if "AE" in kinds:
        out += _ae_statements(scenario, solution, prompt_codes)
    if case.assets:
        if "EC" in kinds:
            out += _ec_statements(case, results, sheet)
        if "EV" in kinds:
            out += _ev_statements(case, results, scenario.married, rng)
        if "NA" in kinds:
            out += _na_statements(solution, results, scenario.married, rng)
        if "OE" in kinds:
            out += _oe_statements(case, solution, results, sheet, rng)
    return out


def select_statements(
    pool: Sequence[Statement], count: int, rng: random.Random, *, true_ratio: float = 0.5
) -> list[Statement]:
    """`count` statements of distinct topics. Each slot asks for a true statement with chance `true_ratio`
    (the other truth when none is left), then a kind uniformly among those that have one, then a statement
    of that kind uniformly; so the gold subset is spread over all 2^n subsets, "none" included."""
    chosen: list[Statement] = []
    topics: set[tuple] = set()
    for _ in range(count):
        want = rng.random() < true_ratio
        available: list[Statement] = []
        for truth in (want, not want):
            available = [s for s in pool if s.truth is truth and s.topic not in topics]
            if available:
                break
        if not available:
            raise ValueError(f"only {len(chosen)} statements of distinct topics; {count} are needed")
        kinds = [kind for kind in KINDS if any(s.kind == kind for s in available)]
        kind = rng.choice(kinds)
        statement = rng.choice([s for s in available if s.kind == kind])
        chosen.append(statement)
        topics.add(statement.topic)
    return chosen


# -- options ---------------------------------------------------------------------------------------------


def build_questions(
    statements: Sequence[Statement],
    ks: Sequence[int],
    *,
    negated: bool,
    seed: str,
    allow_none: bool = True,
    nested: bool = False,
) -> dict[int, Question]:
    """The k-choice versions of one question over the numbered `statements`, one per k in `ks`, built by
    `lexsym.exams.statements.build_versions` (seeded by `seed`; the gold subset is the same in every one)."""
    versions = build_versions(
        [s.truth for s in statements], ks, negated=negated, seed=seed, allow_none=allow_none, nested=nested
    )
    questions = {}
    for k in ks:
        version = versions[k]
        options = tuple(
            Option(label, tuple(sorted(i + 1 for i in subset)), text)
            for label, subset, text in zip(option_labels(k), version.subsets, version.texts, strict=True)
        )
        questions[k] = Question(
            STEM[negated], negated, tuple(statements), options, options[version.gold_index].label
        )
    return questions


# -- prompts and records ---------------------------------------------------------------------------------


def _tidy(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return re.sub(r"\n{3,}", "\n\n", text)


def prompt_jurisdictions(config: GeneratorConfig, allowable: Sequence[str] = ()) -> tuple[str, ...]:
    """US first, then the states whose statutes the prompt shows (as `lexsym generate` does), plus any
    allowable jurisdiction the list lacks, since statements speak of those."""
    if config.statutes_in_prompt == "all":
        states = [code for code in encoded_jurisdictions(rules_root()) if code != FEDERAL]
    else:
        states = list(config.state_jurisdictions)
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
        "debtor": _subject(married),
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


def _obfuscated(config: GeneratorConfig) -> bool:
    return any(
        (
            config.irrelevant_asset_facts,
            config.irrelevant_domicile_facts,
            config.asset_opinions,
            config.domicile_opinions,
        )
    )


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
    recorded_case = scenario.obfuscated_case() if _obfuscated(config) else case
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
    workers = workers or os.cpu_count() or 1
    if workers > 1 and len(jobs) > 1:
        pool = multiprocessing.get_context("fork").Pool(workers)
        try:
            chunks = pool.map(_case_lines, jobs, chunksize=4)  # map keeps the order of the jobs
            pool.close()  # let the workers exit on their own: terminating them can crash one mid-exit
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    else:
        chunks = [_case_lines(job) for job in jobs]
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
