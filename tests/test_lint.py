"""`lexsym lint`: the shipped statutes are clean, every code fires on a bad file at its line and not on the
good one, the five mistakes the legal-engineer audit made are caught, and `--fix` mends what it says."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.law.citation_formats import FORMATS, formats_for, formats_markdown, recognise
from lexsym.law.citations import exemption_id
from lexsym.law.lint import GROUNDED_CODES, lint
from lexsym.law.lint_codes import CODES, codes_markdown

REPO = Path(__file__).resolve().parents[1]


def test_shipped_statutes_are_clean():
    problems = lint([REPO / "statutes"])
    assert not problems, "\n".join(map(str, problems))


def test_shipped_encodings_pass_the_file_checks():
    problems = lint([REPO / "encodings"], select=["LX0"])
    assert not problems, "\n".join(map(str, problems))


def _lexsym(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, cwd=folder, timeout=120
    )


def test_cli_lint_exits_zero_on_the_shipped_statutes():
    result = _lexsym(REPO, "lint", str(REPO / "statutes"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "clean" in result.stdout


@pytest.fixture(scope="module")
def _shared_rules(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lint") / "rules"
    shutil.copytree(REPO / "statutes", root / "statutes")
    shutil.copytree(REPO / "encodings", root / "encodings")
    shutil.rmtree(root / "statutes" / "oh", ignore_errors=True)  # the tests' files play a new Ohio
    return root


@pytest.fixture()
def rules(_shared_rules) -> Path:
    """A copy of the shipped rules (made once per module); each test's files go in statutes/oh/."""
    yield _shared_rules
    shutil.rmtree(_shared_rules / "statutes" / "oh", ignore_errors=True)


def _add(rules: Path, name: str, text: str, folder: str = "oh") -> Path:
    path = rules / "statutes" / folder / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


HEADER = (
    "%# Ohio Rev. Code § 2329.66(A)(4): household goods\n%\n"
    "% Source: test, 2026-12-02.\n% Output: exemption/2.\n"
)
"""Four lines, so the first fact of a body is on line 5."""

GOOD = """exemption(oh_2329_66_a_4, oh).
citation(oh_2329_66_a_4, "Ohio Rev. Code § 2329.66(A)(4)").
exemption_title(oh_2329_66_a_4, "Household goods").
statute_text(oh_2329_66_a_4, "Household goods, up to the amount in force.").
% Ohio Rev. Code § 2329.66(A)(4): household goods.
qualifies(oh_2329_66_a_4, A, kind(K)) :- asset_is(A, K), K = (household_good; appliance).
amount(oh_2329_66_a_4, limit, date(2025,4,1), 14875).
amount(oh_2329_66_a_4, per_item, date(2025,4,1), 725).
item_count(oh_2329_66_a_4, 3).
"""


def _swap(old: str, new: str, header: str = HEADER) -> str:
    assert old in header + GOOD, old
    return (header + GOOD).replace(old, new, 1)


# (code, the bad file, the line the problem is reported at); the good file is HEADER + GOOD.
BAD_FILES = [
    ("LX001", _swap("%# Ohio", "% Ohio"), 1),
    ("LX002", _swap("% Source: test, 2026-12-02.\n", "%\n"), 1),
    ("LX003", _swap("% Output: exemption/2.\n", "%\n"), 1),
    ("LX004", _swap("household goods\n%", "TITLE\n%"), 1),
    ("LX004", _swap("(household_good; appliance)", "(KIND)"), 10),
    (
        "LX005",
        _swap("item_count(oh_2329_66_a_4, 3).\n", "item_count(oh_2329_66_a_4, 3).\nbig(1..1000000000).\n"),
        14,
    ),
    ("LX101", _swap('citation(oh_2329_66_a_4, "Ohio Rev. Code § 2329.66(A)(4)").\n', ""), 5),
    ("LX102", _swap('"Ohio Rev. Code § 2329.66(A)(4)"', '"Ohio Rev Code 2329.66(A)(4)"'), 6),
    ("LX102", _swap('"Ohio Rev. Code § 2329.66(A)(4)"', '"Revised Code 2329.66(A)(4)"'), 6),
    ("LX103", (HEADER + GOOD).replace("oh_2329_66_a_4", "oh_household"), 5),
    ("LX104", _swap("exemption(oh_2329_66_a_4, oh)", "exemption(oh_2329_66_a_4, ohh)"), 5),
    ("LX105", _swap('exemption_title(oh_2329_66_a_4, "Household goods").\n', ""), 5),
    ("LX105", _swap('statute_text(oh_2329_66_a_4, "Household goods, up to the amount in force.").\n', ""), 5),
    ("LX106", _swap("% Ohio Rev. Code § 2329.66(A)(4): household goods.\n", "% household goods.\n"), 10),
    ("LX202", _swap("date(2025,4,1), 14875", "date(2025,2,30), 14875"), 11),
    ("LX203", _swap("14875", "-4450"), 11),
    ("LX204", _swap("item_count(oh_2329_66_a_4, 3)", "item_count(oh_2329_66_a_4, 0)"), 13),
    ("LX205", _swap("per_item", "per_itme"), 12),
    ("LX302", _swap("household_good;", "househld_good;"), 10),
    ("LX302", _swap("asset_is(A, K), K", "asset_is(A, K), asset_use(A, persnal), K"), 10),
    ("LX206", _swap("item_count(", 'amount_source(oh_2329_66_a_4, date(2025,4,2), "x").\nitem_count('), 13),
    ("LX304", _swap("asset_is(A, K), K", "asset_is(A, K), reading(p_appreciation, countd), K"), 10),
    ("LX304", _swap("asset_is(A, K), K", "asset_is(A, K), reading(p_apreciation, counted), K"), 10),
]


