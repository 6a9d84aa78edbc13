"""House rules that are not per-file conventions: those (headers, canonical citations and ids, titles,
citation comments, vocabulary words, amounts) are `lexsym lint`'s, and tests/test_lint.py runs it over the
shipped statutes; one checker, one opinion.

- every federal amount is dated for each § 104 adjustment from 2004 (in force when BAPCPA took effect)
  through 2025, or from its BAPCPA enactment;
- the vocabulary in Python (lexsym/law/vocabulary.py) and in ASP (encodings/vocabulary.lp) is the same;
- the opt-out list covers every state, with its dates.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.vocabulary import AmountKind, AssetKind, Person, RetirementPlan, Use
from tests.clintests import answer_set, atoms_named

ROOT = rules_root()
RULE_FILES = [*statute_files(ROOT), *sorted((ROOT / "encodings").glob("*.lp"))]
VOCABULARY = (ROOT / "encodings" / "vocabulary.lp").read_text()


def _statute_atoms() -> set[str]:
    return answer_set(
        ["#show opt_out/1."], files=[ROOT / "encodings" / "vocabulary.lp", *statute_files(ROOT)]
    )


def _pairs(atoms: set[str], name: str) -> dict[str, str]:
    pairs = {}
    for atom in atoms_named(atoms, name):
        key, _, value = atom[len(name) + 1 : -1].partition(",")
        pairs[key] = value
    return pairs


def _show_all(files: list[Path]) -> set[str]:
    from lexsym.law.stratified import solve_stratified

    program = (
        "#show exemption/2. #show citation/2. #show exemption_title/2. #show statute_text/2. #show amount/4."
    )
    return {str(s) for s in solve_stratified(files, program)}


ATOMS = _show_all([ROOT / "encodings" / "vocabulary.lp", *statute_files(ROOT)])


# The caps BAPCPA created start with their enacted figure on the day they first applied (Pub. L. 109-8
# § 1501): § 522(p) and (q) (§ 322) from enactment, 2005-04-20 (§ 1501(b)(2)); § 522(n) (§ 224) from
# 2005-10-17.
# The § 104 cycle adjusts them from 2007-04-01.
BAPCPA_ENACTED = {"usc11_522_p": "2005,4,20", "usc11_522_q": "2005,4,20", "usc11_522_n": "2005,10,17"}


def test_federal_amounts_are_dated_for_each_adjustment():
    dated: dict[tuple[str, str], set[str]] = {}
    enacted: dict[tuple[str, str], str] = {}
    for atom in atoms_named(ATOMS, "amount"):
        if not atom.startswith("amount(usc11_"):
            continue
        match = re.match(r"amount\((\w+),(.+),date\((\d+),4,1\),\d+\)$", atom)
        if not match:
            # an enacted figure, dated the day its BAPCPA section first applied (and at most one per cap)
            match = re.match(r"amount\((\w+),(.+),date\((\d+,\d+,\d+)\),\d+\)$", atom)
            assert match and BAPCPA_ENACTED.get(match[1]) == match[3], atom
            assert (match[1], match[2]) not in enacted, atom
            enacted[match[1], match[2]] = match[3]
            continue
        dated.setdefault((match[1], match[2]), set()).add(match[3])
    assert dated
    assert set(enacted) <= set(dated)
    for key, years in dated.items():
        # every § 104 adjustment (April 1, every third year) from the earliest encoded one through 2025; the
        # figures reach back to BAPCPA (2005-10-17): from the 2004 adjustment, or from the enacted figure
        first = min(int(year) for year in years)
        assert first == (2007 if key in enacted else 2004), key
        assert years == {str(year) for year in range(first, 2026, 3)}, key


def _documented_values(predicate: str) -> set[str]:
    block = VOCABULARY.split(f"%*! {predicate}")[1].split("*%")[0]
    words = re.findall(r"\b[a-z][a-z0-9_]*\b", block.split("\n", 1)[1].split("Example:")[0])
    return set(words)


def test_asp_vocabulary_documents_every_python_asset_kind():
    documented = _documented_values("asset_kind(A,K)")
    assert {kind.value for kind in AssetKind} <= documented


def test_asp_vocabulary_documents_every_use_and_plan():
    assert {use.value for use in Use} <= _documented_values("asset_use(A,U)")
    assert {plan.value for plan in RetirementPlan} <= _documented_values("retirement_plan(A,T)")
    assert {p.value for p in Person} - {"provider", "other"} <= _documented_values("subject(A,P)")


def test_asp_vocabulary_documents_every_amount_kind():
    assert {kind.value for kind in AmountKind} <= _documented_values("amount(E,K,From,V)")


def test_case_encodings_exist_in_order():
    assert case_encoding_files(ROOT)[0].name == "vocabulary.lp"
    assert all(p.is_file() for p in case_encoding_files(ROOT))


def _opt_out_atoms(petition: str) -> set[str]:
    program = [
        f"petition_date({petition}).",
        "#show opt_out/1. #show opt_out_source/2. #show opt_out_scope/2. #show opt_out_citation/2.",
    ]
    return answer_set(program, files=[ROOT / "encodings" / "vocabulary.lp", ROOT / "statutes" / "opt_out.lp"])


def _states_in(atoms: set[str], name: str) -> set[str]:
    return {a[len(name) + 1 :].split(",")[0].rstrip(")").upper() for a in atoms_named(atoms, name)}


def test_statutes_define_opt_out_for_every_state():
    from lexsym.law.vocabulary import STATES

    atoms = _opt_out_atoms("date(2024,6,1)")
    opted = _states_in(atoms, "opt_out")
    assert opted <= set(STATES)
    assert {"AZ", "IL", "ME", "MT", "KS"} <= opted
    assert not {"OR", "PA", "WI", "WV", "NY", "KY", "AK"} & opted
    assert len(set(STATES) - opted) == 21
    # Every state and D.C. has its source line; every opted-out state its statute and the wording's reach.
    assert _states_in(atoms, "opt_out_source") == set(STATES)
    assert opted <= _states_in(atoms, "opt_out_citation")
    assert opted <= _states_in(atoms, "opt_out_scope")


@pytest.mark.parametrize(
    ("petition", "state", "opted_out"),
    [
        ("date(2021,6,30)", "WV", True),
        ("date(2021,7,1)", "WV", False),
        ("date(2013,6,30)", "OR", True),
        ("date(2013,7,1)", "OR", False),
        ("date(2010,12,31)", "NY", True),
        ("date(2011,1,1)", "NY", False),
    ],
)
def test_opt_out_status_changes_on_its_date(petition, state, opted_out):
    assert (state in _states_in(_opt_out_atoms(petition), "opt_out")) is opted_out
