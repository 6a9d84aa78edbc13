"""Generators of whole cases under the federal exemptions (11 U.S.C. § 522(d)): assets described the way the
statute tests them, single or joint debtors, petition dates across the encoded § 104 adjustments."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from hypothesis import strategies as st

from lexsym.law.case import Case
from lexsym.law.date_arithmetic import years_before
from lexsym.testing.choices import Choices, DrawnChoices, SeededChoices

FIRST_PETITION_DATE = dt.date(2019, 4, 1)
"""The earliest § 104 amounts encoded are in force from this day."""


LAST_PETITION_DATE = dt.date(2026, 12, 31)


_HOUSEHOLD_KINDS = (
    "household_furnishing",
    "household_good",
    "wearing_apparel",
    "appliance",
    "book",
    "animal",
    "musical_instrument",
)


_TRADE_KINDS = ("tool", "implement", "professional_book")


# (template, most it is usually worth): each template describes property the way § 522(d) tests it.
_TEMPLATES: tuple[tuple[str, int], ...] = (
    ("vehicle", 40_000),
    ("residence", 400_000),
    ("household", 6_000),
    ("jewelry", 15_000),
    ("tools", 20_000),
    ("cash", 30_000),
    ("bank", 60_000),
    ("ira", 300_000),
    ("retirement", 300_000),
    ("health_aid", 10_000),
    ("life_value", 40_000),
    ("life_policy", 20_000),
    ("injury", 60_000),
    ("alimony", 30_000),
    ("burial", 8_000),
    ("securities", 100_000),
)


def federal_cases(
    *,
    min_assets: int = 1,
    max_assets: int = 8,
    joint: bool | None = None,
    state: str = "OR",
) -> st.SearchStrategy[Case]:
    """Cases whose assets fall under the federal exemptions of § 522(d), several competing per asset.

    Assets: vehicles, a residence, household goods, jewelry, tools of the trade, cash and bank accounts,
    IRAs and other retirement funds, prescribed health aids, life insurance, injury payments, alimony,
    burial plots, securities; owned by the debtor, the spouse or both in joint filings.
    min_assets, max_assets: how many assets.
    joint: True for joint filings, False for single, None for either.
    state: the one domicile, from 12 years before the petition (default Oregon, which permits the
    federal exemptions, so US is allowable).
    Petition dates run from 2019-04-01 (the first § 104 amounts encoded) to 2026-12-31.
    """
    if not 1 <= min_assets <= max_assets:
        raise ValueError("need 1 <= min_assets <= max_assets")

    @st.composite
    def build(draw: Any) -> Case:
        return _case(
            DrawnChoices(draw), min_assets=min_assets, max_assets=max_assets, joint=joint, state=state
        )

    return build()


def random_federal_case(
    rng: random.Random,
    *,
    min_assets: int = 1,
    max_assets: int = 8,
    joint: bool | None = None,
    state: str = "OR",
) -> Case:
    """One case from `rng`, drawn as `federal_cases` draws them: for seeded benchmarks."""
    if not 1 <= min_assets <= max_assets:
        raise ValueError("need 1 <= min_assets <= max_assets")
    return _case(SeededChoices(rng), min_assets=min_assets, max_assets=max_assets, joint=joint, state=state)


def _case(choose: Choices, *, min_assets: int, max_assets: int, joint: bool | None, state: str) -> Case:
    is_joint = choose.chance(50) if joint is None else joint
    petition = dt.date.fromordinal(
        choose.integer(FIRST_PETITION_DATE.toordinal(), LAST_PETITION_DATE.toordinal())
    )
    assets = [
        _asset(choose, f"asset_{i}", is_joint) for i in range(1, choose.integer(min_assets, max_assets) + 1)
    ]
    return Case.model_validate(
        {
            "id": "generated",
            "petition_date": petition,
            "filing": "joint" if is_joint else "single",
            "domicile": [{"state": state, "start": years_before(petition, 12)}],
            "assets": assets,
        }
    )


def _asset(choose: Choices, asset_id: str, joint: bool) -> dict[str, Any]:
    template, most = choose.pick(_TEMPLATES)
    value = 0 if choose.chance(5) else choose.integer(1, most if choose.chance(70) else 5_000)
    asset: dict[str, Any] = {"id": asset_id, "description": f"{template} {asset_id}", "value": value}
    if template == "vehicle":
        asset.update(kind="motor_vehicle", use=choose.pick(["personal", "trade", "none"]))
        # New York's higher figure for a vehicle equipped for a disabled debtor (Debt. & Cred. Law § 282(1)).
        asset.update(equipped_for_disability=choose.chance(15))
    elif template == "residence":
        asset.update(
            kind=choose.pick(["real_property", "mobile_home"]),
            use="residence",
            user=choose.pick(["debtor", "dependent"]),
        )
        # The land facts the acreage homesteads read (Tex. Prop. Code § 41.002, Fla. Const. art. X,
        # § 4(a)(1)), so two parcels can compete for one acreage, and a home on a rented lot (§ 222.05).
        if asset["kind"] == "real_property" and choose.chance(40):
            asset.update(acres=choose.integer(10, 20000) / 100, within_city_limits=choose.chance(50))
        elif asset["kind"] == "mobile_home":
            asset.update(on_land_not_owned=choose.chance(50))
        # The county groups of New York's homestead figure (C.P.L.R. 5206(a)); no county is the last group.
        if choose.chance(50):
            asset.update(county=choose.pick(["Kings", "Westchester", "Albany", "Ulster", "Erie"]))
        # California's homestead figure from the county median, below, inside and above its bounds
        # (Cal. Civ. Proc. Code § 704.730(a)).
        if choose.chance(50):
            asset.update(county_median_price=choose.integer(150_000, 1_200_000))
    elif template == "household":
        asset.update(kind=choose.pick(_HOUSEHOLD_KINDS), use="personal")
    elif template == "jewelry":
        asset.update(kind="jewelry", use="personal", user=choose.pick(["debtor", "dependent"]))
    elif template == "tools":
        asset.update(kind=choose.pick(_TRADE_KINDS), use="trade")
    elif template in ("cash", "bank"):
        asset.update(kind="cash" if template == "cash" else "bank_account")
    elif template == "ira":
        asset.update(
            kind="retirement_account", plan=choose.pick(["irc_408", "irc_408a"]), rollover=choose.chance(20)
        )
    elif template == "retirement":
        asset.update(kind="retirement_account", plan=choose.pick(["irc_401", "irc_403", "irc_457"]))
    elif template == "health_aid":
        asset.update(kind="health_aid", use="personal", prescribed=choose.chance(80))
    elif template == "life_value":
        asset.update(kind="life_insurance_value", subject=choose.pick(["debtor", "provider"]))
    elif template == "life_policy":
        asset.update(kind="life_insurance_policy")
    elif template == "injury":
        asset.update(kind="personal_injury_payment", subject="debtor")
    elif template == "alimony":
        asset.update(kind="alimony", reasonably_necessary=choose.integer(0, max(value, 1)))
    elif template == "burial":
        asset.update(kind="burial_plot", use="burial")
    else:
        asset.update(kind="securities", use="investment")
    if joint:
        owner = choose.pick(["joint", "debtor", "spouse"])
        if owner != "joint" or choose.chance(50):
            asset["owner"] = owner
    return asset
