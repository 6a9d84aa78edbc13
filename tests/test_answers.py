"""Reading raw model responses (lexsym.answers): markers, fences, repairs, amounts, citations, alignment.

The responses below are the shapes models actually produce: reasoning before the answer, the prompt's
marker repeated, markdown around everything, explanations after the JSON, and numbers written for people.
"""

from __future__ import annotations

import json
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexsym.answers import (
    Claim,
    OEAnswer,
    ParsedAnswer,
    align_assets,
    extract_final_answer,
    jurisdiction_code,
    normalize_citation,
    parse_amount,
    parse_answer,
)
from lexsym.answers.shapes import _TASK_WRAPPERS, _WRAPPERS, _field_name
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import JURISDICTION_NAMES

CAR = "a 2009 Mazda 3 hatchback the debtor commutes in"
MAPS = "a set of antique maps the debtor holds as an investment"

KNOWN = (
    "11 U.S.C. § 522(d)(1)",
    "11 U.S.C. § 522(d)(2)",
    "11 U.S.C. § 522(d)(5)",
    "11 U.S.C. § 522(d)(10)(E)",
    "Ariz. Rev. Stat. § 33-1125(8)",
    "Ariz. Rev. Stat. § 33-1101(A)",
    "735 Ill. Comp. Stat. 5/12-1001(c)",
    "735 Ill. Comp. Stat. 5/12-1001(b)",
    "Or. Rev. Stat. § 18.345(1)(a)",
    "42 Pa. Cons. Stat. § 8124(a)(1)",
    "Wis. Stat. § 815.18(3)(a)",
)
"""Citations as the statutes write them (statutes/*/)."""


def parsed(task: Task, text: str, **kwargs) -> ParsedAnswer:
    answer = parse_answer(task, text, **kwargs)
    assert isinstance(answer, ParsedAnswer)
    return answer


# --------------------------------------------------------------------------------------------------------
# Finding the answer
# --------------------------------------------------------------------------------------------------------


class TestExtract:
    def test_prose_before_the_marker(self):
        text = 'The debtor lived in Oregon for 800 days, so...\n\nFINAL ANSWER: ["Oregon", "Federal"]'
        assert extract_final_answer(text) == '["Oregon", "Federal"]'

    def test_the_last_marker_wins(self):
        text = (
            'The prompt asks me to end with "FINAL ANSWER:" and a list.\n'
            'Draft. FINAL ANSWER: ["Arizona"]\nWait, Arizona opted out... let me redo.\n'
            'FINAL ANSWER: ["Oregon", "Federal"]'
        )
        assert extract_final_answer(text) == '["Oregon", "Federal"]'

    def test_a_trailing_empty_marker_falls_back_to_the_one_before(self):
        assert extract_final_answer('FINAL ANSWER: ["Oregon"]\n\nFINAL ANSWER:\n') == '["Oregon"]'
        assert extract_final_answer("FINAL ANSWER:   ") == ""

    @pytest.mark.parametrize(
        "marker",
        [
            "FINAL ANSWER:",
            "Final Answer:",
            "final answer:",
            "**FINAL ANSWER:**",
            "**Final Answer**:",
            "FINAL ANSWER：",
            "Final Answer -",
            "Final answer —",
            "FINAL_ANSWER:",
            "## Final Answer\n",
            "### FINAL ANSWER:\n",
        ],
    )
    def test_marker_variants(self, marker):
        assert extract_final_answer(f'Some reasoning.\n{marker} ["Oregon"]') == '["Oregon"]'

    def test_an_answer_runs_to_the_next_marker_at_most(self):
        assert extract_final_answer("FINAL ANSWER:\n" * 50) == ""
        assert extract_final_answer("FINAL ANSWER: Oregon\nFINAL ANSWER:\n") == "Oregon"

    def test_no_marker(self):
        assert extract_final_answer('I think ["Oregon"] is right.') is None
        assert extract_final_answer("the final answer is Oregon") is None

    def test_fenced_json_after_the_marker(self):
        text = 'FINAL ANSWER:\n```json\n{"a": [1, 2]}\n```\nLet me know if you need more.'
        assert extract_final_answer(text) == '{"a": [1, 2]}'

    def test_trailing_prose_after_the_json_is_dropped(self):
        text = 'FINAL ANSWER: {"a": "x]}", "b": [1]} This reflects {the} analysis above [1].'
        assert extract_final_answer(text) == '{"a": "x]}", "b": [1]}'

    def test_escaped_quotes_inside_strings(self):
        text = r'FINAL ANSWER: {"a \"quoted\" car": ["11 U.S.C. § 522(d)(2)"]} done'
        assert extract_final_answer(text) == r'{"a \"quoted\" car": ["11 U.S.C. § 522(d)(2)"]}'

    def test_a_lead_in_line_hands_over_to_the_value(self):
        text = 'FINAL ANSWER: here is the JSON:\n\n```json\n["Oregon"]\n```'
        assert extract_final_answer(text) == '["Oregon"]'

    def test_bold_and_inline_code_around_the_value(self):
        assert extract_final_answer('FINAL ANSWER: **["Oregon"]**') == '["Oregon"]'
        assert extract_final_answer('FINAL ANSWER: `["Oregon"]`') == '["Oregon"]'

    def test_bare_answers_take_the_first_line_or_the_bullets(self):
        assert extract_final_answer("FINAL ANSWER: Oregon, Federal\n\nThey apply because...") == (
            "Oregon, Federal"
        )
        assert extract_final_answer("FINAL ANSWER:\n- Oregon\n- Federal\n\nBecause...") == "Oregon\nFederal"

    def test_truncated_value_is_returned_whole(self):
        assert extract_final_answer('FINAL ANSWER: {"a": [1, 2') == '{"a": [1, 2'


