"""Rendering a Solution for people: rich tables for the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from lexsym.law.explain import Explanation
from lexsym.law.solution import JurisdictionResult, Solution


def _money(value: int) -> str:
    return f"${value:,}"


def render_solution(solution: Solution, console: Console, *, details: bool = False) -> None:
    allowable = solution.allowable
    console.print(
        f"[bold]{solution.case_id}[/bold]  petition {solution.petition_date}  {solution.filing} filing  "
        f"estate {_money(solution.total_value)}"
    )
    days = Table(title="Domicile (11 U.S.C. § 522(b)(3)(A))", show_header=True)
    days.add_column("place")
    days.add_column("days of the 730", justify="right")
    days.add_column("days of the 180 before", justify="right")
    for place in sorted(set(allowable.days_730) | set(allowable.days_180)):
        days.add_row(place, str(allowable.days_730.get(place, 0)), str(allowable.days_180.get(place, 0)))
    console.print(days)

    ae = Table(title=f"AE: allowable jurisdictions (rule path {allowable.rule_path})")
    ae.add_column("jurisdiction")
    ae.add_column("why")
    for reason in allowable.reasons:
        ae.add_row(f"{reason.jurisdiction} {reason.name}", reason.justification)
    console.print(ae)

    na = Table(title="NA: least non-exempt value per jurisdiction")
    for column in ("jurisdiction", "allowable", "exempt", "non-exempt", "proven optimal"):
        na.add_column(column, justify="right" if column in ("exempt", "non-exempt") else "left")
    for result in solution.jurisdictions:
        na.add_row(
            f"{result.jurisdiction} {result.name}",
            "yes" if result.allowable else "no",
            _money(result.exempt_total),
            _money(result.non_exempt_total),
            "yes" if result.optimal else "NO",
        )
    console.print(na)

    for result in solution.jurisdictions:
        if details or result.jurisdiction == solution.optimal.jurisdiction:
            _render_assets(result, console)

    oe = Table(
        title=f"OE: optimal schedule under {solution.optimal.jurisdiction} "
        f"(non-exempt {_money(solution.optimal.non_exempt_total)})"
    )
    for column in ("asset", "citation", "claimant", "amount"):
        oe.add_column(column, justify="right" if column == "amount" else "left")
    for claim in solution.optimal.schedule:
        oe.add_row(claim.asset_id, claim.citation, claim.claimant, _money(claim.amount))
    console.print(oe)
    if details:
        for claim in solution.optimal.schedule:
            console.print(
                f"- {claim.asset_id} ({claim.claimant}, {_money(claim.amount)}): {claim.justification}"
            )
    for warning in solution.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")


def _render_assets(result: JurisdictionResult, console: Console) -> None:
    table = Table(title=f"EC and EV under {result.jurisdiction} {result.name}")
    for column in ("asset", "citation", "because", "max claim"):
        table.add_column(column, justify="right" if column == "max claim" else "left")
    for asset, matches in sorted(result.classification.items()):
        values = {v.citation: v.max_claim for v in result.valuation.get(asset, [])}
        for match in matches:
            table.add_row(asset, match.citation, match.because, _money(values.get(match.citation, 0)))
    console.print(table)


def render_explanation(explanation: Explanation, console: Console) -> None:
    console.print(f"[bold]{explanation.asset_id}[/bold]: {explanation.description}")
    console.print("facts: " + " ".join(explanation.facts))
    if explanation.listed:
        console.print("The case lists this asset's citations: the statute rules are not consulted.")
    for jurisdiction in explanation.jurisdictions:
        allowed = "allowable" if jurisdiction.allowable else "not allowable"
        table = Table(title=f"{jurisdiction.jurisdiction} {jurisdiction.name} ({allowed})")
        for column in ("citation", "applies", "max claim", "why"):
            table.add_column(column, justify="right" if column == "max claim" else "left")
        for verdict in jurisdiction.exemptions:
            table.add_row(
                verdict.citation + (f" ({verdict.title})" if verdict.title else ""),
                "[green]yes[/green]" if verdict.applies else "no",
                _money(verdict.max_claim) if verdict.max_claim is not None else "",
                verdict.because,
            )
        console.print(table)
