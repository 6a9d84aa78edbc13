"""`lexsym explain`: why each exemption applies to an asset, or why not, in every jurisdiction.

For an exemption that applies, the statute rule that fired names the facts it used (qualifies/3's Why).
For one that does not, each of its rules is replayed on the asset one condition at a time (positive
conditions first, then comparisons, then negations): the first condition that fails is the reason. The
replay reads the statute files themselves, so an edited rule explains itself without extra annotation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import clingo
from clingo import ast
from pydantic import BaseModel, ConfigDict, Field

from lexsym._util.errors import InputError
from lexsym.law.case import Case
from lexsym.law.claim_explainer import why_text
from lexsym.law.clingo_runner import MessageLog, parsed_file
from lexsym.law.facts import asp_string, case_facts
from lexsym.law.first_pass import case_program, first_pass
from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.stratified import solve_stratified
from lexsym.law.systems import system_id as jurisdiction_id
from lexsym.law.vocabulary import JURISDICTION_NAMES
from lexsym.law.whatif import ExemptionTable


class RuleCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    location: str = Field(description="file:line of the rule.")
    satisfied: bool
    failed_condition: str | None = Field(description="The first condition that does not hold, if any.")


class ExemptionVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    citation: str
    title: str | None
    applies: bool
    basis: str = Field(description="rule, listed (the case's own list), or none.")
    because: str
    max_claim: int | None = Field(description="Task EV: the most this exemption protects in the asset alone.")
    rules: list[RuleCheck] = Field(default_factory=list)


class JurisdictionExplanation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    jurisdiction: str
    name: str
    allowable: bool
    exemptions: list[ExemptionVerdict]


class Explanation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    asset_id: str
    description: str
    facts: list[str] = Field(description="The asset's facts as the rules see them.")
    listed: bool = Field(description="True when the case lists the asset's citations (rules not consulted).")
    jurisdictions: list[JurisdictionExplanation]


@dataclass(frozen=True)
class _QualifyingRule:
    exemption: str
    asset_variable: str
    conditions: tuple[str, ...]
    location: str


def _ordered_body(body: Sequence[ast.AST]) -> list[ast.AST]:
    """Positive atoms first, then comparisons and aggregates, then negations, so every prefix is safe."""

    def rank(literal: ast.AST) -> int:
        if literal.ast_type == ast.ASTType.Literal and literal.sign == ast.Sign.NoSign:
            return 0 if literal.atom.ast_type == ast.ASTType.SymbolicAtom else 1
        if literal.ast_type == ast.ASTType.Literal:
            return 3
        return 2

    return sorted(body, key=rank)


@cache
def _qualifying_rules(root: Path) -> tuple[_QualifyingRule, ...]:
    """Every `qualifies(E, A, Why) :- body.` rule of the statutes, with its body in replay order."""
    log_ = MessageLog()
    found = []
    for path in statute_files(root):
        for statement in parsed_file(path, log_):
            if statement.ast_type != ast.ASTType.Rule or statement.head.ast_type != ast.ASTType.Literal:
                continue
            atom = statement.head.atom
            if atom.ast_type != ast.ASTType.SymbolicAtom:
                continue
            term = atom.symbol
            if term.ast_type != ast.ASTType.Function or term.name != "qualifies" or len(term.arguments) != 3:
                continue
            exemption, variable, _why = term.arguments
            if variable.ast_type != ast.ASTType.Variable or exemption.ast_type == ast.ASTType.Variable:
                continue
            location = f"{path.relative_to(root).as_posix()}:{statement.location.begin.line}"
            conditions = tuple(str(literal) for literal in _ordered_body(statement.body))
            found.append(_QualifyingRule(str(exemption), variable.name, conditions, location))
    return tuple(found)


def _replay(rules: Sequence[_QualifyingRule], asset: str, root: Path, program: str) -> dict[int, int]:
    """For each rule index, how many of its conditions hold in a row for `asset`."""
    probes = []
    for index, rule in enumerate(rules):
        binding = f"{rule.asset_variable} = {asp_string(asset)}"
        for count in range(len(rule.conditions) + 1):
            body = ", ".join([binding, *rule.conditions[:count]])
            probes.append(f"explain_probe({index},{count}) :- {body}.")
    probes.append("#show explain_probe/2.")
    symbols = solve_stratified(
        [*statute_files(root), *case_encoding_files(root)], program + "\n" + "\n".join(probes)
    )
    held: dict[int, int] = defaultdict(lambda: -1)
    for symbol in symbols:
        if symbol.match("explain_probe", 2):
            index, count = (argument.number for argument in symbol.arguments)
            held[index] = max(held[index], count)
    return held


def explain(
    case: Case, asset_id: str, *, tables: Sequence[ExemptionTable] = (), rules: str | None = None
) -> Explanation:
    """Explain, for every encoded jurisdiction, which exemptions apply to the asset and why (not)."""
    asset = next((a for a in case.assets if a.id == asset_id), None)
    if asset is None:
        known = ", ".join(a.id for a in case.assets) or "none"
        raise InputError(f"no asset {asset_id!r} in case {case.id} (assets: {known})")
    root = rules_root(rules)
    case, first = first_pass(
        case, root, tables, None, "#show exemption_of/2. #show exemption_title/2. #show citation_of/2."
    )
    rows = first.rows
    citation = first.citations()
    titles = {e: t for e, t in rows["exemption_title"]}
    allowable = {jurisdiction_id(s.arguments[0]) for s in first["allowable"]}
    max_claim = {(j, e): v for j, a, e, v in rows["max_claim"] if a == asset_id}
    eligible: dict[tuple[str, str], list[clingo.Symbol]] = defaultdict(list)
    for symbol in first["eligible_by"]:
        j, a, e, basis = symbol.arguments
        if a.string == asset_id:
            eligible[(str(j), str(e))].append(basis)
    statute_rules = _qualifying_rules(root)
    listed = asset.applicable_exemptions is not None
    held = {} if listed else _replay(statute_rules, asset_id, root, case_program(case, tables))

    by_jurisdiction: dict[str, list[ExemptionVerdict]] = defaultdict(list)
    for exemption, jurisdiction in sorted(set(rows["exemption_of"])):
        bases = eligible.get((jurisdiction, exemption), [])
        checks = [
            RuleCheck(
                location=rule.location,
                satisfied=held.get(index, -1) == len(rule.conditions),
                failed_condition=None
                if held.get(index, -1) == len(rule.conditions)
                else rule.conditions[held.get(index, -1)]
                if held.get(index, -1) >= 0
                else "(rule not reached)",
            )
            for index, rule in enumerate(statute_rules)
            if rule.exemption == exemption and not listed
        ]
        by_jurisdiction[jurisdiction].append(
            ExemptionVerdict(
                citation=citation.get(exemption, exemption),
                title=titles.get(exemption),
                applies=bool(bases),
                basis=_basis(bases),
                because=_because(bases, checks, listed),
                max_claim=max_claim.get((jurisdiction, exemption)),
                rules=checks,
            )
        )
    jurisdictions = [
        JurisdictionExplanation(
            jurisdiction=jurisdiction_id(j),
            name=JURISDICTION_NAMES.get(jurisdiction_id(j), jurisdiction_id(j)),
            allowable=jurisdiction_id(j) in allowable,
            exemptions=sorted(verdicts, key=lambda v: (not v.applies, v.citation)),
        )
        for j, verdicts in sorted(by_jurisdiction.items(), key=lambda item: (item[0] != "us", item[0]))
    ]
    facts = [fact for fact in case_facts(case) if asp_string(asset_id) in fact]
    return Explanation(
        case_id=case.id,
        asset_id=asset_id,
        description=asset.description,
        facts=facts,
        listed=listed,
        jurisdictions=jurisdictions,
    )


def _basis(bases: list[clingo.Symbol]) -> str:
    if not bases:
        return "none"
    return "listed" if any(b.name == "listed" for b in bases) else "rule"


def _because(bases: list[clingo.Symbol], checks: list[RuleCheck], listed: bool) -> str:
    if bases:
        reasons = ["listed in the case" if b.name == "listed" else why_text(b.arguments[0]) for b in bases]
        return "; ".join(dict.fromkeys(reasons))
    if listed:
        return "the case lists this asset's citations, and not this one"
    if not checks:
        return "no statute rule classifies assets under it (a what-if table entry applies only by listing)"
    failures = [f"{check.failed_condition} fails [{check.location.rsplit('/', 1)[-1]}]" for check in checks]
    return "; ".join(dict.fromkeys(failures))