def _reported(rules: Path, path: Path, code: str) -> list[str]:
    return [str(p) for p in lint([path], rules=str(rules), select=[code]) if p.code == code]


@pytest.mark.parametrize(
    ("code", "text", "line"), BAD_FILES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(BAD_FILES)]
)
def test_each_code_fires_on_its_bad_file_at_its_line_and_not_on_the_good_one(rules, code, text, line):
    path = _add(rules, "bad.lp", text)
    found = _reported(rules, path, code)
    assert any(
        m.startswith(f"statutes/oh/bad.lp:{line}: {code} ") or f"bad.lp:{line}: {code} " in m for m in found
    ), found
    good = _add(rules, "good.lp", HEADER + GOOD)
    path.unlink()
    assert _reported(rules, good, code) == []


def test_every_code_has_a_bad_file_or_a_grounded_test():
    covered = {code for code, _, _ in BAD_FILES} | set(GROUNDED_CODES)
    assert covered == set(CODES)


def test_an_illinois_style_citation_in_a_comment_counts_as_a_citation(rules):
    text = _swap(
        "% Ohio Rev. Code § 2329.66(A)(4): household goods.\n", "% 735 ILCS 5/12-1001(b), as Ohio reads it.\n"
    )
    assert _reported(rules, _add(rules, "ok.lp", text), "LX106") == []


# -- the grounded codes -----------------------------------------------------------------------------------


def test_missing_limit_is_reported_at_the_declaration(rules):
    text = _swap("amount(oh_2329_66_a_4, limit, date(2025,4,1), 14875).\n", "")
    found = _reported(rules, _add(rules, "bad.lp", text), "LX201")
    assert any("bad.lp:5: LX201 oh_2329_66_a_4 has no limit amount" in m for m in found), found


def test_undefined_predicate_is_reported_with_its_line_and_the_nearest_name(rules):
    text = _swap("asset_is(A, K), K", "asset_is(A, K), asset_usr(A, debtor), K")
    found = _reported(rules, _add(rules, "bad.lp", text), "LX301")
    assert any(
        "bad.lp:10: LX301" in m and "asset_usr" in m and "did you mean `asset_user`?" in m for m in found
    )


def test_unreachable_exemption_is_reported(rules):
    text = _swap("K = (household_good; appliance)", "asset_is(A, motor_vehicle), asset_is(A, jewelry)")
    found = _reported(rules, _add(rules, "bad.lp", text), "LX303")
    assert any("no catalogue asset qualifies for oh_2329_66_a_4" in m for m in found), found


def test_a_bad_count_is_reported_once_at_its_line_not_inside_the_encodings(rules):
    text = _swap("item_count(oh_2329_66_a_4, 3)", "item_count(oh_2329_66_a_4, 0)")
    problems = lint([_add(rules, "bad.lp", text)], rules=str(rules))
    assert [p.code for p in problems] == ["LX204"], problems


# -- the audit's five mistakes, and --fix -----------------------------------------------------------------