# --------------------------------------------------------------------------------------------------------
# Amounts
# --------------------------------------------------------------------------------------------------------


class TestAmounts:
    @pytest.mark.parametrize(
        ("raw", "dollars"),
        [
            (12500, 12500),
            (12500.0, 12500),
            ("12500", 12500),
            ("$12,500", 12500),
            ("12,500.00", 12500),
            ("USD 12,500", 12500),
            ("US$ 12,500", 12500),
            ("12500 dollars", 12500),
            ("12.500", 12500),  # a lone '.' before exactly three digits groups thousands
            ("12,500", 12500),
            ("12.500,00", 12500),  # German: '.' groups, ',' decimals
            ("1.234.567", 1234567),
            ("1 234", 1234),
            ("1\u00a0234\u00a0567", 1234567),
            ("1'234", 1234),
            (" $ 2,600 ", 2600),
            ("2600.", 2600),
            ("1.25e4", 12500),
            ("-$1,200", -1200),  # negatives come back for the checker to report
            ("$-1,200", -1200),
            (-5, -5),
        ],
    )
    def test_whole_dollars(self, raw, dollars):
        amount = parse_amount(raw)
        assert amount == dollars
        assert type(amount) is int

    @pytest.mark.parametrize(
        ("raw", "value"),
        [
            (12.5, 12.5),
            ("12.5", 12.5),
            ("12,5", 12.5),
            ("12,50", 12.5),
            ("1,234.56", 1234.56),
            ("0.500", 0.5),
        ],
    )
    def test_fractions_stay_floats(self, raw, value):
        amount = parse_amount(raw)
        assert amount == pytest.approx(value)
        assert type(amount) is float

    @pytest.mark.parametrize(
        "raw",
        [
            None,
            True,
            False,
            "",
            "abc",
            "lots",
            "1,2345",
            "12,50,0",
            "$",
            "1 23",
            "12..5",
            [],
            {},
            float("nan"),
            float("inf"),
            "9" * 80,
            "--5",
        ],
    )
    def test_garbage(self, raw):
        assert parse_amount(raw) is None


# --------------------------------------------------------------------------------------------------------
# Jurisdictions and citations
# --------------------------------------------------------------------------------------------------------


class TestJurisdictions:
    @pytest.mark.parametrize(
        ("name", "code"),
        [
            ("Oregon", "OR"),
            ("oregon", "OR"),
            ("OR", "OR"),
            ("or", "OR"),
            ("Federal", "US"),
            ("federal", "US"),
            ("Federal exemptions", "US"),
            ("the federal bankruptcy exemptions", "US"),
            ("Federal (11 U.S.C. § 522(d))", "US"),
            ("U.S.", "US"),
            ("United States", "US"),
            ("Oregon state exemptions", "OR"),
            ("State of Oregon", "OR"),
            ("**Arizona**", "AZ"),
            ('"Wisconsin"', "WI"),
            ("District of Columbia", "DC"),
            ("Commonwealth of Pennsylvania", "PA"),
            ("Narnia", "NARNIA"),
            ("Narnia exemptions", "NARNIA EXEMPTIONS"),
            # issue 18: each stripping step on its own
            ("Oregon's exemptions", "OR"),
            ("Oregon’s exemption system", "OR"),
            ("the State of Oregon state law", "OR"),
            ("U.S", "US"),
            ("Federal (11 U.S.C. § 522(d)) exemptions", "US"),
            ("Wisconsin (state) - exemptions", "WI"),
            ("  Arizona\n", "AZ"),
            ("Arizona.", "AZ"),
            ("Illinois exemption scheme", "IL"),
        ],
    )
    def test_names(self, name, code):
        assert jurisdiction_code(name) == code

    def test_every_name_and_code_round_trips(self):
        for code, name in JURISDICTION_NAMES.items():
            assert jurisdiction_code(name) == code
            assert jurisdiction_code(name.upper()) == code
            assert jurisdiction_code(code.lower()) == code

    @given(st.text(max_size=30))
    def test_codes_are_fixed_points(self, name):
        """Scorers apply jurisdiction_code again to parsed ids; that must change nothing."""
        code = jurisdiction_code(name)
        assert jurisdiction_code(code) == code


