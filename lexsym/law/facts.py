"""Turning a case (and optional what-if tables) into ASP facts.

Day arithmetic happens here in Python (ordinal day numbers), so the rules only compare integers and
leap years are never the encoding's problem.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from lexsym.law.case import Case
from lexsym.law.citations import canonical_citation
from lexsym.law.date_arithmetic import full_months_between, years_before
from lexsym.law.vocabulary import Filing, Person


def asp_string(text: str) -> str:
    """`text` as an ASP string literal. A NUL would end the program text clingo reads mid-string and make it
    abort on the half character left in its error message, so NUL becomes U+FFFD."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\x00", "\ufffd")
    return f'"{escaped}"'


def county_key(name: str) -> str:
    """`St. Lawrence County` -> `st. lawrence`: the form the statute files compare county names in."""
    words = name.split()
    if words and words[-1].lower() == "county":
        words = words[:-1]
    return " ".join(words).lower()


def asp_date(day: dt.date) -> str:
    return f"date({day.year},{day.month},{day.day})"


def place_constant(code: str) -> str:
    return code.lower()


def claimants(case: Case) -> list[str]:
    return ["debtor", "spouse"] if case.filing is Filing.JOINT else ["debtor"]


def domicile_facts(case: Case) -> list[str]:
    """What the 730-day rule reads: the petition, the claimants, each one's domicile history and where they
    live on the petition date, the filing state, and the contested readings."""
    facts: list[str] = [
        f"petition_date({asp_date(case.petition_date)}).",
        f"petition_day({case.petition_date.toordinal()}).",
        f"filing({case.filing.value}).",
    ]
    for claimant in claimants(case):
        facts.append(f"claimant({claimant}).")
        for index, period in enumerate(case.domicile_of(claimant)):
            end = (period.end or case.petition_date).toordinal()
            place = place_constant(period.state)
            facts.append(f"domicile_period({claimant},{index},{place},{period.start.toordinal()},{end}).")
        place = case.place_on_petition_date(claimant)
        if place is not None:
            facts.append(f"domiciled_on_petition_day({claimant},{place_constant(place)}).")
    filed = case.filing_state()
    if filed is not None:
        facts.append(f"filed_in({place_constant(filed)}).")
    if case.spouses_cannot_agree:
        facts.append("spouses_cannot_agree.")
    if case.spousal_waiver:
        facts.append("spousal_waiver.")
    if case.married or case.filing is Filing.JOINT:
        facts.append("married.")
    if case.dependents:
        facts.append(f"dependents({case.dependents}).")
    if case.licensed_drivers is not None:
        facts.append(f"licensed_drivers({case.licensed_drivers}).")
    grounds = {"debtor": case.homestead_cap_grounds, "spouse": case.spouse_homestead_cap_grounds}
    for claimant in claimants(case):
        for ground in sorted({g.value for g in grounds[claimant]}):
            facts.append(f"homestead_cap_ground({claimant},{ground}).")
    facts.extend(case.readings.facts())
    return facts


def case_facts(case: Case) -> list[str]:
    """Facts for one case, sorted so that the same case always grounds (and solves) the same way."""
    facts = domicile_facts(case)
    for years in range(1, YEARS_BACK + 1):
        facts.append(f"years_before_day({years},{years_before(case.petition_date, years).toordinal()}).")
    for index, visit in enumerate(case.visits):
        facts.append(
            f"visit({index},{place_constant(visit.state)},{visit.start.toordinal()},{visit.end.toordinal()})."
        )
    for index, item in enumerate(case.third_party_property):
        facts.append(f"third_party_item({index},{item.value}).")
    for asset in sorted(case.assets, key=lambda item: item.id):
        facts.extend(_asset_facts(case, asset))
    return facts


YEARS_BACK = 5
"""How many anniversaries before the petition date the facts name (for look-back periods counted in years)."""


def _asset_facts(case: Case, asset) -> Iterable[str]:
    a = asp_string(asset.id)
    yield f"asset({a})."
    yield f"asset_value({a},{asset.value})."
    yield f"asset_kind({a},{asset.kind.value})."
    yield f"asset_use({a},{asset.use.value})."
    yield f"asset_user({a},{asset.user.value})."
    yield f"asset_owner({a},{case.owner_of(asset).value})."
    if asset.prescribed:
        yield f"prescribed({a})."
    if asset.matured:
        yield f"matured({a})."
    if asset.credit_life:
        yield f"credit_life({a})."
    if asset.subject is not None:
        yield f"subject({a},{Person(asset.subject).value})."
    if asset.plan is not None:
        yield f"retirement_plan({a},{asset.plan.value})."
    if asset.rollover:
        yield f"rollover({a})."
    if asset.vehicle_type is not None:
        yield f"vehicle_type({a},{asset.vehicle_type.value})."
    if asset.luxury:
        yield f"luxury({a})."
    if asset.acres is not None:
        yield f"acres_hundredths({a},{round(asset.acres * 100)})."
    if asset.fraud_conversion:
        yield f"fraud_conversion({a},{asset.fraud_conversion})."
    if asset.in_municipality or asset.within_city_limits:
        yield f"in_municipality({a})."
    if asset.within_city_limits:
        yield f"within_city_limits({a})."
    if asset.on_land_not_owned:
        yield f"on_land_not_owned({a})."
    if asset.equipped_for_disability:
        yield f"equipped_for_disability({a})."
    if asset.county is not None:
        yield f"asset_county({a},{asp_string(county_key(asset.county))})."
    if asset.county_median_price is not None:
        yield f"county_median_price({a},{asset.county_median_price})."
    if asset.spouse_on_title:
        yield f"spouse_on_title({a})."
    for service in sorted({s.value for s in asset.services}):
        yield f"municipal_service({a},{service})."
    if asset.closely_held:
        yield f"closely_held({a})."
    if asset.sold_on is not None:
        # A period "for N months after the sale" starts the day after the sale and runs through the
        # N-month anniversary (the month's last day where the sale's day does not exist), so the months
        # counted are those complete by the day before the petition: on the anniversary N-1 have passed,
        # and the proceeds are still inside a "fewer than N" window. (Counting from the day after the
        # sale instead loses the anniversary whenever that later day is missing from the month: a sale on
        # 28 August 2023 would leave the window on 28 February 2025, its own anniversary.)
        elapsed = full_months_between(asset.sold_on, case.petition_date - dt.timedelta(days=1))
        yield f"months_since_sale({a},{elapsed})."
    if asset.reinvested:
        yield f"reinvested({a})."
    if asset.intends_new_homestead:
        yield f"intends_new_homestead({a})."
    if asset.acquired_on is not None:
        yield f"acquired_day({a},{asset.acquired_on.toordinal()})."
    if asset.prior_residence_equity:
        yield f"prior_residence_equity({a},{asset.prior_residence_equity})."
    if asset.appreciation:
        yield f"appreciation({a},{asset.appreciation})."
    for index, contribution in enumerate(asset.contributions):
        yield f"contribution({a},{index},{contribution.date.toordinal()},{contribution.amount})."
    if asset.reasonably_necessary is not None:
        yield f"reasonably_necessary({a},{asset.reasonably_necessary})."
    if asset.applicable_exemptions is not None:
        yield f"listed({a})."
        for citation in sorted({canonical_citation(c) for c in asset.applicable_exemptions}):
            yield f"listed_citation({a},{asp_string(citation)})."