MISTAKES = """%# Ohio Rev Code 2329.66(A)(4): household goods
%
% Source: test, 2026-12-02.
% Output: exemption/2.
exemption(oh_2329_66_a_4, oh).
citation(oh_2329_66_a_4, "Ohio Rev Code 2329.66(A)(4)").
exemption_title(oh_2329_66_a_4, "Household goods").
statute_text(oh_2329_66_a_4, "Household goods.").
% Ohio Rev. Code § 2329.66(A)(4).
qualifies(oh_2329_66_a_4, A, kind(K)) :- asset_is(A, K), K = (househld_good; appliance).
amount(oh_2329_66_a_4, limit, date(2025,4,1), -4450).
item_count(oh_2329_66_a_4, 0).
exemption(oh_2329_66_a_2, ohh).
citation(oh_2329_66_a_2, "Ohio Rev. Code § 2329.66(A)(2)").
exemption_title(oh_2329_66_a_2, "Vehicle").
statute_text(oh_2329_66_a_2, "A vehicle.").
% Ohio Rev. Code § 2329.66(A)(2).
qualifies(oh_2329_66_a_2, A, kind(motor_vehicle)) :- asset_is(A, motor_vehicle).
unlimited(oh_2329_66_a_2).
"""


def test_the_audits_five_mistakes_are_each_caught_at_their_line(rules):
    path = _add(rules, "mistakes.lp", MISTAKES)
    found = {(p.location.rsplit(":", 1)[1], p.code) for p in lint([path], rules=str(rules))}
    assert {("6", "LX102"), ("13", "LX104"), ("11", "LX203"), ("12", "LX204"), ("10", "LX302")} <= found, (
        found
    )


# Five mistakes of our own, each made in a real statute file the way an edit makes it: (file, the text as
# shipped, the edit, the code, the message, which names the fix). Each is reported at the edited line, but
# the orphaned source (LX206) at the source's own line, the one after the edited amount.
OUR_MISTAKES = [
    (
        "az/33-1125_personal_items.lp",
        "debtor_or_dependent(P), reading(az_prostheses, prostheses_only).",
        "debtor_or_dependent(P), reading(az_prostheses, prosthesis_only).",
        "LX304",
        "unknown option `prosthesis_only` of reading `az_prostheses`; did you mean `prostheses_only`?",
    ),
    (
        "federal/522d5_wildcard.lp",
        "amount(usc11_522_d_5, limit, date(2025,4,1), 1675).",
        "amount(usc11_522_d_5, limit, date(2025,4,31), 1675).",
        "LX202",
        "amount limit of usc11_522_d_5: bad date date(2025,4,31)",
    ),
    (
        "il/12-1001_personal_property.lp",
        "amount_as_of(ilcs735_5_12_1001_b, limit, date(2019,1,1), 4000).",
        "amount_as_of(ilcs735_5_12_1001_b, limit, date(2019,1,2), 4000).",
        "LX206",
        "amount_source of ilcs735_5_12_1001_b is dated date(2019,1,1); its amounts are dated date(2019,1,2)",
    ),
    (
        "az/33-1101_homestead.lp",
        "amount(ars_33_1101_a, joint_limit, date(2022,12,5), 400000).",
        "amount(ars_33_1101_a, joint_limt, date(2022,12,5), 400000).",
        "LX205",
        "unknown amount kind `joint_limt`; did you mean `joint_limit`?",
    ),
    (
        "wi/815_20_1_homestead.lp",
        ":- asset_use(A, residence), asset_user(A, debtor).",
        ":- asset_use(A, residense), asset_user(A, debtor).",
        "LX302",
        "unknown use `residense`; did you mean `residence`?",
    ),
]


@pytest.mark.parametrize(("name", "shipped", "edited", "code", "message"), OUR_MISTAKES)
def test_five_mistakes_of_our_own_in_real_statute_files(rules, name, shipped, edited, code, message):
    path = rules / "statutes" / name
    original = path.read_text(encoding="utf-8")
    assert original.count(shipped) == 1, shipped
    line = original[: original.index(shipped)].count("\n") + 1 + (code == "LX206")
    path.write_text(original.replace(shipped, edited), encoding="utf-8")
    try:
        found = [p for p in lint([path], rules=str(rules)) if p.code == code]
    finally:
        path.write_text(original, encoding="utf-8")
    assert [(p.location.rsplit(":", 1)[1], p.message) for p in found] == [(str(line), message)], found


