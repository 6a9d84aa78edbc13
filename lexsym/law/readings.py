"""Contested readings of the law: where courts (or the sources) disagree, each reading is a named option.

A case or a generator config picks one option per reading (`readings: {nonresident_opt_out: literal}`);
everything it leaves out takes the stated default. The choice reaches the rules as `reading(Name, Option)`
facts, and the solution, task metadata and manifests record the full set used, so no gold answer rests on
a silent choice. `statutes/README.md` lists the same readings with their authorities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model


@dataclass(frozen=True)
class Reading:
    """One contested point: its options (the first is the default), what it decides and who says so."""

    name: str
    options: tuple[str, ...]
    question: str
    authorities: dict[str, str]
    rules: dict[str, str]

    @property
    def default(self) -> str:
        return self.options[0]


READINGS: tuple[Reading, ...] = (
    Reading(
        "nonresident_opt_out",
        ("camp", "literal"),
        "Does an opt-out limited to a state's residents (or domiciliaries, citizens, filings in the state) "
        "bar "
        "a debtor whom the 730-day rule sends to that state's law but who lives elsewhere on the petition "
        "date from electing the 11 U.S.C. § 522(d) exemptions?",
        {
            "camp": "No: the opt-out reaches only the debtors it names. In re Camp, 631 F.3d 757 (5th Cir. "
            "2011); "
            "In re Rody, 468 B.R. 384 (Bankr. D. Ariz. 2012) (A.R.S. § 33-1133(B)); Shell v. Yoon (N.D. Ind. "
            "2013) (735 ILCS 5/12-1201); In re Long, 470 B.R. 186 (Bankr. D. Kan. 2012) (Nebraska).",
            "literal": "Yes: § 522(b)(3)(A) applies the state's law as if the debtor still lived there. In "
            "re "
            "Rodenbough, 579 B.R. 545 (Bankr. D. Idaho 2018); In re Wilson (Bankr. D. Idaho 2015); In re "
            "Cosgrove (Bankr. M.D. Fla. 2020).",
        },
        {
            "camp": "An opt-out reaches only the debtors its own words name (residents, domiciliaries, "
            "citizens, or cases filed in the state); a debtor the 730-day rule sends to that state's "
            "law who is not one of them may still choose the federal exemptions.",
            "literal": "An opt-out bars every debtor whose exemptions the opted-out state's law governs, "
            "wherever that debtor lives.",
        },
    ),
    Reading(
        "p_appreciation",
        ("excluded", "counted"),
        "Does passive appreciation of a home bought inside the 1,215 days count against the 11 U.S.C. "
        "§ 522(p) cap?",
        {
            "excluded": "No: appreciation is not an 'interest ... acquired'. In re Rasmussen, 349 B.R. 747 "
            "(Bankr. M.D. Fla. 2006); In re Chouinard (Bankr. M.D. Fla. 2006); compare In re Blair, 334 B.R. "
            "374 (Bankr. N.D. Tex. 2005).",
            "counted": "Yes: the interest acquired is the ownership interest, whose whole value on the "
            "petition "
            "date counts (the trustee's reading rejected in Rasmussen; the ownership reading of In re "
            "Rogers, "
            "513 F.3d 212 (5th Cir. 2008) and In re Greene, 583 F.3d 614 (9th Cir. 2009) points this way).",
        },
        {
            "excluded": "Passive appreciation of a home acquired within the 1,215 days does not count "
            "against the 11 U.S.C. § 522(p) cap; only the interest acquired does.",
            "counted": "The whole value of a home acquired within the 1,215 days, appreciation included, "
            "counts against the 11 U.S.C. § 522(p) cap.",
        },
    ),
    Reading(
        "az_prostheses",
        ("prostheses_only", "prescribed_health_aids"),
        "Does A.R.S. § 33-1125(9) ('professionally prescribed prostheses ..., including a wheelchair or "
        "motorized mobility device') reach every prescribed health aid?",
        {
            "prostheses_only": "No: the word is 'prostheses', and the 2018 amendment had to add mobility "
            "devices by name (Laws 2018, ch. 200). No reported decision; plain text.",
            "prescribed_health_aids": "Yes: read as the health-aid exemptions of 11 U.S.C. § 522(d)(9) and "
            "ORS 18.345(1)(h) are. No reported decision.",
        },
        {
            "prostheses_only": "Ariz. Rev. Stat. § 33-1125(9) covers prescribed prostheses, wheelchairs "
            "and motorized mobility devices, not other health aids.",
            "prescribed_health_aids": "Ariz. Rev. Stat. § 33-1125(9) covers every professionally "
            "prescribed health aid.",
        },
    ),
    Reading(
        "ira_cap_scope",
        ("retirement_provisions", "all_exemptions"),
        "Does the 11 U.S.C. § 522(n) IRA cap also limit an IRA exempted under a state's own statute (via "
        "§ 522(b)(3)(A)), or only IRAs exempted under § 522(b)(3)(C) and (d)(12)?",
        {
            "retirement_provisions": "Only (b)(3)(C) and (d)(12): practice guides read a state statute as "
            "protecting IRAs above the cap (e.g. irahelp.com on the 2022 adjustment). No decision found.",
            "all_exemptions": "Every IRA 'exempted under this section', state-law claims included: the "
            "literal "
            "text of § 522(n). No decision found.",
        },
        {
            "retirement_provisions": "The 11 U.S.C. § 522(n) IRA cap limits IRAs exempted under § "
            "522(b)(3)(C) and (d)(12), not those a state's own statute protects.",
            "all_exemptions": "The 11 U.S.C. § 522(n) IRA cap limits every exemption claimed in an IRA, a "
            "state's own statute and any wildcard included.",
        },
    ),
    Reading(
        "or_base_protected_balance",
        ("garnishment_only", "exemption"),
        "Is ORS 18.785's base protected account balance (operative 2025-01-01) an exemption a debtor can "
        "claim in bankruptcy, or only a garnishee bank's duty?",
        {
            "garnishment_only": "A duty of the garnishee under the writ-of-garnishment chapter ('not subject "
            "to garnishment'), not listed among the exemptions from execution (ORS 18.345). No decision "
            "found.",
            "exemption": "Property 'not subject to garnishment' is exempt under state law for § "
            "522(b)(3)(A). "
            "No decision found.",
        },
        {
            "garnishment_only": "Or. Rev. Stat. § 18.785 only shields bank balances from garnishment; it "
            "is not an exemption in bankruptcy.",
            "exemption": "Or. Rev. Stat. § 18.785 makes the base protected account balance exempt in "
            "bankruptcy too.",
        },
    ),
    Reading(
        "residency_limits",
        ("as_written", "preempted"),
        "Where the governing state's exemption is limited to residents of that state (A.R.S. § 33-1101(A): "
        "a person 'who resides within this state'; Wis. Stat. § 815.18(5): 'A resident is entitled to the "
        "exemptions'), does the limit apply to a debtor who lives elsewhere on the petition date?",
        {
            "as_written": "Yes: the state-specific approach applies the state's law as written. In re Arrol, "
            "170 F.3d 934 (9th Cir. 1999); In re Drenttel, 403 F.3d 611 (8th Cir. 2005); Sheehan v. Ash, 889 "
            "F.3d 171 (4th Cir. 2018); In re Kauer (Bankr. D. Ariz. 2020).",
            "preempted": "No: § 522(b)(3)(A) preempts a residency limit that would leave the debtor "
            "without the "
            "exemption. In re Garrett, 435 B.R. 434 (Bankr. S.D. Tex. 2010).",
        },
        {
            "as_written": "A state exemption limited to residents of that state (the Arizona homestead, "
            "Wisconsin's exemptions) is not available to a debtor who lives elsewhere on the petition "
            "date.",
            "preempted": "A state exemption's residency limit does not apply to a debtor whom the 730-day "
            "rule sends to that state's law.",
        },
    ),
    Reading(
        "joint_property_claims",
        ("own_interest", "whole_property"),
        "Where a state lets each spouse's exemption be 'combined with the other spouse's exemption in the "
        "same "
        "property or applied to different property' (A.R.S. § 33-1121.01; Wis. Stat. § 815.18(8)), may one "
        "spouse's exemption cover the whole of jointly held (community or marital) property, or only that "
        "spouse's half?",
        {
            "own_interest": "Only the spouse's own half: each debtor exempts within their interest (11 "
            "U.S.C. "
            "§ 522(m); the Wisconsin blind reader's reading). No decision found.",
            "whole_property": "The whole: community property is all in the estate (11 U.S.C. § 541(a)(2)) "
            "and "
            "the statute lets an exemption be 'applied to different property' (the Arizona blind reader's "
            "reading). No decision found.",
        },
        {
            "own_interest": "In Arizona and Wisconsin each spouse's exemption covers only that spouse's "
            "half of "
            "property the spouses hold jointly.",
            "whole_property": "In Arizona and Wisconsin one spouse's exemption may cover the whole of "
            "property "
            "the spouses hold jointly (the two spouses' claims together still cannot exceed its value).",
        },
    ),
)

BY_NAME: dict[str, Reading] = {reading.name: reading for reading in READINGS}


def _describe(name: str) -> str:
    """The question and what each option answers, so a case author cannot mistake which is which."""
    reading = BY_NAME[name]
    options = "; ".join(
        f"'{option}'{' (default)' if option == reading.default else ''}: {reading.rules[option].rstrip('.')}"
        for option in reading.options
    )
    return f"{reading.question} Options: {options}"


class _ReadingsBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def as_dict(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in BY_NAME}

    def facts(self) -> list[str]:
        return [f"reading({name},{value})." for name, value in self.as_dict().items()]

    def merged(self, overrides: dict[str, Any] | None) -> _ReadingsBase:
        """These readings with `overrides` (a partial mapping) applied on top."""
        if not overrides:
            return self
        return type(self).model_validate({**self.as_dict(), **overrides})


Readings = create_model(
    "Readings",
    __base__=_ReadingsBase,
    __doc__="The contested readings a case is solved under; each field defaults to the stated default.",
    **{
        reading.name: (
            Literal[reading.options],
            Field(default=reading.default, description=_describe(reading.name)),
        )
        for reading in READINGS
    },
)
"""One field per reading of READINGS (options and default stated there once)."""

DEFAULT_READINGS = Readings()