class TestCitations:
    @pytest.mark.parametrize(
        ("written", "known"),
        [
            ("11 U.S.C. § 522(d)(2)", "11 U.S.C. § 522(d)(2)"),
            ("11 U.S.C. §522(d)(2)", "11 U.S.C. § 522(d)(2)"),
            ("11 USC 522(d)(2)", "11 U.S.C. § 522(d)(2)"),
            ("11 u.s.c. §§ 522 (D)(2)", "11 U.S.C. § 522(d)(2)"),
            ("11 U.S.C. Sec. 522(d)(5)", "11 U.S.C. § 522(d)(5)"),
            ("11 U.S.C. section 522(d)(10)(e)", "11 U.S.C. § 522(d)(10)(E)"),
            ("11 U.S.C.A. § 522(d)(1).", "11 U.S.C. § 522(d)(1)"),
            ("§ 522(d)(2)", "11 U.S.C. § 522(d)(2)"),  # a bare section known once
            ("Section 18.345(1)(a)", "Or. Rev. Stat. § 18.345(1)(a)"),
            ("Ariz. Rev. Stat. §33-1125(8)", "Ariz. Rev. Stat. § 33-1125(8)"),
            ("Ariz. Rev. Stat. Ann. § 33–1125(8)", "Ariz. Rev. Stat. § 33-1125(8)"),
            ("A.R.S. § 33-1125(8)", "Ariz. Rev. Stat. § 33-1125(8)"),
            ("ARS 33-1101(a)", "Ariz. Rev. Stat. § 33-1101(A)"),
            ("Ariz Rev Stat 33-1125(8)", "Ariz. Rev. Stat. § 33-1125(8)"),
            ("735 ILCS 5/12-1001(c)", "735 Ill. Comp. Stat. 5/12-1001(c)"),
            ("735 ILCS 5/12-1001 (b)", "735 Ill. Comp. Stat. 5/12-1001(b)"),
            ("735 Ill. Comp. Stat. Ann. 5/12-1001(c)", "735 Ill. Comp. Stat. 5/12-1001(c)"),
            ("ORS 18.345(1)(a)", "Or. Rev. Stat. § 18.345(1)(a)"),
            ("Or. Rev. Stat. 18.345(1)(a)", "Or. Rev. Stat. § 18.345(1)(a)"),
            ("42 Pa.C.S. § 8124(a)(1)", "42 Pa. Cons. Stat. § 8124(a)(1)"),
            ("42 Pa. C.S.A. § 8124(a)(1)", "42 Pa. Cons. Stat. § 8124(a)(1)"),
            ("Wis. Stats. § 815.18(3)(a)", "Wis. Stat. § 815.18(3)(a)"),
        ],
    )
    def test_variants_resolve_to_the_known_citation(self, written, known):
        assert normalize_citation(written, KNOWN) == known

    def test_unknown_citations_are_cleaned_but_keep_their_wording(self):
        assert normalize_citation("11 usc sec. 522 (d) (7)", KNOWN) == "11 U.S.C. § 522(d)(7)"
        assert normalize_citation("735 ILCS 5/12-1001(z)", KNOWN) == "735 ILCS 5/12-1001(z)"
        assert normalize_citation("Cal. Civ. Proc. Code §703.140", KNOWN) == "Cal. Civ. Proc. Code § 703.140"

    def test_a_bare_section_shared_by_two_citations_stays_bare(self):
        known = ("11 U.S.C. § 522(d)(2)", "Made-up Code § 522(d)(2)")
        assert normalize_citation("§ 522(d)(2)", known) == "§ 522(d)(2)"
        assert normalize_citation("§ 522(d)(2)", ()) == "§ 522(d)(2)"

    def test_periods_inside_section_numbers_matter(self):
        assert normalize_citation("Or. Rev. Stat. § 18345(1)(a)", KNOWN) == "Or. Rev. Stat. § 18345(1)(a)"


# --------------------------------------------------------------------------------------------------------
# Asset alignment
# --------------------------------------------------------------------------------------------------------


class TestAlignment:
    def test_exact_after_case_and_spaces(self):
        assert align_assets([f"  {CAR.upper()} "], [MAPS, CAR]) == {f"  {CAR.upper()} ": CAR}

    def test_near_duplicates_are_matched_one_to_one(self):
        actual = ["a Samsung television", "a Samsung television in the bedroom", "a Sony television"]
        predicted = ["Samsung television in the bedroom", "a samsung television", "Sony TV"]
        assert align_assets(predicted, actual) == {
            "Samsung television in the bedroom": "a Samsung television in the bedroom",
            "a samsung television": "a Samsung television",
        }

    def test_ties_go_to_the_closest_whole_description(self):
        # "television" is a 100 partial match of both; the full ratio prefers the shorter description
        actual = ["a television and a stand for it", "a television"]
        assert align_assets(["television"], actual) == {"television": "a television"}

    def test_a_description_is_never_matched_twice(self):
        aligned = align_assets(["a car", "A CAR", "the car"], ["a car"])
        assert aligned == {"a car": "a car"}

    def test_threshold(self):
        assert align_assets(["a green bicycle"], ["a red bicycle"]) == {}
        assert align_assets(["a green bicycle"], ["a red bicycle"], threshold=60) == {
            "a green bicycle": "a red bicycle"
        }

    def test_identical_descriptions_take_one_each(self):
        assert align_assets(["a chair", "A chair"], ["a chair", "a chair"]) == {
            "a chair": "a chair",
            "A chair": "a chair",
        }

    @given(
        st.lists(st.text(max_size=30), max_size=8),
        st.lists(st.text(max_size=30), max_size=8),
        st.floats(min_value=0, max_value=100),
    )
    def test_one_to_one_property(self, predicted, actual, threshold):
        aligned = align_assets(predicted, actual, threshold)
        assert set(aligned) <= set(predicted)
        assert set(aligned.values()) <= set(actual)
        for description in set(aligned.values()):  # never more keys on a description than copies of it
            assert list(aligned.values()).count(description) <= actual.count(description)

    @given(
        st.lists(
            st.text(min_size=1, max_size=30), max_size=8, unique_by=lambda s: " ".join(s.split()).lower()
        )
    )
    def test_descriptions_align_to_themselves(self, actual):
        assert align_assets(actual, actual) == {description: description for description in actual}


# --------------------------------------------------------------------------------------------------------
# parse_answer, task by task
# --------------------------------------------------------------------------------------------------------