def test_fix_mends_the_mechanical_ones_and_unsafe_fixes_the_spellings(rules):
    path = _add(rules, "mistakes.lp", MISTAKES)
    safe = _lexsym(rules, "lint", "statutes/oh", "--fix")
    assert safe.returncode == 1
    text = path.read_text(encoding="utf-8")
    assert text.startswith("%# Ohio Rev. Code § 2329.66(A)(4): household goods")
    assert 'citation(oh_2329_66_a_4, "Ohio Rev. Code § 2329.66(A)(4)")' in text
    assert "househld_good" in text and "ohh" in text  # guesses wait for --unsafe-fixes
    assert "LX302" in safe.stdout and "[**]" in safe.stdout and "LX102" not in safe.stdout
    unsafe = _lexsym(rules, "lint", "statutes/oh", "--fix", "--unsafe-fixes")
    text = path.read_text(encoding="utf-8")
    assert "K = (household_good; appliance)" in text and "exemption(oh_2329_66_a_2, oh)." in text
    remaining = sorted(line.split(": ")[1].split()[0] for line in unsafe.stdout.splitlines())
    assert remaining == ["LX203", "LX204"], unsafe.stdout  # a sign or a count is a person's decision
    assert unsafe.returncode == 1


def test_fix_renames_an_id_everywhere_in_the_file(rules):
    text = _swap("oh_2329_66_a_4", "oh_household").replace("oh_2329_66_a_4", "oh_household")
    path = _add(rules, "renamed.lp", text)
    assert _lexsym(rules, "lint", "statutes/oh", "--fix").returncode == 0
    assert "oh_household" not in path.read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8") == HEADER + GOOD


def test_json_output_and_explain_and_bad_selectors(rules):
    _add(rules, "mistakes.lp", MISTAKES)
    result = _lexsym(rules, "lint", "statutes/oh", "--json", "--select", "LX2")
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["code"] for r in records} == {"LX203", "LX204"} and result.returncode == 1
    assert records[0]["location"] == "statutes/oh/mistakes.lp:11"
    explained = _lexsym(rules, "lint", "--explain", "lx203")
    assert explained.returncode == 0 and CODES["LX203"].rationale in explained.stdout
    from typer.testing import CliRunner

    from lexsym.cli import app

    for code in CODES:
        assert CODES[code].rationale in CliRunner().invoke(app, ["lint", "--explain", code]).stdout
    bad = _lexsym(rules, "lint", "--select", "LX9")
    assert bad.returncode == 2 and "unknown code 'LX9'" in bad.stderr and "Traceback" not in bad.stderr


# -- the canonical forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "canonical", "ident"),
    [
        ("Ohio Rev Code 2329.66 (A) (2)", "Ohio Rev. Code § 2329.66(A)(2)", "oh_2329_66_a_2"),
        ("735 ILCS 5/12-1001(b)", "735 Ill. Comp. Stat. 5/12-1001(b)", "ilcs735_5_12_1001_b"),
        ("ORS 18.345(1)(p)", "Or. Rev. Stat. § 18.345(1)(p)", "ors_18_345_1_p"),
        ("A.R.S. § 33-1101(A)", "Ariz. Rev. Stat. § 33-1101(A)", "ars_33_1101_a"),
        ("O.C.G.A. § 44-13-100(a)(1)", "Ga. Code Ann. § 44-13-100(a)(1)", "ga_44_13_100_a_1"),
        ("C.C.P. § 703.140(b)(5)", "Cal. Civ. Proc. Code § 703.140(b)(5)", "ca_ccp_703_140_b_5"),
        ("CPLR 5206(a)", "N.Y. C.P.L.R. 5206(a)", "ny_cplr_5206_a"),
        ("11 usc 522(d)(3)", "11 U.S.C. § 522(d)(3)", "usc11_522_d_3"),
    ],
)
def test_aliases_and_loose_spellings_are_recognised_with_their_canonical_form(written, canonical, ident):
    found = recognise(written)
    assert found is not None and found.canonical == canonical and found.exemption_id == ident
    assert exemption_id(canonical) == ident


def test_every_jurisdiction_has_a_canonical_form():
    from lexsym.law.vocabulary import JURISDICTION_NAMES, state_of

    # A state's systems (California's CA_703 and CA_704) cite the state's code.
    assert {f.jurisdiction for f in FORMATS} == {state_of(code).lower() for code in JURISDICTION_NAMES}
    assert formats_for("CA_703") == formats_for("CA") != []


def test_the_guide_holds_the_code_and_form_tables_as_the_code_renders_them():
    guide = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
    assert codes_markdown() in guide
    assert formats_markdown() in guide
