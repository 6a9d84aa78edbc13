"""The codes `lexsym lint` reports, each with its one-line summary and the reason the rule exists.

Codes work like ruff's: `--select` and `--ignore` take codes or prefixes (`LX2`), `--explain LX203` prints
the rationale, and docs/lint.md carries the table `codes_markdown` renders (a test keeps them equal).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LintCode:
    code: str
    name: str
    summary: str
    rationale: str
    fix: str = ""  # "safe" (--fix), "unsafe" (--unsafe-fixes) or "" (none)


_CODES = (
    LintCode(
        "LX001",
        "file-title",
        "the file does not open with a `%# <citation>: <title>` line",
        "The title line is what `lexsym doc` and a reader scanning the folder see first; it names the "
        "paragraph the file encodes.",
    ),
    LintCode(
        "LX002",
        "file-source",
        "the header has no `Source:` line",
        "Every figure and reading must be traceable to where it was read and when; the Source line is that "
        "record for the whole file.",
    ),
    LintCode(
        "LX003",
        "file-interface",
        "the header has no `Output:` line",
        "The Output line states which predicates the file defines, so an editor knows what else may depend "
        "on it before renaming or deleting a rule.",
    ),
    LintCode(
        "LX004",
        "placeholder",
        "a placeholder from `lexsym new` is still in the file",
        "Scaffolded files carry capitalised placeholders (TITLE, WHERE, KIND, DOLLARS, YYYY); one left in "
        "place is either a syntax error clingo reports far from its cause or, worse, a variable that makes a "
        "rule match everything.",
    ),
    LintCode(
        "LX005",
        "range-explodes",
        "a range with constant ends has more than 100,000 values",
        "clingo grounds every value of a range: `big(1..1000000000).` ran `solve` and `lint` until memory "
        "ran out, with no message. No rule needs such a range; `solve` refuses the file at this line too.",
    ),
    LintCode(
        "LX101",
        "citation-missing",
        "an exemption has no citation/2",
        "Answers, gold schedules and what-if tables name exemptions by citation; an exemption without one "
        "can never be claimed or checked.",
    ),
    LintCode(
        "LX102",
        "citation-not-canonical",
        "a citation is not in its jurisdiction's canonical form",
        "Citations are compared as strings after cleaning, and exemption ids derive from them; one form per "
        "jurisdiction (lexsym/law/citation_formats.py) keeps a model's answer, a table and the rule on the "
        "same exemption.",
        "safe",
    ),
    LintCode(
        "LX103",
        "id-not-derived",
        "an exemption's id is not the one its citation derives",
        "What-if tables and the checker turn a citation into an id with `exemption_id`; an id chosen by "
        "hand silently detaches the rule from every table that names it.",
        "safe",
    ),
    LintCode(
        "LX104",
        "jurisdiction-unknown",
        "an exemption's jurisdiction is not a known id",
        "Jurisdiction ids are `us` and the lower-case USPS codes; any other id (a typo such as `ohh`) "
        "declares exemptions that no domicile can ever make allowable.",
        "unsafe",
    ),
    LintCode(
        "LX105",
        "text-missing",
        "an exemption has no exemption_title/2 or statute_text/2",
        "The title and our paraphrase are what task prompts, `explain` and `lexsym doc` show; a rule "
        "without them is invisible to the reader it affects.",
    ),
    LintCode(
        "LX106",
        "rule-without-citation",
        "a classification rule has no citation in the comment directly above it",
        "Each qualifies/in_group/group_extra/no_stacking rule is one reading of one provision; the comment "
        "above it must cite that provision (a § or any registered citation form, such as 735 ILCS 5/...).",
    ),
    LintCode(
        "LX201",
        "limit-missing",
        "an exemption has no limit amount and is not declared unlimited/1 or limited_to_support/1",
        "An uncapped exemption must be a decision written down, not a forgotten amount/4.",
    ),
    LintCode(
        "LX202",
        "date-invalid",
        "an amount is dated with a day that does not exist",
        "Amounts apply from a date; date(2024,2,30) never compares as intended, so the figure is never or "
        "always in force.",
    ),
    LintCode(
        "LX203",
        "amount-negative",
        "a dollar amount is negative",
        "No statute exempts a negative sum; a sign slip turns a cap into a claim that can never be met and "
        "the optimiser then reports everything non-exempt.",
    ),
    LintCode(
        "LX204",
        "item-count-below-one",
        "an item count or item-class limit is below 1",
        "A count of 0 allows no claim at all (write no rule instead) and divides by zero in the per-item "
        "limit arithmetic of encodings/parameters.lp.",
    ),
    LintCode(
        "LX205",
        "amount-kind-unknown",
        "an amount kind is not limit, per_item, fallback or joint_limit",
        "The encodings read only these kinds; a misspelt kind is an amount nothing uses, and the exemption "
        "then falls back to another figure or to none.",
        "unsafe",
    ),
    LintCode(
        "LX206",
        "source-orphan",
        "an amount_source/3 is dated on a day none of the exemption's amounts has",
        "A source records where one figure was read. Dated to a day no figure has (usually because the "
        "amount's date was edited and its source's was not), it documents nothing, and the figure it "
        "belonged to is left without a source.",
    ),
    LintCode(
        "LX301",
        "clingo",
        "clingo reports an error or an undefined atom",
        "An atom that no rule defines (a misspelt predicate) is false everywhere, so the rule using it is "
        "silently dead; errors stop every solve that loads the file.",
        "unsafe",
    ),
    LintCode(
        "LX302",
        "vocabulary-unknown",
        "a kind, use, user, owner, plan or vehicle type is not in the vocabulary",
        "Statutes test property by the words of encodings/vocabulary.lp; a word outside it (househld_good) "
        "matches no case, so the rule never applies.",
        "unsafe",
    ),
    LintCode(
        "LX303",
        "unreachable",
        "no catalogue asset qualifies for an exemption",
        "An exemption that no described property reaches is untestable by the generator and usually a rule "
        "whose conditions contradict each other.",
    ),
    LintCode(
        "LX304",
        "reading-unknown",
        "a rule tests a reading, or an option of one, that lexsym/law/readings.py does not define",
        "Every case carries exactly one reading(Name, Option) fact per defined reading, so a misspelt name "
        "or option makes the rule's body false in every case: the contested reading silently never "
        "applies, under any choice.",
        "unsafe",
    ),
)

CODES: dict[str, LintCode] = {c.code: c for c in _CODES}


def selected(code: str, select: list[str] | None, ignore: list[str] | None) -> bool:
    """Whether `code` is reported: by prefix, as ruff selects (`LX2` covers LX201-LX206)."""
    if select and not any(code.startswith(s.upper()) for s in select):
        return False
    return not (ignore and any(code.startswith(i.upper()) for i in ignore))


def unknown_selectors(selectors: list[str]) -> list[str]:
    return [s for s in selectors if not any(c.startswith(s.upper()) for c in CODES)]


def codes_markdown() -> str:
    """The table of codes for docs/lint.md."""
    lines = ["| Code | Name | Reports | Why | Fix |", "|---|---|---|---|---|"]
    for c in _CODES:
        fix = {"safe": "`--fix`", "unsafe": "`--unsafe-fixes`"}.get(c.fix, "")
        lines.append(f"| {c.code} | {c.name} | {c.summary} | {c.rationale} | {fix} |")
    return "\n".join(lines) + "\n"