class TestAE:
    def test_canonical(self):
        answer = parsed(Task.AE, 'I checked the 730-day rule.\nFINAL ANSWER: ["Oregon", "Federal"]')
        assert (answer.ok, answer.value, answer.marker_found, answer.error) == (
            True,
            ["OR", "US"],
            True,
            None,
        )

    @pytest.mark.parametrize(
        "text",
        [
            "FINAL ANSWER: Oregon, Federal",
            "FINAL ANSWER: Oregon and Federal exemptions. Both are available because of the 730-day rule.",
            "**FINAL ANSWER:** Oregon exemptions; Federal exemptions",
            'FINAL ANSWER: "Oregon", "Federal"',
            "FINAL ANSWER: ['OR', 'US']",
            "FINAL ANSWER:\n1. Oregon\n2. Federal\n\nThese two...",
            'FINAL ANSWER: {"allowable_jurisdictions": ["Oregon", "Federal"]}',
            'FINAL ANSWER: {"Oregon": true, "Arizona": false, "Federal": true}',
            'FINAL ANSWER: [{"jurisdiction": "Oregon"}, {"jurisdiction": "Federal"}]',
            'FINAL ANSWER: ["Oregon", "oregon", "Federal"]',
            'FINAL ANSWER: ["Oregon, Federal"]',
            "FINAL ANSWER: [Oregon, Federal]\nBoth apply.",
            "FINAL ANSWER: [Oregon's exemptions, the Federal exemptions]\n\nOregon's apply because...",
        ],
    )
    def test_tolerated_forms(self, text):
        answer = parsed(Task.AE, text)
        assert answer.ok, answer.error
        assert answer.value == ["OR", "US"]

    def test_unknown_names_stay_upper_cased(self):
        assert parsed(Task.AE, 'FINAL ANSWER: ["Oregon", "Narnia"]').value == ["OR", "NARNIA"]

    def test_empty_list_is_an_answer(self):
        answer = parsed(Task.AE, "FINAL ANSWER: []")
        assert answer.ok and answer.value == []

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ('FINAL ANSWER: {"AE": 5}', "expected a list of jurisdictions"),
            ("FINAL ANSWER: 5", "expected a list of jurisdictions"),
            ("FINAL ANSWER: [1, 2, null]", "found no names"),
            ('FINAL ANSWER: ["Oregon", "Fed', "truncated JSON"),
            ("FINAL ANSWER:", "empty answer"),
            (
                "I could not decide between the states.\nMaybe more facts are needed.",
                "no FINAL ANSWER marker",
            ),
        ],
    )
    def test_failures_say_why(self, text, reason):
        answer = parsed(Task.AE, text)
        assert not answer.ok and answer.value is None
        assert reason in answer.error
        assert "\n" not in answer.error


class TestEC:
    def test_canonical_with_known_citations(self):
        text = (
            "Analysis...\nFINAL ANSWER: "
            + json.dumps({CAR: ["11 USC 522(d)(2)", "11 U.S.C. §522(d)(5)"], MAPS: ["§ 522(d)(5)"]})
            + "\n\nI hope this helps!"
        )
        answer = parsed(Task.EC, text, known=KNOWN)
        assert answer.ok
        assert answer.value == {
            CAR: ["11 U.S.C. § 522(d)(2)", "11 U.S.C. § 522(d)(5)"],
            MAPS: ["11 U.S.C. § 522(d)(5)"],
        }

    def test_without_known_citations_they_are_only_cleaned(self):
        answer = parsed(Task.EC, 'FINAL ANSWER: {"car": ["11 usc sec. 522 (d) (2)"]}')
        assert answer.value == {"car": ["11 U.S.C. § 522(d)(2)"]}

    def test_missing_marker_with_a_fenced_block(self):
        text = f'Here is my classification:\n```json\n{{"{CAR}": ["11 U.S.C. § 522(d)(2)"]}}\n```\nDone.'
        answer = parsed(Task.EC, text)
        assert answer.ok and not answer.marker_found
        assert answer.value == {CAR: ["11 U.S.C. § 522(d)(2)"]}
        assert "no FINAL ANSWER marker" in answer.notes[0]

    def test_missing_marker_takes_the_last_value_that_reads(self):
        text = 'First guess {"car": ["x"]}, then the correction {"car": ["y"]} and a footnote [1].'
        answer = parsed(Task.EC, text)
        assert answer.ok and not answer.marker_found
        assert answer.value == {"car": ["y"]}

    def test_missing_marker_and_a_broken_block_says_both(self):
        answer = parsed(Task.EC, 'My answer:\n```json\n{"car": ["11 U.S.C. § 522(d)(2)"\n```')
        assert not answer.ok and not answer.marker_found
        assert answer.error == (
            "no FINAL ANSWER marker; the last fenced block: truncated JSON: 2 bracket(s) never closed"
        )

    def test_other_value_forms(self):
        text = json.dumps(
            {
                "car": "11 U.S.C. § 522(d)(2)",
                "maps": None,
                "tv": [{"citation": "11 U.S.C. § 522(d)(5)", "claim_value": 100}],
                "boat": [],
            }
        )
        answer = parsed(Task.EC, f"FINAL ANSWER: {text}")
        assert answer.value == {
            "car": ["11 U.S.C. § 522(d)(2)"],
            "maps": [],
            "tv": ["11 U.S.C. § 522(d)(5)"],
            "boat": [],
        }

    def test_unreadable_assets_are_dropped_not_emptied(self):
        answer = parsed(Task.EC, 'FINAL ANSWER: {"car": 5, "boat": ["11 U.S.C. § 522(d)(5)"]}')
        assert answer.ok
        assert answer.value == {"boat": ["11 U.S.C. § 522(d)(5)"]}
        assert any("car" in note for note in answer.notes)

    def test_all_unreadable_is_a_failure(self):
        answer = parsed(Task.EC, 'FINAL ANSWER: {"car": 5, "boat": [7]}')
        assert not answer.ok and "nothing could be read" in answer.error

    def test_duplicate_keys_are_merged(self):
        text = 'FINAL ANSWER: {"car": ["11 U.S.C. § 522(d)(2)"], "car": ["11 U.S.C. § 522(d)(5)"]}'
        answer = parsed(Task.EC, text)
        assert answer.value == {"car": ["11 U.S.C. § 522(d)(2)", "11 U.S.C. § 522(d)(5)"]}

    def test_single_quotes_and_trailing_commas(self):
        answer = parsed(Task.EC, "FINAL ANSWER: {'car': ['11 U.S.C. § 522(d)(2)',],}")
        assert answer.ok and answer.value == {"car": ["11 U.S.C. § 522(d)(2)"]}

    def test_python_literal_fallback_never_evaluates(self):
        answer = parsed(Task.EC, "FINAL ANSWER: {'car': [__import__('os').getcwd()]}")
        assert not answer.ok
        assert answer.error.startswith("invalid JSON at line 1 column")

    def test_typographic_quotes(self):
        answer = parsed(Task.EC, "FINAL ANSWER: {“car”: [“11 U.S.C. § 522(d)(2)”]}")
        assert answer.ok and answer.value == {"car": ["11 U.S.C. § 522(d)(2)"]}

    def test_text_instead_of_an_object(self):
        answer = parsed(Task.EC, "FINAL ANSWER: the car is exempt under 522(d)(2)")
        assert not answer.ok and "expected a JSON object" in answer.error

    def test_wrapped(self):
        answer = parsed(Task.EC, 'FINAL ANSWER: {"EC": {"car": []}}')
        assert answer.ok and answer.value == {"car": []}
        assert "unwrapped 'EC'" in answer.notes


