"""Which exemptions each catalogue asset falls under in each jurisdiction: the snapshot that guards the old
jurisdictions' classification while new states, vocabulary and catalogue entries are added (issue 17).

    python -m tests.catalogue_classification     # rewrite the snapshot after a change you meant

A change to the snapshot is a change to the gold answers of every suite that samples those assets, so it
is only ever rewritten on purpose, with the reason in the commit.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from lexsym.law.case import Case, DomicilePeriod
from lexsym.law.catalogue import load_catalogue
from lexsym.law.first_pass import first_pass
from lexsym.law.rules import rules_root
from lexsym.law.systems import system_constant
from lexsym.law.vocabulary import state_of

SNAPSHOT = Path(__file__).parent / "fixtures" / "catalogue_classification.json"
JURISDICTIONS = ("US", "AZ", "IL", "OR", "PA", "WI")
"""The jurisdictions encoded before issue 17: their classification of the catalogue must not move."""
PETITION = dt.date(2024, 6, 1)


def classification(jurisdiction: str, asset_ids: set[str] | None = None) -> dict[str, list[str]]:
    """Catalogue asset id -> the sorted citations it is eligible under in `jurisdiction`, for a single
    debtor domiciled there for decades (US: in Oregon), each asset at its lowest value."""
    entries = [e for e in load_catalogue() if asset_ids is None or e.id in asset_ids]
    assets = []
    for entry in entries:
        extra = {}
        if entry.sale_months_ago is not None:
            year, month = divmod(PETITION.year * 12 + PETITION.month - 1 - entry.sale_months_ago[0], 12)
            extra["sold_on"] = dt.date(year, month + 1, 1)
        assets.append(entry.to_asset(asset_id=entry.id, value=entry.value_min, **extra))
    home = "OR" if jurisdiction == "US" else state_of(jurisdiction)
    case = Case(
        id="catalogue",
        petition_date=PETITION,
        domicile=[DomicilePeriod(state=home, start=dt.date(1990, 1, 1))],
        assets=assets,
    )
    _, first = first_pass(case, rules_root(), jurisdictions=[jurisdiction])
    citation = first.citations()
    constant = system_constant(jurisdiction)
    found: dict[str, set[str]] = {entry.id: set() for entry in entries}
    for symbol in first["eligible_by"]:
        system, asset, exemption, _basis = symbol.arguments
        if str(system) == constant:
            found[asset.string].add(citation[str(exemption)])
    return {asset: sorted(citations) for asset, citations in sorted(found.items())}


def snapshot() -> dict[str, dict[str, list[str]]]:
    return {code: classification(code) for code in JURISDICTIONS}


if __name__ == "__main__":
    from lexsym._util.atomic import write_atomic

    write_atomic(SNAPSHOT, json.dumps(snapshot(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {SNAPSHOT}")
