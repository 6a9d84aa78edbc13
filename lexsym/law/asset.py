"""One item of property in a case, described the way exemption statutes test property.

Kept apart from the case itself: the asset's facts grow with every statute that tests a new property fact
(acreage, services, findings), while the case's shape (dates, filing, domicile) stays small.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from lexsym.law.vocabulary import AssetKind, MunicipalService, Owner, Person, RetirementPlan, Use, VehicleType

MAX_DOLLARS = 1_000_000_000
"""The most any one dollar figure of a case may be. Clingo's integers are 32-bit (to $2,147,483,647): a larger
figure would wrap around and give a wrong answer, so it is refused where it is read."""

MAX_ACRES = 1_000_000
"""The most acres one parcel may have (the rules count hundredths of an acre in 32-bit integers)."""


def unset(value: Any) -> bool:
    """Fields added after the nine suites stay out of a case's JSON until set: the suites keep their bytes."""
    return value is None or value is False or value == 0 or value == []


def whole_dollars(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a whole number of dollars")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("must be a whole number of dollars")
        return int(value)
    return value


class Contribution(BaseModel):
    """A contribution the debtor paid into a retirement fund (state exemptions exclude recent ones)."""

    model_config = ConfigDict(extra="forbid")

    date: dt.date
    amount: int = Field(ge=0, le=MAX_DOLLARS, description="Whole dollars.")

    @field_validator("amount", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        return whole_dollars(value)


class Asset(BaseModel):
    """One item of property of the estate, described the way exemption statutes test property."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", description="Unique id within the case.")
    description: str = Field(min_length=1, max_length=2000)
    value: Annotated[
        int, Field(ge=0, le=MAX_DOLLARS, description="Value of the estate's interest, in whole dollars.")
    ]
    kind: AssetKind = AssetKind.OTHER
    use: Use = Field(default=Use.NONE, description="The use the property is held primarily for.")
    user: Person = Field(default=Person.DEBTOR, description="Who uses it (or whom a burial plot is for).")
    owner: Owner | None = Field(
        default=None, description="Joint cases: which debtor holds it; default joint. Single cases: debtor."
    )
    prescribed: bool = Field(
        default=False, description="A health aid professionally prescribed for its user."
    )
    matured: bool = Field(default=False, description="A life insurance contract that has matured.")
    credit_life: bool = Field(default=False, description="A credit life insurance contract.")
    subject: Person | None = Field(
        default=None,
        description="The person a policy insures or a payment concerns (the injured, deceased or earner).",
    )
    plan: RetirementPlan | None = Field(
        default=None, description="Tax provision of a retirement fund, or of the plan paying a plan_payment."
    )
    rollover: bool = Field(default=False, description="Retirement funds attributable to a rollover.")
    vehicle_type: VehicleType | None = Field(default=None, description="Body type of a motor vehicle.")
    luxury: bool = Field(
        default=False, description="Held for its value or display beyond ordinary need (e.g. a fur coat)."
    )
    closely_held: bool = Field(default=False, description="A business interest in a closely held business.")
    sold_on: dt.date | None = Field(
        default=None, description="Homestead proceeds: the date the home was sold."
    )
    reinvested: bool = Field(
        default=False, description="Homestead proceeds already used for a new homestead."
    )
    intends_new_homestead: bool = Field(
        default=False, description="Homestead proceeds held with the intention of buying another homestead."
    )
    acquired_on: dt.date | None = Field(default=None, description="When the debtor acquired the interest.")
    prior_residence_equity: int = Field(
        default=0,
        ge=0,
        le=MAX_DOLLARS,
        description="Equity rolled over from a previous principal residence in the same state, bought before "
        "the 1,215 days before filing (11 U.S.C. § 522(p)(2)(B)).",
    )
    appreciation: int = Field(
        default=0,
        ge=0,
        le=MAX_DOLLARS,
        description="Dollars of the value that are passive market appreciation since the debtor acquired "
        "the interest (not payments or improvements); read by the 11 U.S.C. § 522(p) readings.",
    )
    contributions: list[Contribution] = Field(
        default_factory=list,
        description="Retirement funds: the debtor's contributions with their dates (A.R.S. § 33-1126(B) and "
        "42 Pa. Cons. Stat. § 8124(b)(1)(ix) exclude recent ones). Rollovers are not contributions.",
    )
    reasonably_necessary: int | None = Field(
        default=None,
        ge=0,
        le=MAX_DOLLARS,
        description="A finding of the amount reasonably necessary for support; only exemptions limited "
        "by that standard read it.",
    )
    acres: float | None = Field(
        default=None,
        ge=0,
        le=MAX_ACRES,
        exclude_if=unset,
        description="Land: its area in acres (to 1/100 acre). Absent, the land is taken to be within every "
        "acreage limit; land over a limit is listed as two assets, the designated part and the rest.",
    )
    in_municipality: bool = Field(
        default=False,
        exclude_if=unset,
        description="Land within the limits of a municipality or its extraterritorial jurisdiction, or in a "
        "platted subdivision.",
    )
    within_city_limits: bool = Field(
        default=False,
        exclude_if=unset,
        description="Land inside the corporate limits of a city, town or village itself (Fla. Const. art. X, "
        "§ 4(a)(1): a homestead 'located within a municipality'); implies in_municipality.",
    )
    on_land_not_owned: bool = Field(
        default=False,
        exclude_if=unset,
        description="A dwelling (a house, or a mobile or modular home) standing on land the debtor does "
        "not own but may lawfully occupy, by lease or otherwise (a rented lot in a park, a ground lease; "
        "Fla. Stat. § 222.05).",
    )
    equipped_for_disability: bool = Field(
        default=False,
        exclude_if=unset,
        description="A motor vehicle equipped for use by a disabled debtor (hand controls, a wheelchair "
        "lift): N.Y. C.P.L.R. 5205(a)(8) and Debt. & Cred. Law § 282(1) give such a vehicle a higher figure.",
    )
    county: str | None = Field(
        default=None,
        max_length=40,
        pattern=r"^[A-Za-z][A-Za-z .'-]*$",
        exclude_if=unset,
        description="Land or a home: the county it lies in, by name without the word 'County' (e.g. 'Kings', "
        "'St. Lawrence'); C.P.L.R. 5206(a) sets New York's homestead amount by county.",
    )
    county_median_price: int | None = Field(
        default=None,
        ge=0,
        le=MAX_DOLLARS,
        exclude_if=unset,
        description="Land or a home: the county's median sale price for a single-family home in the calendar "
        "year before the petition, in whole dollars (Cal. Civ. Proc. Code § 704.730(a)(1) sets California's "
        "homestead amount from it). Absent, the homestead has the statute's floor.",
    )
    spouse_on_title: bool = Field(
        default=False,
        exclude_if=unset,
        description="Single filings by a married debtor: the debtor's spouse, who is not a debtor in the "
        "case, also holds title to the property (O.C.G.A. § 44-13-100(a)(1): title 'in one of two spouses').",
    )
    services: list[MunicipalService] = Field(
        default_factory=list,
        exclude_if=unset,
        description="Land: police and (paid or volunteer) fire protection serving it, and the electric, "
        "natural gas, sewer, storm sewer and water service a municipality provides or contracts for.",
    )
    fraud_conversion: int = Field(
        default=0,
        ge=0,
        le=MAX_DOLLARS,
        exclude_if=unset,
        description="Dollars of the value that came from property the debtor disposed of in the 10 years "
        "before filing with intent to hinder, delay or defraud a creditor and could not have exempted (a "
        "finding; 11 U.S.C. § 522(o) reduces state homestead claims by it).",
    )
    applicable_exemptions: list[str] | None = Field(
        default=None,
        description="Citations that apply to this asset, replacing rule-derived classification "
        "(for replaying cases labelled by other tools).",
    )

    @field_validator(
        "value",
        "reasonably_necessary",
        "prior_residence_equity",
        "appreciation",
        "county_median_price",
        mode="before",
    )
    @classmethod
    def _whole(cls, value: Any) -> Any:
        return whole_dollars(value)
