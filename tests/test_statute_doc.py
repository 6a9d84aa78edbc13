"""`lexsym doc`: the literate statute view, read as HTML, followed link by link, and looked at in Chromium."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lexsym.law.rules import encoded_jurisdictions
from lexsym.literate.statute_source import read_statute_source

REPO = Path(__file__).resolve().parents[1]
AS_OF = "2026-12-03"
PAGES = {"index.html", *(f"{code.lower()}.html" for code in encoded_jurisdictions(REPO))}
"""One page per jurisdiction with a statute folder, and the index."""

PASSING = """\
statute: statutes/il/12-1001_personal_property.lp
cases:
  - name: a wildcard claim up to $4,000
    assets: [{id: savings, kind: bank_account, use: personal, value: 4000}]
    expect:
      jurisdiction: IL
      max_claim: {savings: {"735 Ill. Comp. Stat. 5/12-1001(b)": 4000}}
"""
FAILING = """\
statute: statutes/il/12-1001_personal_property.lp
cases:
  - name: a deliberately wrong expectation
    assets: [{id: savings, kind: bank_account, use: personal, value: 9000}]
    expect:
      jurisdiction: IL
      non_exempt: 1234
"""


def lexsym(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


class _Page(HTMLParser):
    """The ids, links and visible text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def read_page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def words(page: _Page) -> str:
    return re.sub(r"\s+", " ", html.unescape(" ".join(page.text)))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The project's statutes rendered with two test files of our own: one that passes, one that fails."""
    base = tmp_path_factory.mktemp("doc")
    (base / "tests" / "il").mkdir(parents=True)
    (base / "tests" / "il" / "passing.yaml").write_text(PASSING)
    (base / "tests" / "il" / "failing.yaml").write_text(FAILING)
    done = lexsym(
        "doc", "statutes", "--out", str(base / "site"), "--tests", str(base / "tests"), "--as-of", AS_OF
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {base / 'site' / 'index.html'} and {len(PAGES) - 1} jurisdiction pages\n"
    assert "tests: 1 passed, 1 failed, 0 malformed" in done.stderr
    return base / "site"


def test_the_parse_keeps_header_fields_choices_sections_and_block_comments(tmp_path):
    source = tmp_path / "x.lp"
    source.write_text(
        "%# Ohio Rev. Code § 2329.66(A)(4)(a): household goods\n%\n"
        "% Source: Ohio Rev. Code § 2329.66, read 2026-12-03\n%         from the statute page.\n"
        "% Output: exemption/2.\n%\n% Choices, each with its citation:\n"
        "% - first choice,\n%   continued.\n% - second choice.\n%\n% A closing paragraph\n% on two lines.\n\n"
        "% ----- (A)(4)(a) household goods -----\n\nexemption(oh_2329_66_a_4_a, oh).\n"
        'citation(oh_2329_66_a_4_a, "Ohio Rev. Code § 2329.66(A)(4)(a)").\n\n'
        "% the rule\nqualifies(oh_2329_66_a_4_a, A, k) :- asset(A), reading(p_appreciation, counted).\n"
        "%*! doc(X)\nwhat X means\n*%\n"
    )
    parsed = read_statute_source(source)
    assert parsed.title == "Ohio Rev. Code § 2329.66(A)(4)(a): household goods"
    assert parsed.fields["Source"] == "Ohio Rev. Code § 2329.66, read 2026-12-03 from the statute page."
    assert parsed.choices == ("first choice, continued.", "second choice.")
    assert parsed.prose == ("A closing paragraph on two lines.",)
    (section,) = parsed.sections
    assert section.title == "(A)(4)(a) household goods" and section.line == 15
    assert section.exemption_ids == ("oh_2329_66_a_4_a",)
    assert section.readings == (("p_appreciation", "counted"),)
    kinds = [(block.kind, block.line) for block in section.blocks]
    assert kinds == [("code", 17), ("comment", 20), ("code", 21), ("comment", 22)]
    assert section.blocks[-1].lines == ("doc(X)", "what X means")


def test_every_link_of_every_page_leads_somewhere(site):
    pages = {path.name: read_page(path) for path in site.glob("*.html")}
    assert set(pages) == PAGES and {"us.html", "az.html", "il.html", "oh.html", "wi.html"} <= PAGES
    for name, page in pages.items():
        for link in page.links:
            target, _, fragment = link.partition("#")
            target = target or name
            assert target in pages, f"{name}: link to {link}"
            assert not fragment or fragment in pages[target].ids, f"{name}: dangling link {link}"


def test_a_page_sets_the_law_beside_its_rules_with_dated_amounts_and_sources(site):
    text = words(read_page(site / "il.html"))
    assert "735 Ill. Comp. Stat. 5/12-1001(b) Any other personal property (wildcard)" in text
    assert "The debtor's equity interest in any other personal property" in text  # the paraphrase
    assert "amount_as_of(ilcs735_5_12_1001_b, limit, date(2019,1,1), 4000)." in text  # the rule beside it
    assert "Limit: $4,000; in a joint case each debtor has a separate $4,000." in text  # terms in force
    assert "2019-01-01 (as of) $4,000 figure in the text of 12-1001 that P.A. 100-922" in text  # its source
    federal = words(read_page(site / "us.html"))
    # The § 104(a) table: one column per adjustment, every figure of (d)(1) across them.
    # (From 2004, the figures in force when BAPCPA took effect; the unconfirmed mark follows its figure.)
    # The caps over state exemptions start with BAPCPA: § 522(p) on enactment, § 522(n) on 2005-10-17.
    columns = (
        "2004-04-01 2005-04-20 2005-10-17 2007-04-01 2010-04-01 2013-04-01 2016-04-01 2019-04-01 2022-04-01 "
        "2025-04-01"
    )
    assert columns in federal
    assert "11 U.S.C. § 522(p) limit $125,000 $136,875 $146,450 unconfirmed" in federal
    texas = words(read_page(site / "tx.html"))  # a state's aggregate cap, with its family figure
    assert "Tex. Prop. Code § 42.001(a) limit $30,000 $50,000 unconfirmed" in texas
    assert "Tex. Prop. Code § 42.001(a) family $60,000 $100,000 unconfirmed" in texas
    assert "(Amounts in force: $50,000 for a single adult, $100,000 for a family.)" in texas
    assert (
        "11 U.S.C. § 522(d)(1) limit $18,450 unconfirmed $20,200 $21,625 $22,975 unconfirmed "
        "$23,675 unconfirmed $25,150 $27,900 $31,575"
    ) in federal


def test_departures_readings_and_the_opt_out_are_on_the_page(site):
    text = words(read_page(site / "az.html"))
    assert "Opted out of the federal exemptions on 2026-12-03 (Ariz. Rev. Stat. § 33-1133(B)" in text
    assert "Departs from OpenExempt: No item count (OpenExempt: 1)" in text
    assert "az_prostheses Does A.R.S. § 33-1125(9)" in text
    assert "prostheses_only default :" in text  # the default is marked
    assert "In re Arrol, 170 F.3d 934" in text  # residency_limits, with its authorities
    assert "Under reading az_prostheses = prescribed_health_aids" in text
    oregon = words(read_page(site / "or.html"))
    assert "Permits the federal exemptions on 2026-12-03 (Or. Rev. Stat. § 18.300)" in oregon


def test_each_test_shows_its_status_and_a_failure_says_expected_and_got(site):
    text = words(read_page(site / "il.html"))
    assert "pass a wildcard claim up to $4,000 line 3" in text
    assert "FAIL a deliberately wrong expectation line 3" in text
    assert re.search(r"non_exempt \(IL\): expected 1234, got \d+", text)
    index = words(read_page(site / "index.html"))
    assert "Illinois IL 5 12 opted out 1 passed 1 failed" in index
    assert "Arizona AZ 7 19 opted out no tests" in index


def test_a_new_state_scaffolded_tested_and_rendered(tmp_path):
    """The legal engineer's path: a copy of the rules, `lexsym new`, the placeholders filled, `lexsym
    test`, then `lexsym doc`, with no lexsym source in sight."""
    for part in ("statutes", "encodings"):
        shutil.copytree(REPO / part, tmp_path / part)
    shutil.rmtree(tmp_path / "statutes" / "oh", ignore_errors=True)  # Ohio as a state not yet encoded
    assert lexsym("new", "jurisdiction", "OH", cwd=tmp_path).returncode == 0
    made = lexsym("new", "statute", "Ohio Rev Code 2329.66(A)(4)(a)", "--jurisdiction", "OH", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    rule = tmp_path / "statutes" / "oh" / "oh_2329_66_a_4_a.lp"
    text = rule.read_text().replace("date(YYYY,M,D)", "date(2024,4,1)").replace("DOLLARS", "13400")
    rule.write_text(
        text.replace(
            "kind(KIND)) :- asset_is(A, KIND)", "kind(household_good)) :- asset_is(A, household_good)"
        ).replace("TITLE", "Household goods")
    )
    cases = tmp_path / "tests" / "statutes" / "oh" / "oh_2329_66_a_4_a.yaml"
    filled = cases.read_text().replace("DOLLARS_PLUS_ONE", "13401").replace("DOLLARS", "13400")
    cases.write_text(filled.replace("OTHER_KIND", "motor_vehicle").replace("KIND", "household_good"))
    tested = lexsym("test", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    done = lexsym("doc", "--out", "site", "--as-of", AS_OF, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = words(read_page(tmp_path / "site" / "oh.html"))
    assert "Ohio Rev. Code § 2329.66(A)(4)(a) Household goods" in text
    assert "Limit: $13,400" in text and "Tests: 4 passed" in text
    assert "Ohio OH 2 2 opted out 4 passed" in words(read_page(tmp_path / "site" / "index.html"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("encodings",), "encodings: give a statutes/ folder that has an encodings/ folder beside it"),
        (("statutes", "--as-of", "soon"), "--as-of: 'soon' is not a date (YYYY-MM-DD)"),
        (("statutes", "--tests", "nowhere"), "--tests nowhere: no such folder"),
        (("statutes", "--out", "README.md"), "README.md: exists and is not a folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(args, message):
    done = lexsym("doc", *args, "--no-run")
    assert done.returncode == 2 and done.stderr == f"lexsym: error: {message}\n"


def test_the_pages_read_well_in_chromium(site, browser, tmp_path):
    """Looked at: the two columns sit side by side, nothing runs off the page, and the amounts table and
    a failing test are where a reader looks for them."""
    from selenium.webdriver.common.by import By

    browser.get((site / "il.html").as_uri())
    browser.save_screenshot(str(tmp_path / "il.png"))
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1500
    law = browser.find_element(By.CSS_SELECTOR, "#ilcs735-5-12-1001-b")
    pair = law.find_element(By.XPATH, "./ancestor::div[contains(@class, 'pair')]")
    rules = pair.find_element(By.CSS_SELECTOR, ".rules")
    assert law.location["x"] + law.size["width"] <= rules.location["x"]  # law on the left, rules right
    assert abs(law.location["y"] - rules.location["y"]) < 40  # and level with each other
    assert law.value_of_css_property("display") == "block" and law.size["height"] > 100
    failing = browser.find_element(By.CSS_SELECTOR, "tr.fail .badge")
    assert failing.text == "FAIL" and failing.value_of_css_property("color") == "rgba(179, 38, 30, 1)"
    browser.get((site / "us.html").as_uri())
    table = browser.find_element(By.CSS_SELECTOR, "table.amounts")
    headers = [th.text for th in table.find_elements(By.CSS_SELECTOR, "th")]
    assert headers[2:5] == ["2004-04-01", "2005-04-20", "2005-10-17"]
    assert headers[-4:-1] == ["2019-04-01", "2022-04-01", "2025-04-01"]
    assert table.size["width"] <= 1500
    assert not [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
