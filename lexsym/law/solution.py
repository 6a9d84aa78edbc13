"""The output contract of `lexsym.solve`: gold answers for tasks AE, EC, EV, NA and OE.

Citation strings are canonical (`11 U.S.C. § 522(d)(2)`); jurisdiction ids are `US` and USPS codes.
`lexsym schema solution` publishes the JSON Schema.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RulePath = Literal["730", "180_whole", "180_longer", "hanging_paragraph"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AllowedJurisdiction(_Model):
    jurisdiction: str = Field(description="US, or the USPS code of a state.")
    name: str
    reason: str = Field(description="Machine-readable rule path, e.g. state_law(whole_730).")
    justification: str = Field(description="The rule and citation that make it allowable.")


class DebtorDomicile(_Model):
    """The 730-day rule for one debtor of the case (11 U.S.C. § 522(b)(3)(A), applied to each, § 522(m))."""

    claimant: Literal["debtor", "spouse"]
    applicable_state: str | None = Field(description="The state whose law § 522(b)(3)(A) points to, if any.")
    rule_path: RulePath
    opted_out: bool | None = Field(description="Whether the applicable state opted out of § 522(d).")
    opt_out_binds: bool | None = Field(
        description="Whether that opt-out reaches this debtor under the reading used (None: no opt-out)."
    )
    days_730: dict[str, int] = Field(description="Days domiciled in each place in the 730-day window.")
    days_180: dict[str, int] = Field(description="Days domiciled in each place in the preceding 180 days.")
    reasons: list[AllowedJurisdiction] = Field(description="What this debtor alone could elect, and why.")


class AllowableJurisdictions(_Model):
    """Task AE: which exemption systems the debtor may choose from (11 U.S.C. § 522(b))."""

    jurisdictions: list[str] = Field(
        description="Allowable system ids, state first, then US; 'AZ+IL' is a composite (the debtor under "
        "Arizona law, the spouse under Illinois law)."
    )
    applicable_state: str | None = Field(description="The state whose law § 522(b)(3)(A) points to, if any.")
    rule_path: RulePath = Field(description="The debtor's rule path (each spouse's is in by_debtor).")
    opted_out: bool | None = Field(description="Whether the applicable state opted out of § 522(d).")
    days_730: dict[str, int] = Field(description="Days domiciled in each place in the 730-day window.")
    days_180: dict[str, int] = Field(description="Days domiciled in each place in the preceding 180 days.")
    reasons: list[AllowedJurisdiction]
    by_debtor: list[DebtorDomicile] = Field(
        default_factory=list, description="The rule for each debtor (one entry; two in a joint case)."
    )


class ExemptionMatch(_Model):
    """Task EC, one asset and one exemption: why the asset falls under it."""

    citation: str
    basis: Literal["rule", "listed"]
    because: str = Field(description="The facts the statute's rule used, or that the case listed it.")


class ExemptionValue(_Model):
    """Task EV, one asset and one exemption: the most it can protect in that asset alone."""

    citation: str
    max_claim: int


class Claim(_Model):
    asset_id: str
    citation: str
    amount: int
    claimant: Literal["debtor", "spouse"]
    justification: str


class JurisdictionResult(_Model):
    jurisdiction: str
    name: str
    allowable: bool
    statutes_encoded: bool = Field(
        description="False when no exemption statute of this jurisdiction is encoded."
    )
    classification: dict[str, list[ExemptionMatch]] = Field(description="Task EC, by asset id.")
    valuation: dict[str, list[ExemptionValue]] = Field(description="Task EV, by asset id.")
    non_exempt_total: int = Field(description="Task NA: the least value left non-exempt.")
    exempt_total: int
    optimal: bool = Field(description="True when the optimum was proven (the search was exhausted).")
    schedule: list[Claim] = Field(description="One optimal schedule reaching non_exempt_total.")
    non_exempt_by_asset: dict[str, int]
    fallback_used: dict[str, int] = Field(
        default_factory=dict,
        description="Dollars each exemption's pools took from a fallback ((d)(5) using unused (d)(1)).",
    )


class OptimalExemptions(_Model):
    """Task OE: the allowable jurisdiction with the least non-exempt value, and its schedule."""

    jurisdiction: str
    non_exempt_total: int
    schedule: list[Claim]
    tie_break: str


class Solution(_Model):
    lexsym_version: str
    rules_digest: str = Field(description="Hash of the statute and encoding files that produced this.")
    case_id: str
    petition_date: dt.date
    filing: Literal["single", "joint"]
    total_value: int
    allowable: AllowableJurisdictions
    jurisdictions: list[JurisdictionResult]
    optimal: OptimalExemptions
    readings: dict[str, str] = Field(
        default_factory=dict, description="The contested readings solved under (lexsym.law.readings)."
    )
    warnings: list[str] = Field(default_factory=list)

    def result(self, jurisdiction: str) -> JurisdictionResult:
        for item in self.jurisdictions:
            if item.jurisdiction == jurisdiction:
                return item
        raise KeyError(jurisdiction)