class TestEV:
    def test_messy_numbers_and_keys(self):
        text = (
            "FINAL ANSWER:\n```json\n"
            + json.dumps(
                {
                    CAR: [
                        {"citation": "11 U.S.C. § 522(d)(2)", "claim_value": "$4,450"},
                        {"citation": "11 U.S.C. § 522(d)(5)", "value": "1.550,00"},
                    ],
                    MAPS: [{"Citation": "11 U.S.C. § 522(d)(5)", "Amount": "USD 900"}],
                }
            )
            + "\n```\nThe wildcard covers the rest."
        )
        answer = parsed(Task.EV, text)
        assert answer.ok
        assert answer.value == {
            CAR: [
                Claim("11 U.S.C. § 522(d)(2)", 4450, "$4,450"),
                Claim("11 U.S.C. § 522(d)(5)", 1550, "1.550,00"),
            ],
            MAPS: [Claim("11 U.S.C. § 522(d)(5)", 900, "USD 900")],
        }

    def test_other_claim_forms(self):
        text = json.dumps(
            {
                "car": {"11 U.S.C. § 522(d)(2)": 4450, "11 U.S.C. § 522(d)(5)": "$100"},
                "tv": {"citation": "11 U.S.C. § 522(d)(3)", "claim_value": 300},
                "maps": [["11 U.S.C. § 522(d)(5)", 900]],
                "boat": None,
            }
        )
        answer = parsed(Task.EV, f"FINAL ANSWER: {text}")
        assert answer.value == {
            "car": [Claim("11 U.S.C. § 522(d)(2)", 4450, 4450), Claim("11 U.S.C. § 522(d)(5)", 100, "$100")],
            "tv": [Claim("11 U.S.C. § 522(d)(3)", 300, 300)],
            "maps": [Claim("11 U.S.C. § 522(d)(5)", 900, 900)],
            "boat": [],
        }

    def test_unreadable_amounts_stay_none_with_the_raw_value(self):
        text = 'FINAL ANSWER: {"car": [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": "all of it"}]}'
        answer = parsed(Task.EV, text)
        assert answer.ok
        assert answer.value == {"car": [Claim("11 U.S.C. § 522(d)(2)", None, "all of it")]}

    def test_fractional_and_negative_amounts_are_kept_for_the_checker(self):
        body = {"car": [{"citation": "a", "claim_value": 10.5}, {"citation": "b", "claim_value": -3}]}
        text = f"FINAL ANSWER: {json.dumps(body)}"
        claims = parsed(Task.EV, text).value["car"]
        assert [c.claim_value for c in claims] == [10.5, -3]

    def test_claims_without_citation_are_dropped(self):
        text = (
            'FINAL ANSWER: {"car": [{"claim_value": 5}, {"citation": "11 U.S.C. § 522(d)(2)", "amount": 7}]}'
        )
        answer = parsed(Task.EV, text)
        assert answer.value == {"car": [Claim("11 U.S.C. § 522(d)(2)", 7, 7)]}
        assert any("no citation" in note for note in answer.notes)

    def test_truncated(self):
        text = 'FINAL ANSWER: {"car": [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 44'
        answer = parsed(Task.EV, text)
        assert not answer.ok and answer.marker_found
        assert answer.error == "truncated JSON: 3 bracket(s) never closed"

    def test_truncated_inside_a_string(self):
        answer = parsed(Task.EV, 'FINAL ANSWER: {"car": [{"citation": "11 U.S.C. § 52')
        assert answer.error == "truncated JSON: the answer ends inside a string"

    def test_invalid_json_names_the_place(self):
        answer = parsed(Task.EV, 'FINAL ANSWER: {"car": [{"citation" "x"}]}')
        assert answer.error == "invalid JSON at line 1 column 22: Expecting ':' delimiter"


