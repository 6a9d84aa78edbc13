"""A state whose law offers several exemption systems (California, Cal. Civ. Proc. Code § 703.140(a)): one
list of them in Python and one in the rules, each system a jurisdiction, and answers that name them read."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexsym.answers.names import jurisdiction_code
from lexsym.law.rules import encoded_jurisdictions, encoded_states, jurisdiction_folder, rules_root
from lexsym.law.statute_survey import survey
from lexsym.law.vocabulary import JURISDICTION_NAMES, STATE_SYSTEMS, state_of, systems_of

OPT_OUT = Path(__file__).resolve().parents[1] / "statutes" / "opt_out.lp"


def test_the_python_list_mirrors_the_rules():
    facts = [f.arguments for f in survey(OPT_OUT).facts if f.name == "state_system_of"]
    in_rules: dict[str, set[str]] = {}
    for state, system in facts:
        in_rules.setdefault(state.upper(), set()).add(system.upper())
    assert in_rules == {state: set(systems) for state, systems in STATE_SYSTEMS.items()}
    assert in_rules  # the survey found the facts it is meant to


def test_each_system_is_a_jurisdiction_and_the_state_is_not():
    codes = encoded_jurisdictions(rules_root())
    assert {"CA_703", "CA_704"} <= set(codes)
    assert "CA" not in codes
    assert "CA" in encoded_states(rules_root())
    assert [state_of(c) for c in ("CA_703", "CA_704", "OR", "US")] == ["CA", "CA", "OR", "US"]
    assert systems_of("CA") == ("CA_704", "CA_703") and systems_of("OR") == ("OR",)
    assert jurisdiction_folder("CA_703") == "ca" and jurisdiction_folder("US") == "federal"
    assert JURISDICTION_NAMES["CA_703"] == "California (C.C.P. § 703.140(b))"


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("California (C.C.P. § 704)", "CA_704"),
        ("California (C.C.P. § 703.140(b))", "CA_703"),
        ("CA_703", "CA_703"),
        ("ca-704", "CA_704"),
        ("the California 704 exemptions", "CA_704"),
        ("California System 2", "CA_703"),
        ("California system one", "CA_704"),
        ("California § 703.140(b) exemptions", "CA_703"),
        # Named bare, or with both systems, it names no system: a scorer counts it wrong.
        ("California", "CA"),
        ("California (704 and 703)", "CA"),
        ("Oregon", "OR"),
    ],
)
def test_answers_naming_a_system_are_read_as_it(written, meant):
    assert jurisdiction_code(written) == meant
