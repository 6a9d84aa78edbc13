"""Named statute cases, read from tests/statutes/**/*.yaml (in the manner of OpenFisca's YAML tests).

Each file tests one statute file. A case gives the facts (petition date, filing, assets; the domicile
defaults to a long stay in the state under test, or for federal cases in Oregon, which permits the federal
exemptions) and the expected answers:

    expect:
      jurisdiction: US                      # which jurisdiction's results to check (default US)
      eligible: {asset: [citations]}        # the exact EC set for that asset
      includes: {asset: [citations]}        # citations that must be among them
      excludes: {asset: [citations]}        # citations that must not apply
      max_claim: {asset: {citation: dollars}}   # EV
      non_exempt: dollars                   # NA under that jurisdiction
      exempt_under: {citation: dollars}     # total claimed under a citation in the optimal schedule
      allowable: [jurisdictions]            # AE
      error: substring                      # solving must fail with this message
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lexsym._util.errors import LexsymError
from tests.clintests import DEFAULT_STATE, eligible_citations, exempt_by_citation, max_claims, solve_spec

STATUTE_TESTS = Path(__file__).parent / "statutes"


def _cases():
    for path in sorted(STATUTE_TESTS.rglob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in document["cases"]:
            yield pytest.param(document, case, id=f"{path.relative_to(STATUTE_TESTS)}::{case['name']}")


@pytest.mark.parametrize(("document", "case"), list(_cases()))
def test_statute_case(document, case):
    spec = {key: value for key, value in case.items() if key not in ("name", "expect")}
    expect = case["expect"]
    jurisdiction = expect.get("jurisdiction", "US")
    # The debtor lives in the state under test (a state's own residency limits then hold), else in Oregon.
    state = jurisdiction if jurisdiction != "US" else DEFAULT_STATE
    if "error" in expect:
        with pytest.raises(LexsymError, match=expect["error"]):
            solve_spec(spec, state=state, jurisdictions=[jurisdiction])
        return
    solution = solve_spec(spec, state=state, jurisdictions=[jurisdiction])
    result = solution.result(jurisdiction)
    for asset, citations in expect.get("eligible", {}).items():
        assert eligible_citations(result, asset) == set(citations), asset
    for asset, citations in expect.get("includes", {}).items():
        assert set(citations) <= eligible_citations(result, asset), asset
    for asset, citations in expect.get("excludes", {}).items():
        assert not set(citations) & eligible_citations(result, asset), asset
    for asset, values in expect.get("max_claim", {}).items():
        claims = max_claims(result, asset)
        for citation, dollars in values.items():
            assert claims.get(citation) == dollars, (asset, citation, claims)
    if "non_exempt" in expect:
        assert result.non_exempt_total == expect["non_exempt"]
        assert result.optimal
    for citation, dollars in expect.get("exempt_under", {}).items():
        assert exempt_by_citation(result).get(citation, 0) == dollars, citation
    if "allowable" in expect:
        assert solution.allowable.jurisdictions == expect["allowable"]