class TestNA:
    def test_names_and_number_formats(self):
        text = 'FINAL ANSWER: {"Oregon": "$18,250", "Federal exemptions": 9600.0, "Arizona": "12.500,00"}'
        answer = parsed(Task.NA, text)
        assert answer.ok
        assert answer.value == {"OR": 18250, "US": 9600, "AZ": 12500}
        assert all(type(v) is int for v in answer.value.values())

    def test_rows(self):
        rows = [{"jurisdiction": "Oregon", "non_exempt_total": 5}, {"name": "Federal", "value": 7}]
        text = f"FINAL ANSWER: {json.dumps(rows)}"
        assert parsed(Task.NA, text).value == {"OR": 5, "US": 7}

    def test_unreadable_amount_and_repeated_jurisdiction(self):
        answer = parsed(Task.NA, 'FINAL ANSWER: {"Oregon": "unknown", "OR": 5, "Federal": 1}')
        assert answer.ok
        assert answer.value == {"OR": None, "US": 1}
        assert len(answer.notes) == 2

    def test_a_list_of_names_is_not_an_na_answer(self):
        answer = parsed(Task.NA, 'FINAL ANSWER: ["Oregon"]')
        assert not answer.ok and "expected an object mapping jurisdictions" in answer.error


class TestOE:
    CLAIMS: ClassVar = [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 4450}]

    def test_canonical(self):
        body = {"jurisdiction": "Federal", "schedule": {CAR: self.CLAIMS}, "non_exempt_total": 900}
        answer = parsed(Task.OE, f"Reasoning.\nFINAL ANSWER: {json.dumps(body)}")
        assert answer.value == OEAnswer("US", {CAR: [Claim("11 U.S.C. § 522(d)(2)", 4450, 4450)]})

    def test_openexempt_style_schedule_has_no_jurisdiction(self):
        answer = parsed(Task.OE, f"FINAL ANSWER: {json.dumps({CAR: self.CLAIMS})}")
        assert answer.ok
        assert answer.value == OEAnswer(None, {CAR: [Claim("11 U.S.C. § 522(d)(2)", 4450, 4450)]})

    def test_jurisdiction_beside_the_assets(self):
        body = {"Jurisdiction": "Federal exemptions", CAR: self.CLAIMS}
        answer = parsed(Task.OE, f"FINAL ANSWER: {json.dumps(body)}")
        assert answer.value.jurisdiction == "US"
        assert list(answer.value.schedule) == [CAR]

    def test_schedule_as_rows(self):
        rows = [{"asset": CAR, "citation": "11 U.S.C. § 522(d)(2)", "amount": "$4,450"}]
        answer = parsed(Task.OE, f"FINAL ANSWER: {json.dumps({'jurisdiction': 'Oregon', 'schedule': rows})}")
        assert answer.value == OEAnswer("OR", {CAR: [Claim("11 U.S.C. § 522(d)(2)", 4450, "$4,450")]})

    def test_unknown_jurisdiction_and_empty_schedule(self):
        answer = parsed(Task.OE, 'FINAL ANSWER: {"jurisdiction": "Narnia", "schedule": {}}')
        assert answer.ok and answer.value == OEAnswer("NARNIA", {})

    def test_wrong_types(self):
        assert "jurisdiction to be a name" in parsed(Task.OE, 'FINAL ANSWER: {"jurisdiction": 5}').error
        assert "expected an object mapping" in parsed(Task.OE, 'FINAL ANSWER: {"schedule": "none"}').error
        assert "expected an object" in parsed(Task.OE, "FINAL ANSWER: [1, 2]").error


class TestNeverRaises:
    @pytest.mark.parametrize("task", list(Task))
    @pytest.mark.parametrize(
        "text", [None, b'FINAL ANSWER: ["Oregon"]', 5, "", "FINAL ANSWER: " + "[" * 5000]
    )
    def test_odd_inputs(self, task, text):
        answer = parse_answer(task, text)
        assert isinstance(answer, ParsedAnswer)
        assert answer.ok == (task is Task.AE and isinstance(text, bytes))

    def test_deep_nesting(self):
        deep = "[" * 3000 + "]" * 3000
        for task in Task:
            answer = parse_answer(task, f"FINAL ANSWER: {deep}")
            assert not answer.ok

    def test_task_may_be_given_by_code_or_number(self):
        assert parse_answer("ae", 'FINAL ANSWER: ["Oregon"]').value == ["OR"]
        assert parse_answer(1, 'FINAL ANSWER: ["Oregon"]').task is Task.AE
        with pytest.raises(ValueError):
            parse_answer("XX", "")


# --------------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
fragments = st.lists(
    st.sampled_from(
        [
            "FINAL ANSWER:",
            "Final Answer -",
            "**",
            "```json\n",
            "```",
            "{",
            "}",
            "[",
            "]",
            '"',
            "'",
            "\\",
            ",",
            ":",
            "\n",
            " ",
            "Oregon",
            "Federal",
            '"citation"',
            '"claim_value"',
            "$1,200",
            "12.500,00",
            "§ 522(d)(2)",
            "null",
            "true",
            "1e999",
        ]
    ),
    max_size=30,
).map("".join)


def assert_typed(answer: ParsedAnswer) -> None:
    assert isinstance(answer, ParsedAnswer)
    if not answer.ok:
        assert answer.value is None and answer.error and "\n" not in answer.error
        assert not answer.error.startswith("internal error"), answer.error  # the safety net never fires
        return
    value = answer.value
    amount = (int, float, type(None))
    if answer.task is Task.AE:
        assert isinstance(value, list) and all(isinstance(code, str) for code in value)
    elif answer.task is Task.EC:
        assert all(isinstance(c, str) for citations in value.values() for c in citations)
    elif answer.task is Task.NA:
        assert all(isinstance(k, str) and isinstance(v, amount) for k, v in value.items())
    else:
        schedule = value.schedule if answer.task is Task.OE else value
        if answer.task is Task.OE:
            assert isinstance(value, OEAnswer)
        for claims in schedule.values():
            assert all(isinstance(c, Claim) and isinstance(c.claim_value, amount) for c in claims)


@pytest.mark.parametrize("task", list(Task))
@given(text=st.text(max_size=200))
def test_never_raises_on_arbitrary_text(task, text):
    assert_typed(parse_answer(task, text))


