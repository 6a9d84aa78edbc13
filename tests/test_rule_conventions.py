"""House rules for statute and encoding files, checked so that every edit keeps them.

- every exemption's id is derived from its canonical citation, and it has a title and a paraphrase;
- every file opens with a `%#` title and states its source and interface;
- every classification rule has a citation comment directly above it;
- every federal amount is dated for the 2019, 2022 and 2025 § 104 adjustments;
- the vocabulary in Python (lexsym/law/vocabulary.py) and in ASP (encodings/vocabulary.lp) is the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexsym.law.citations import clean_citation, exemption_id
from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.vocabulary import AssetKind, Person, RetirementPlan, Use
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
    from lexsym.law.clingo_runner import solve_stratified

    program = (
        "#show exemption/2. #show citation/2. #show exemption_title/2. #show statute_text/2. #show amount/4."
    )
    return {str(s) for s in solve_stratified(files, program)}


ATOMS = _show_all([ROOT / "encodings" / "vocabulary.lp", *statute_files(ROOT)])


def test_every_exemption_id_is_derived_from_its_canonical_citation():
    exemptions = {a[len("exemption(") :].split(",")[0] for a in atoms_named(ATOMS, "exemption")}
    citations = {k: v.strip('"') for k, v in _pairs(ATOMS, "citation").items()}
    assert exemptions, "no exemptions found"
    for exemption in exemptions:
        assert exemption in citations, f"{exemption} has no citation/2"
        citation = citations[exemption]
        assert clean_citation(citation) == citation, f"{citation!r} is not canonical"
        assert exemption_id(citation) == exemption, f"{exemption} should be named {exemption_id(citation)}"


def test_every_exemption_has_a_title_and_our_paraphrase():
    exemptions = {a[len("exemption(") :].split(",")[0] for a in atoms_named(ATOMS, "exemption")}
    assert exemptions <= set(_pairs(ATOMS, "exemption_title"))
    assert exemptions <= set(_pairs(ATOMS, "statute_text"))


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_rule_file_states_title_source_and_interface(path):
    text = path.read_text()
    assert text.startswith("%# "), "the first line must be a %# title"
    head = text[:3000]
    assert "Source:" in head
    assert "Output:" in head or "Input:" in head


@pytest.mark.parametrize("path", statute_files(ROOT), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_classification_rule_cites_its_source(path):
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        if line.startswith(("qualifies(", "in_group(", "group_extra(", "no_stacking(")):
            start = number
            while start > 0 and not lines[start - 1].startswith("%"):
                start -= 1  # skip the rule's own earlier lines and blank lines
            block = []
            while start > 0 and lines[start - 1].startswith("%"):
                start -= 1
                block.append(lines[start])
            assert any("§" in comment for comment in block), f"{path.name}:{number + 1}: no citation above"


def test_federal_amounts_are_dated_for_each_adjustment():
    dated: dict[tuple[str, str], set[str]] = {}
    for atom in atoms_named(ATOMS, "amount"):
        if not atom.startswith("amount(usc11_"):
            continue
        match = re.match(r"amount\((\w+),(.+),date\((\d+),4,1\),\d+\)$", atom)
        assert match, atom
        dated.setdefault((match[1], match[2]), set()).add(match[3])
    assert dated
    for key, years in dated.items():
        assert years == {"2019", "2022", "2025"}, key


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


def _constants_in(pattern: str, text: str) -> set[str]:
    found: set[str] = set()
    for group in re.findall(pattern, text):
        found |= set(re.findall(r"[a-z][a-z0-9_]*", group))
    return found


def test_statutes_use_only_vocabulary_values():
    text = "\n".join(
        "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("%"))
        for path in statute_files(ROOT)
    )
    kinds = _constants_in(r"asset_kind\(A, ([a-z_]+)\)", text) | _constants_in(r"_kind\(([^)]*)\)\.", text)
    kinds |= _constants_in(r"K = \(([^)]*)\)", text)
    assert kinds, "no kinds found"
    assert kinds <= {kind.value for kind in AssetKind}, kinds - {kind.value for kind in AssetKind}
    uses = _constants_in(r"asset_use\(A, ([a-z_]+)\)", text)
    assert uses <= {use.value for use in Use}
    plans = _constants_in(r"tax_exempt_plan\(([^)]*)\)", text) | _constants_in(r"T = \(([^)]*)\)", text)
    assert plans and plans <= {plan.value for plan in RetirementPlan}


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
