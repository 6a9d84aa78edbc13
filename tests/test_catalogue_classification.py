"""The old jurisdictions classify every catalogue asset as they did before issue 17's new states: a new
state, vocabulary word or catalogue entry must not move an existing asset's EC set in US, AZ, IL, OR, PA
or WI (`tests/catalogue_classification.py` says how to rewrite the snapshot after a change you meant)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from lexsym.law.rules import encoded_jurisdictions, rules_root
from tests.catalogue_classification import JURISDICTIONS, PETITION, SNAPSHOT, classification


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_existing_assets_keep_their_classification(jurisdiction):
    before = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[jurisdiction]
    now = classification(jurisdiction, set(before))
    moved = {asset: (before[asset], now.get(asset)) for asset in before if now.get(asset) != before[asset]}
    assert not moved, f"{len(moved)} assets changed class in {jurisdiction}, e.g. {list(moved.items())[:3]}"
    assert sum(bool(citations) for citations in before.values()) > 300  # the snapshot holds real sets


def test_the_snapshot_covers_the_whole_catalogue_it_was_taken_from():
    from lexsym.law.catalogue import load_catalogue

    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    ids = {entry.id for entry in load_catalogue()}
    assert set(snapshot) == set(JURISDICTIONS)
    for jurisdiction, assets in snapshot.items():
        assert set(assets) <= ids, f"{jurisdiction}: catalogue entries were removed or renamed"
        assert len(assets) >= 753


NEW_STATES = [
    code for code in encoded_jurisdictions(rules_root()) if code != "US" and code not in JURISDICTIONS
]


@pytest.mark.parametrize("state", NEW_STATES)
def test_every_exemption_of_a_new_state_is_reached_by_three_catalogue_assets(state):
    """Issue 17: the generator can sample every new exemption, from more than one described asset."""
    from lexsym.law.statute_sheet import statute_sheet

    reached = Counter(c for citations in classification(state).values() for c in citations)
    sheet = statute_sheet(PETITION, ("US", state))
    thin = {e.citation: reached[e.citation] for e in sheet.for_jurisdiction(state) if reached[e.citation] < 3}
    assert not thin, thin