@pytest.mark.parametrize("task", list(Task))
@given(text=fragments)
def test_never_raises_on_json_like_text(task, text):
    assert_typed(parse_answer(task, text, known=KNOWN))


@pytest.mark.parametrize("task", list(Task))
@given(value=json_values, marker=st.booleans())
def test_never_raises_on_arbitrary_json(task, value, marker):
    text = json.dumps(value)
    assert_typed(parse_answer(task, f"Reasoning.\nFINAL ANSWER: {text}" if marker else text))


names = st.sampled_from(sorted(JURISDICTION_NAMES.values()))
descriptions = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40)
    .map(str.strip)
    .filter(bool)
    # A schedule whose only asset is described like a wrapper key ("FINALANSWER", "Answer") is read as the
    # wrapper {"answer": ...} models write: a documented ambiguity, not a round trip to test.
    .filter(
        lambda text: (
            _field_name(text)
            not in _WRAPPERS.union(*_TASK_WRAPPERS.values(), {t.value.casefold() for t in Task})
        )
    )
)
claims = st.lists(
    st.fixed_dictionaries(
        {"citation": st.sampled_from(KNOWN), "claim_value": st.integers(min_value=0, max_value=2_000_000)}
    ),
    max_size=3,
)


@given(
    st.lists(names, unique=True, max_size=4),
    st.dictionaries(descriptions, claims, max_size=4),
    st.dictionaries(names, st.integers(min_value=0, max_value=10**7), max_size=4),
    names,
)
def test_gold_shaped_answers_round_trip(ae, ev, na, oe_name):
    """An answer written exactly as the prompts ask reads back to what was written, for every task."""
    ec = {asset: [c["citation"] for c in listed] for asset, listed in ev.items()}
    oe = {"jurisdiction": oe_name, "schedule": ev}

    def read(task, gold):
        answer = parse_answer(
            task, f"Let me think.\n\nFINAL ANSWER: {json.dumps(gold, ensure_ascii=False)}", known=KNOWN
        )
        assert answer.ok and answer.marker_found, answer.error
        assert answer.notes == ()  # nothing needed repairing
        return answer.value

    code = {name: code for code, name in JURISDICTION_NAMES.items()}

    def as_claims(schedule):
        return {
            asset.strip(): [Claim(c["citation"], c["claim_value"], c["claim_value"]) for c in listed]
            for asset, listed in schedule.items()
        }

    assert read(Task.AE, ae) == [code[name] for name in ae]
    assert read(Task.EC, ec) == {asset.strip(): list(dict.fromkeys(c)) for asset, c in ec.items()}
    assert read(Task.EV, ev) == as_claims(ev)
    assert read(Task.NA, na) == {code[name]: total for name, total in na.items()}
    assert read(Task.OE, oe) == OEAnswer(code[oe_name], as_claims(ev))


@pytest.mark.parametrize("value", [5, 3.5, True, ["Oregon"], {"name": "Oregon"}])
def test_an_oe_jurisdiction_that_is_not_a_name_is_refused_with_a_reason(value):
    """Issue 18: a non-string jurisdiction is a format failure that says so, not a crash or a silent guess."""
    text = "FINAL ANSWER: " + json.dumps({"jurisdiction": value, "schedule": {}})
    answer = parse_answer(Task.OE, text)
    assert not answer.ok and answer.value is None
    assert "expected the jurisdiction to be a name" in answer.error


@pytest.mark.parametrize("value", [None, ""])
def test_an_oe_jurisdiction_left_empty_is_read_as_not_given(value):
    text = "FINAL ANSWER: " + json.dumps({"jurisdiction": value, "schedule": {"a car": []}})
    answer = parsed(Task.OE, text)
    assert answer.ok and answer.value.jurisdiction is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'FINAL ANSWER: here it is:\n\nSome words first.\n["Oregon", "Federal"]\nThanks.',
            '["Oregon", "Federal"]',
        ),
        ('FINAL ANSWER:\n\n  {"Oregon": 100}\nDone.', '{"Oregon": 100}'),
        ('**FINAL ANSWER:**\n\n```json\n["Arizona"]\n```\nafter', '["Arizona"]'),
        ("FINAL ANSWER: Oregon, Federal\n[1, 2]", "Oregon, Federal"),
    ],
)
def test_a_first_line_ending_in_a_colon_hands_over_to_the_next_value(text, expected):
    """Issue 18: the scan for a value on a later line, and where it must not reach."""
    assert extract_final_answer(text) == expected


# --- issue 18 (second sweep): survivors of the mutation sweep of lexsym/answers ------------------------


def test_a_response_that_is_not_text_is_refused_by_name():
    """None, numbers and lists are not model output: the reason names the type (parse.py, _parse), rather
    than falling through to the internal-error safety net."""
    for text, kind in ((None, "NoneType"), (5, "int"), (["Oregon"], "list")):
        answer = parse_answer(Task.AE, text)
        assert not answer.ok
        assert answer.error == f"the response is {kind}, not text"


def test_a_whole_response_without_a_marker_is_read_up_to_300_characters():
    """The last fallback reads a one-line response as the answer when it is at most 300 characters
    (extraction.py, fallback_spans): a longer line is prose, not an answer."""
    for length, readable in ((300, True), (301, False)):
        text = "Oregon," + " " * (length - len("Oregon,Arizona")) + "Arizona"
        assert len(text) == length
        answer = parse_answer(Task.AE, text)
        assert answer.ok is readable
        if readable:
            assert answer.value == ["OR", "AZ"]
            assert answer.notes[0] == "no FINAL ANSWER marker: read the whole response"


def test_a_lone_label_on_the_last_line_is_read_after_reasoning():
    """Failing every marker and phrase, a lone label on the last non-empty line is the answer (choices.py,
    extract_choice: the last line, not the first)."""
    from lexsym.answers.choices import extract_choice

    extraction = extract_choice("Weighing the options, none is perfect.\n\n(B)\n", ["A", "B", "C", "D"])
    assert (extraction.label, extraction.method) == ("B", "last-line")


def test_typed_claims_pass_through_the_public_answer_models_unchanged():
    """`ValuationAnswer` (exported by lexsym.answers) also validates answers already read: a Claim is kept
    as it is (shapes.py, _read_claim), not refused as "not an object with a citation"."""
    from lexsym.answers import ValuationAnswer

    claim = Claim("11 U.S.C. § 522(d)(2)", 100, "$100")
    assert ValuationAnswer.model_validate({CAR: [claim]}).root == {CAR: [claim]}


def test_an_empty_or_missing_mcq_output_is_named_as_such():
    """No text at all is "empty output", not a missing marker (choices.py, extract_choice); None must not
    raise."""
    from lexsym.answers.choices import extract_choice

    for text in (None, "", "  \n "):
        extraction = extract_choice(text, ["A", "B"])
        assert (extraction.label, extraction.error) == (None, "empty output")


def test_option_labels_past_z_continue_as_aa_ab():
    """Spreadsheet-style labels: the 27th option is AA, the 28th AB, the 53rd BA (choices.py: divmod by
    26)."""
    from lexsym.answers.choices import option_labels

    labels = option_labels(53)
    assert labels[25:28] == ["Z", "AA", "AB"]
    assert labels[51:] == ["AZ", "BA"]


def test_when_descriptions_repeat_an_exact_key_takes_the_first():
    """Two case descriptions equal after case folding: an exactly matching key takes the first one still
    free (alignment.py), in line with ties going to the earlier description."""
    assert align_assets(["car"], ["Car", "CAR"]) == {"car": "Car"}


def test_a_hedged_mcq_answer_is_reported_as_a_hedge():
    """ "ANSWER: A or B" names two options: the failure says so (choices.py), rather than reporting a
    marker without a valid label, so a model that hedges is told apart from one that breaks the format."""
    from lexsym.answers.choices import extract_choice

    extraction = extract_choice("ANSWER: A or B", ["A", "B", "C"])
    assert (extraction.label, extraction.error) == (None, "several options named after the answer marker")


def test_amount_strings_over_64_characters_are_not_read():
    """parse_amount's documented bound: strings over 64 characters are not numbers (amounts.py)."""
    assert parse_amount("0" * 63 + "5") == 5
    assert parse_amount("0" * 64 + "5") is None


def test_wrappers_are_unwrapped_at_most_three_deep():
    """Single-key wrappers ({"answer": ...}) are taken off three levels deep at most (shapes.py,
    unwrap_answer): a fourth "answer" is read as the answer's own first key, here a jurisdiction name."""
    nested = {"Oregon": 100}
    for depth in range(1, 5):
        nested = {"answer": nested}
        answer = parsed(Task.NA, "FINAL ANSWER: " + json.dumps(nested))
        assert answer.notes[: min(depth, 3)] == ("unwrapped 'answer'",) * min(depth, 3)
        assert answer.value == ({"OR": 100} if depth <= 3 else {"ANSWER": None})


def test_an_escaped_quote_does_not_end_a_string_in_the_answer():
    """The scan for where a JSON value ends skips the character after a backslash inside a string
    (extraction.py, scan_value), so an escaped quote followed by a bracket stays inside the string."""
    text = 'FINAL ANSWER: {"car": "the \\"red]\\" one"} and that is all.'
    assert extract_final_answer(text) == '{"car": "the \\"red]\\" one"}'


def test_a_bracketed_lower_case_label_is_read_before_prose():
    """ "Answer: (c) is the one that fits": a lower-case letter counts as a label when bracketed, even with
    prose after it (choices.py, _label_at: the first character after the marker decides)."""
    from lexsym.answers.choices import extract_choice

    extraction = extract_choice("Answer: (c) is the one that fits", ["A", "B", "C", "D"])
    assert (extraction.label, extraction.method) == ("C", "marker")


def test_python_literals_are_tried_only_for_spans_with_a_single_quote():
    """Python's literal syntax is a fallback for answers written with single quotes (tolerant_json.py,
    _python_literal); a span without one that is not JSON ({"Oregon": 1_000}) stays unreadable."""
    answer = parsed(Task.NA, 'FINAL ANSWER: {"Oregon": 1_000}')
    assert not answer.ok and answer.error.startswith("invalid JSON")
    assert parsed(Task.NA, "FINAL ANSWER: {'Oregon': 1_000}").value == {"OR": 1000}


def test_a_leading_plus_sign_keeps_an_amount_positive():
    """parse_amount reads a sign before the number ("-", "−" or "+"): "+12" is 12, "-12" is -12 (amounts.py:
    the sign is the first character)."""
    assert parse_amount("+12") == 12
    assert parse_amount("+$12") == 12
    assert parse_amount("-12") == -12


def test_the_search_for_an_unmarked_value_gives_up_after_50_values_that_never_close():
    """Without a marker the text is searched for JSON values, and each opening bracket whose value never
    closes costs a scan to the end; after 50 such the search stops (extraction.py, fallback_spans), so a
    hostile response costs at most 50 scans. 49 are passed over, the 50th ends the search."""
    found = parse_answer(Task.AE, "[" * 49 + ' ["Oregon"]')
    assert found.ok and found.value == ["OR"]
    assert not parse_answer(Task.AE, "[" * 50 + ' ["Oregon"]').ok
