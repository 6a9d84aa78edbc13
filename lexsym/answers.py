"""Reading a model's raw response into a typed answer, tolerantly and without ever raising.

The prompts (`data/templates/prompt/format/*.j2`) ask for a response that ends with "FINAL ANSWER:" and a
JSON value. Models drift from that in predictable ways, and each drift is either repaired here (and
recorded in `ParsedAnswer.notes`) or reported in `ParsedAnswer.error`, so that a scorer never has to guess
and a run is never stopped by one malformed response. OpenExempt's evaluator (`evaluator.py`,
`source/pydantic_response.py`) reads the text after the last "FINAL ANSWER:" with pydantic and aligns asset
descriptions with rapidfuzz's `partial_ratio` above 90; this module keeps those semantics and widens what it
can read.

Rules, in the order they apply:

1. **Finding the answer** (`extract_final_answer`). The last marker wins: "FINAL ANSWER" in any case, with
   "_" or spaces between the words, with markdown emphasis around it (`**FINAL ANSWER:**`) and a separator
   ":", "：" (full width), "-", "--", "–", "—" or "="; or the words alone on a heading line
   (`## Final answer`). An answer runs to the next marker at most, and a marker followed by nothing is
   skipped in favour of the one before it. After the marker: the body of a markdown fence when one opens
   there; then the first complete JSON value that starts on the first line, its brackets balanced with
   strings (double or single quoted) respected, so prose after it is dropped; a first line ending in ":"
   hands over to the next line that opens a value or a fence; with no bracket at all, the first line (or
   the bullet list that starts there) is the answer, for AE's bare "Oregon, Federal".
2. **No marker.** `extract_final_answer` returns None and `parse_answer` tries, in order, the fenced blocks
   of the text (last first), its top-level JSON values (last first) and, for a one-line response, the whole
   text; the first that reads as the task's answer is taken, with `marker_found=False` and a note.
3. **Reading the value.** `json.loads` (duplicate keys merged: lists concatenated, otherwise the last wins),
   then the same text with trailing commas removed and typographic quotes straightened, then, when the text
   has a single quote, `ast.literal_eval` (Python literals: 'single quotes', True/None, tuples; never
   `eval`; sets and side-by-side strings, which Python would join, are refused). A value whose brackets
   never close is reported as truncated; any other failure names json's line and column.
4. **Shapes.** Single-key wrappers such as `{"answer": ...}` or `{"EC": ...}` are unwrapped. The top level
   must then have the task's shape (a list or text for AE, an object for the others), otherwise ok=False.
   Inside it, an entry that cannot be read (a claim without a citation, an asset whose value is a number) is
   dropped and named in `notes`, never turned into an empty list that could score; ok=False only when every
   entry of a non-empty answer was dropped. Amounts that cannot be read stay None, with the raw value kept.
5. **Names, amounts, citations** follow `jurisdiction_code`, `parse_amount` and `normalize_citation`.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from itertools import pairwise, takewhile
from reprlib import repr as short_repr
from typing import Any

from pydantic import BaseModel, ConfigDict, RootModel, ValidationError, ValidationInfo, model_validator
from rapidfuzz import fuzz

from lexsym.citations import citation_key, clean_citation, resolve_citation
from lexsym.generate.config import Task
from lexsym.vocabulary import FEDERAL, JURISDICTION_NAMES

__all__ = [
    "AllowableAnswer",
    "Claim",
    "ClassificationAnswer",
    "NonExemptAnswer",
    "OEAnswer",
    "OptimalAnswer",
    "ParsedAnswer",
    "ValuationAnswer",
    "align_assets",
    "extract_final_answer",
    "jurisdiction_code",
    "normalize_citation",
    "parse_amount",
    "parse_answer",
]

Amount = int | float | None


# --------------------------------------------------------------------------------------------------------
# Typed answers
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One claim of an answer: the cleaned citation (resolved to a known one when `known` was given), the
    amount as `parse_amount` reads it (None when unreadable) and the value exactly as the answer wrote it."""

    citation: str
    claim_value: Amount
    raw_value: Any = None


@dataclass(frozen=True)
class OEAnswer:
    """An OE answer: the chosen jurisdiction's id (None when the answer names none: the checker infers it
    from the citations) and the schedule, asset description -> claims."""

    jurisdiction: str | None
    schedule: dict[str, list[Claim]]


@dataclass(frozen=True)
class ParsedAnswer:
    """What `parse_answer` made of a response.

    `value` is typed by task: AE list[str] of jurisdiction ids; EC dict[str, list[str]]; EV dict[str,
    list[Claim]]; NA dict[str, int | float | None] keyed by jurisdiction id; OE OEAnswer. It is None when
    ok is False. `error` is a one-line reason when ok is False; `notes` lists the repairs made on the way;
    `span` is the text that was read.
    """

    task: Task
    value: Any
    ok: bool
    error: str | None = None
    marker_found: bool = False
    notes: tuple[str, ...] = ()
    span: str | None = None


# --------------------------------------------------------------------------------------------------------
# Amounts
# --------------------------------------------------------------------------------------------------------

_CURRENCY = re.compile(r"(?i)^(?:us\s*\$|usd|\$)\s*|\s*(?:usd|us\s*\$|\$|dollars?)$")
_GROUP_SEPARATORS = " '’\u00a0\u202f\u2009"
_PLAIN = re.compile(r"\d+")
_DOT_ONLY = re.compile(r"\d*\.\d+")
_DOT_THOUSANDS = re.compile(r"[1-9]\d{0,2}\.\d{3}")
_COMMA_ONLY = re.compile(r"\d+,\d+")
_COMMA_THOUSANDS = re.compile(r"[1-9]\d{0,2},\d{3}")
_COMMA_DECIMALS = re.compile(r"\d+,\d{1,2}")
_US_GROUPS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DE_GROUPS = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?")
_SPACE_GROUPS = re.compile(rf"\d{{1,3}}(?:[{_GROUP_SEPARATORS}]\d{{3}})+(?:[.,]\d+)?")
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d{1,2}")


def _decimal_text(text: str) -> str | None:
    """`text` (digits and separators only) as a plain decimal numeral, or None when it is not a number."""
    if _PLAIN.fullmatch(text) or _SCIENTIFIC.fullmatch(text):
        return text
    if _DOT_ONLY.fullmatch(text):
        return text.replace(".", "") if _DOT_THOUSANDS.fullmatch(text) else text
    if _COMMA_ONLY.fullmatch(text):
        if _COMMA_THOUSANDS.fullmatch(text):
            return text.replace(",", "")
        return text.replace(",", ".") if _COMMA_DECIMALS.fullmatch(text) else None
    if _US_GROUPS.fullmatch(text):
        return text.replace(",", "")
    if _DE_GROUPS.fullmatch(text):
        return text.replace(".", "").replace(",", ".")
    if _SPACE_GROUPS.fullmatch(text):
        return re.sub(f"[{_GROUP_SEPARATORS}]", "", text).replace(",", ".")
    return None


def _whole_if_integral(number: Decimal | float) -> int | float:
    return int(number) if number == int(number) else float(number)


def parse_amount(value: Any) -> int | float | None:
    """Dollars from an answer's amount: an `int` when the amount is whole, a `float` when it is not (the
    checker flags non-integer amounts), None when it is not a number. Negative amounts are returned as
    they are, for the checker to report.

    - bool, None, lists, objects, NaN and infinities: None. Integral floats become ints.
    - Strings may carry "$", "US$", "USD" or "dollars" before or after the number, a sign ("-", "−", "+"),
      surrounding spaces and one trailing period.
    - Grouping: "12,500" and "12,500.00" (US), "12.500,00" (German: "." groups, "," decimals), "1 234" or
      "1'234" (spaces, no-break spaces, apostrophes). Groups must be of three digits.
    - A lone separator: "12.500" and "12,500" are thousands (one to three digits, then exactly three, as
      amounts in dollars never have three decimals); "12,5" and "12,50" are German decimals; "12.5" is a
      decimal; "1,2345" is not a number.
    - Scientific notation ("1.25e4") is read. Strings over 64 characters are not.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _whole_if_integral(value) if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return _whole_if_integral(value) if value.is_finite() else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > 64:
        return None
    negative = False
    for _ in range(2):  # "-$12", "$-12", "USD -12"
        text = _CURRENCY.sub("", text).strip()
        if text[:1] in ("-", "−", "+") and not negative:
            negative = text[0] != "+"
            text = text[1:].strip()
    if text.endswith(".") and text[:-1][-1:].isdigit():
        text = text[:-1]
    numeral = _decimal_text(text)
    if numeral is None:
        return None
    try:
        number = Decimal(numeral)
    except InvalidOperation:
        return None
    return _whole_if_integral(-number if negative else number)


# --------------------------------------------------------------------------------------------------------
# Jurisdictions
# --------------------------------------------------------------------------------------------------------

_FEDERAL_ALIASES = (
    "federal",
    "fed",
    "us",
    "u.s.",
    "usa",
    "u.s.a.",
    "united states",
    "federal government",
    "federal bankruptcy code",
    "bankruptcy code",
    "11 u.s.c. § 522(d)",
    "11 u.s.c. 522(d)",
    "§ 522(d)",
    "522(d)",
)
_JURISDICTION_BY_NAME: dict[str, str] = {
    **{code.casefold(): code for code in JURISDICTION_NAMES},
    **{name.casefold(): code for code, name in JURISDICTION_NAMES.items()},
    **dict.fromkeys(_FEDERAL_ALIASES, FEDERAL),
}
_LEADING_WORDS = re.compile(r"^(?:the|state of|commonwealth of|federal law of)\s+")
_TRAILING_WORDS = re.compile(
    r"\s+(?:exemptions?|exemption (?:scheme|system)|scheme|system|state|law|laws|statutes?|bankruptcy|"
    r"non-bankruptcy|nonbankruptcy|option|list|set)$"
)
_DECORATION = "\"'`*_“”‘’ \t\n"


def jurisdiction_code(name: str) -> str:
    """The jurisdiction id ("OR", "US") a name in an answer denotes: a full name ("Oregon"), a USPS code
    ("or", "OR") or "Federal" and its usual variants ("U.S.", "United States", "federal bankruptcy
    exemptions"), in any case, with words such as "exemptions", "state", "the" and parenthesised remarks
    ignored ("Oregon (state) exemptions", "the Federal exemptions"). An unknown name is returned upper-cased
    as given (without quotes or markdown), so a scorer counts it as a wrong jurisdiction."""
    text = " ".join(str(name).split()).strip(_DECORATION)
    core = text
    while "(" in core and core != (core := re.sub(r"\([^()]*\)", " ", core)):
        pass  # innermost parentheses first: "Federal (11 U.S.C. § 522(d))"
    core = re.sub(r"['’]s\b", "", " ".join(core.split()).casefold().rstrip("."))  # "Oregon's exemptions"
    for _ in range(4):
        shorter = _TRAILING_WORDS.sub("", _LEADING_WORDS.sub("", core)).strip(" -–—,:.")
        if shorter == core or not shorter:
            break
        core = shorter
    for candidate in (text.casefold(), core, core + "."):
        if candidate in _JURISDICTION_BY_NAME:
            return _JURISDICTION_BY_NAME[candidate]
    return text.upper()


# --------------------------------------------------------------------------------------------------------
# Citations
# --------------------------------------------------------------------------------------------------------

_DASHES = re.compile(r"[‐‑‒–—―−]")
_CODE_ALIASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?i)\bILCS\b\.?(?:\s*Ann\.?)?"), "Ill. Comp. Stat."),
    (re.compile(r"(?i)\bIll\.?\s*Comp\.?\s*Stat\.?(?:\s*Ann\.?)?"), "Ill. Comp. Stat."),
    (re.compile(r"(?i)\bA\.\s*R\.\s*S\.?|\bARS\b"), "Ariz. Rev. Stat."),
    (
        re.compile(r"(?i)\bAriz(?:ona|\.)?\s*Rev(?:ised|\.)?\s*Stat(?:utes|s?\.)?(?:\s*Ann\.?)?"),
        "Ariz. Rev. Stat.",
    ),
    (re.compile(r"(?i)\bO\.\s*R\.\s*S\.?|\bORS\b"), "Or. Rev. Stat."),
    (
        re.compile(r"(?i)\bOr(?:egon|e?\.)?\s*Rev(?:ised|\.)?\s*Stat(?:utes|s?\.)?(?:\s*Ann\.?)?"),
        "Or. Rev. Stat.",
    ),
    (re.compile(r"(?i)\bPa\.?\s*C\.\s*S\.(?:\s*A\.)?|\bPa\.?\s*CSA?\b"), "Pa. Cons. Stat."),
    (re.compile(r"(?i)\bPa\.?\s*Cons\.?\s*Stat\.?(?:\s*Ann\.?)?"), "Pa. Cons. Stat."),
    (re.compile(r"(?i)\bWis(?:consin|\.)?\s*Stat(?:utes|s?\.)?(?:\s*Ann\.?)?"), "Wis. Stat."),
)
_BARE_SECTION = re.compile(r"(?i)^(?:§+|sec(?:tion)?s?\.?)?\s*\d[\w./:-]*(?:\s*\([A-Za-z0-9]+\))*$")


def _prepared(text: str) -> str:
    text = _DASHES.sub("-", str(text)).strip(_DECORATION)
    return text.rstrip(".,;").strip()


def _expanded(text: str) -> str:
    for pattern, replacement in _CODE_ALIASES:
        text = pattern.sub(replacement, text)
    return text


def _loose_key(text: str) -> str:
    """citation_key without the periods of abbreviations (those between digits, as in 18.345, stay)."""
    return re.sub(r"(?<!\d)\.|\.(?!\d)", "", citation_key(text))


def _section_key(citation: str) -> str:
    cleaned = clean_citation(citation)
    if "§" in cleaned:
        return citation_key(cleaned.rsplit("§", 1)[1])
    match = re.search(r"Stat\. (.+)$", cleaned)  # Illinois: "735 Ill. Comp. Stat. 5/12-1001(c)"
    return citation_key(match.group(1)) if match else ""


@lru_cache(maxsize=64)
def _citation_index(known: tuple[str, ...]) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """Known citations by loose key and by section alone; None marks a key two citations share."""
    loose: dict[str, str | None] = {}
    sections: dict[str, str | None] = {}
    for citation in known:
        for index, key in ((loose, _loose_key(citation)), (sections, _section_key(citation))):
            if key:
                index[key] = citation if index.get(key, citation) == citation else None
    return loose, sections


def normalize_citation(text: str, known: Iterable[str]) -> str:
    """The known citation `text` denotes, else `text` cleaned (`lexsym.citations.clean_citation`).

    Matching is by `resolve_citation` (case, spaces, "§"/"§§"/"Sec."/"section", "11 USC"), then with the
    codes' common abbreviations expanded: "ILCS" is read as "Ill. Comp. Stat." (so "735 ILCS 5/12-1001(c)"
    finds "735 Ill. Comp. Stat. 5/12-1001(c)"), "A.R.S."/"ARS" as "Ariz. Rev. Stat.", "ORS" as "Or. Rev.
    Stat.", "Pa.C.S."/"Pa. C.S.A." as "Pa. Cons. Stat.", "Wis. Stats." as "Wis. Stat.", "Ann." dropped;
    then ignoring the periods of abbreviations ("Ariz Rev Stat 33-1125(8)"). A bare section ("§ 522(d)(2)",
    "section 18.345(1)(a)") matches only when exactly one known citation has that section. Dashes of any
    kind read as "-". The expansions are used only to match: an unmatched citation keeps its own wording.
    """
    known = tuple(known)
    prepared = _prepared(text)
    if not known:
        return clean_citation(prepared)
    known_set = set(known)
    for candidate in (prepared, _expanded(prepared)):
        resolved = resolve_citation(candidate, known)
        if resolved in known_set:
            return resolved
    loose, sections = _citation_index(known)
    found = loose.get(_loose_key(_expanded(prepared)))
    if found is None and _BARE_SECTION.match(prepared):
        bare = re.sub(r"(?i)^(?:§+|sec(?:tion)?s?\.?)\s*", "", prepared)
        found = sections.get(citation_key(bare))
    return found or clean_citation(prepared)


def _citation(text: str, context: dict[str, Any]) -> str:
    known = context.get("known", ())
    return normalize_citation(text, known) if known else clean_citation(_prepared(text))


# --------------------------------------------------------------------------------------------------------
# Asset alignment
# --------------------------------------------------------------------------------------------------------


def _asset_norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def align_assets(predicted: Sequence[str], actual: Sequence[str], threshold: float = 90) -> dict[str, str]:
    """A one-to-one map from an answer's asset keys to the case's descriptions.

    First, keys equal to a description after case folding and whitespace collapsing are matched, in the
    order of `predicted`. Then every remaining pair whose `rapidfuzz.fuzz.partial_ratio` (on the normalised
    texts) is at least `threshold` is a candidate; candidates are taken greedily by descending score, and a
    key or description already taken is skipped, so no description is matched twice and no key twice.
    Ties in partial_ratio (common: a short key is a 100 partial match of several descriptions that contain
    it) go to the pair with the higher full `fuzz.ratio`, then to the earlier key, then to the earlier
    description. Keys that match nothing are absent from the result; repeated keys count once.
    """
    keys = list(dict.fromkeys(predicted))
    descriptions = list(actual)
    normal = [_asset_norm(d) for d in descriptions]
    by_norm: dict[str, list[int]] = defaultdict(list)
    for index, text in enumerate(normal):
        by_norm[text].append(index)
    result: dict[str, str] = {}
    taken: set[int] = set()
    for key in keys:
        free = [index for index in by_norm.get(_asset_norm(key), ()) if index not in taken]
        if free:
            result[key] = descriptions[free[0]]
            taken.add(free[0])
    candidates = []
    for key_index, key in enumerate(keys):
        if key in result:
            continue
        key_norm = _asset_norm(key)
        for index, text in enumerate(normal):
            if index in taken:
                continue
            score = fuzz.partial_ratio(key_norm, text)
            if score >= threshold:
                candidates.append((-score, -fuzz.ratio(key_norm, text), key_index, index))
    for _, _, key_index, index in sorted(candidates):
        if keys[key_index] in result or index in taken:
            continue
        result[keys[key_index]] = descriptions[index]
        taken.add(index)
    return result


# --------------------------------------------------------------------------------------------------------
# Finding the answer in the text
# --------------------------------------------------------------------------------------------------------

_MARKER = re.compile(
    r"(?im)final[ \t_]*answer[ \t*_]*(?:[:：]|--?(?![\d-])|[–—=])[ \t*_]*"
    r"|^[ \t>#*_]*final[ \t_]*answer[ \t*_#]*:?[ \t*_]*$"
)
_FENCE_OPEN = re.compile(r"(?:```|~~~)[\w+-]*[ \t]*\n?")
_FENCE_BLOCK = re.compile(r"(?s)(?:```|~~~)[\w+-]*[ \t]*\n(.*?)(?:```|~~~|$)")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
_OPENERS = {"[": "]", "{": "}"}
_CLOSERS = {"]", "}"}


@dataclass(frozen=True)
class _Scan:
    end: int  # index after the value (or len(text) when it never closes)
    open_brackets: int  # brackets left open at `end`
    in_string: bool  # the text ended inside a string


def _scan_value(text: str, start: int) -> _Scan:
    """Where the bracketed value opening at `start` ends: brackets balanced, strings ("..." or '...',
    with backslash escapes, ending at a line break at the latest) skipped."""
    stack: list[str] = []
    quote: str | None = None
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote or char == "\n":
                quote = None
        elif char in "\"'":
            quote = char
        elif char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char in _CLOSERS:
            expected = stack.pop()
            if char != expected or not stack:  # closed, or a mismatched bracket (left for json to report)
                return _Scan(index + 1, 0, False)
        index += 1
    return _Scan(len(text), len(stack), quote is not None)


def _first_value(text: str, start: int) -> str:
    return text[start : _scan_value(text, start).end]


def _strip_line(line: str) -> str:
    return line.strip().strip("*_`>").strip()


def _answer_in(rest: str) -> str:
    """The answer in the text after a marker (rule 1 of the module docstring)."""
    rest = rest.strip()
    fence = _FENCE_OPEN.match(rest)
    if fence:
        body = rest[fence.end() :]
        close = re.search(r"```|~~~", body)
        rest = (body[: close.start()] if close else body).strip()
    if not rest:
        return ""
    lines = rest.split("\n")
    first = lines[0]
    bracket = re.search(r"[\[{]", first)
    if bracket:
        return _first_value(rest, bracket.start())
    if _strip_line(first).endswith(":") or not _strip_line(first):
        offset = len(first) + 1
        for line in lines[1:]:
            stripped = line.lstrip()
            if stripped[:1] in _OPENERS or _FENCE_OPEN.match(stripped):
                return _answer_in(rest[offset:])
            offset += len(line) + 1
    if _BULLET.match(first):
        return "\n".join(_strip_line(_BULLET.sub("", line)) for line in takewhile(_BULLET.match, lines))
    return _strip_line(first)


def extract_final_answer(text: str) -> str | None:
    """The answer after the last "FINAL ANSWER" marker (rule 1 of the module docstring): a JSON value
    without fences or trailing prose, or a bare line. "" when markers are present but all are followed by
    nothing; None when there is no marker (see `parse_answer` for the fallback)."""
    if not isinstance(text, str):
        return None
    markers = list(_MARKER.finditer(text))
    if not markers:
        return None
    ends = [marker.start() for marker in markers[1:]] + [len(text)]
    for marker, end in zip(reversed(markers), reversed(ends), strict=True):
        answer = _answer_in(text[marker.end() : end])  # an answer runs to the next marker at most
        if answer.strip():
            return answer
    return ""


def _fallback_spans(text: str, limit: int = 20) -> list[tuple[str, str]]:
    """Candidate answers in a response without a marker, best first, each with how it was found."""
    spans: list[tuple[str, str]] = []
    for match in reversed(list(_FENCE_BLOCK.finditer(text))):
        body = match.group(1).strip()
        if body[:1] in _OPENERS:
            spans.append((_first_value(body, 0), "the last fenced block"))
    values = []
    index, failed = 0, 0
    while index < len(text) and len(values) < 200 and failed < 50:  # bounded: each failed scan is O(n)
        char = text[index]
        if char in _OPENERS:
            scan = _scan_value(text, index)
            if scan.open_brackets == 0 and not scan.in_string:
                values.append(text[index : scan.end])
                index = scan.end
                continue
            failed += 1
        index += 1
    spans.extend((value, "the last JSON value in the text") for value in reversed(values))
    stripped = text.strip()
    if stripped and "\n" not in stripped and len(stripped) <= 300:
        spans.append((_strip_line(stripped), "the whole response"))
    return spans[:limit]


# --------------------------------------------------------------------------------------------------------
# Reading a value
# --------------------------------------------------------------------------------------------------------


class _Unreadable(ValueError):
    """A span that is not a JSON (or Python-literal) value; the message is the one-line reason."""


def _merge_duplicates(notes: list[str]):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for key, value in pairs:
            if key in merged:
                notes.append(f"duplicate key {key!r} merged")
                if isinstance(merged[key], list) and isinstance(value, list):
                    value = merged[key] + value
            merged[key] = value
        return merged

    return hook


def _plain(value: Any) -> Any:
    """A Python literal as the JSON types (tuples become lists); _Unreadable for anything else (sets,
    bytes, complex numbers: a JSON answer never reads as one of them)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, float)) or isinstance(key, bool):
                raise _Unreadable(f"an object key is not text: {key!r}")
            plain[str(key)] = _plain(item)
        return plain
    raise _Unreadable(f"not a JSON value: {type(value).__name__}")


_NOT_A_LITERAL = object()
_SKIPPED_TOKENS = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}


def _python_literal(span: str) -> Any:
    """`span` read by `ast.literal_eval` (never `eval`) as JSON's types, or _NOT_A_LITERAL. Tried only when
    the span has a single quote (the reason to try it), and refused when two string literals stand side
    by side: Python would join them ({"citation" "x"} is a set of one string, not a claim)."""
    if "'" not in span or len(span) > 200_000:
        return _NOT_A_LITERAL
    try:
        kinds = [
            token.type
            for token in tokenize.generate_tokens(io.StringIO(span).readline)
            if token.type not in _SKIPPED_TOKENS
        ]
        if any(a == b == tokenize.STRING for a, b in pairwise(kinds)):
            return _NOT_A_LITERAL
        return _plain(ast.literal_eval(span))
    except Exception:  # SyntaxError, ValueError, _Unreadable, MemoryError, RecursionError: not a literal
        return _NOT_A_LITERAL


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})


def _load(span: str, notes: list[str]) -> Any:
    """The value written in `span` (rule 3 of the module docstring)."""
    hook = _merge_duplicates(notes)
    try:
        return json.loads(span, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        first_error = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
    except (ValueError, RecursionError) as exc:
        first_error = f"invalid JSON: {type(exc).__name__}"
    repaired = _TRAILING_COMMA.sub(r"\1", span.translate(_SMART_QUOTES))
    if repaired != span:
        try:
            value = json.loads(repaired, object_pairs_hook=hook)
        except (ValueError, RecursionError):
            pass
        else:
            notes.append("repaired trailing commas or typographic quotes")
            return value
    literal = _python_literal(repaired.strip())
    if literal is not _NOT_A_LITERAL:
        notes.append("read as a Python literal")
        return literal
    start = next((i for i, char in enumerate(span) if char in _OPENERS), None)
    if start is not None:
        scan = _scan_value(span, start)
        if scan.in_string:
            raise _Unreadable("truncated JSON: the answer ends inside a string")
        if scan.open_brackets:
            raise _Unreadable(f"truncated JSON: {scan.open_brackets} bracket(s) never closed")
    raise _Unreadable(first_error)


# --------------------------------------------------------------------------------------------------------
# Per-task models
# --------------------------------------------------------------------------------------------------------

_WRAPPERS = {"answer", "final_answer", "finalanswer", "result", "response", "output"}
_TASK_WRAPPERS: dict[Task, set[str]] = {
    Task.AE: {"jurisdictions", "allowable_jurisdictions", "allowable_exemptions", "allowable"},
    Task.EC: {"classification", "exemption_classification", "assets"},
    Task.EV: {"valuation", "exemption_valuation", "assets"},
    Task.NA: {"non_exempt", "nonexempt", "non_exempt_assets", "non_exempt_totals"},
    Task.OE: {"optimal_exemptions"},
}
_CITATION_KEYS = ("citation", "cite", "statute", "exemption", "section", "law", "exemption_citation")
_VALUE_KEYS = (
    "claim_value",
    "value",
    "amount",
    "claim",
    "claimed_value",
    "claim_amount",
    "claimed_amount",
    "exempt_value",
    "exemption_value",
    "claimed",
    "exempt_amount",
)
_ASSET_KEYS = ("asset", "asset_description", "description", "asset_name")
_JURISDICTION_KEYS = ("jurisdiction", "chosen_jurisdiction", "state", "name", "exemption_scheme")
_SCHEDULE_KEYS = ("schedule", "claims", "exemptions", "exemption_schedule")
_TOTAL_KEYS = ("non_exempt_total", "non_exempt", "nonexempt", "total", "non_exempt_value", "value", "amount")


def _field_name(key: str) -> str:
    return re.sub(r"[\s-]+", "_", key.strip().casefold())


def _pick(data: dict[str, Any], names: Sequence[str]) -> tuple[str, Any] | None:
    """The first entry of `data` whose key, case and spacing aside, is one of `names` (in their order)."""
    by_name = {_field_name(key): key for key in data}
    for name in names:
        if name in by_name:
            return by_name[name], data[by_name[name]]
    return None


def _notes(info: ValidationInfo) -> list[str]:
    return (info.context or {}).setdefault("notes", [])


def _context(info: ValidationInfo) -> dict[str, Any]:
    return info.context or {}


def _describe(value: Any) -> str:
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list"}
    if value is None:
        return "null"
    return "an object" if isinstance(value, dict) else kinds.get(type(value), type(value).__name__)


def _unwrap(data: Any, task: Task, notes: list[str]) -> Any:
    """`data` without single-key wrappers such as {"answer": ...} or {"EC": ...}."""
    names = _WRAPPERS | _TASK_WRAPPERS[task] | {task.value.casefold()}
    for _ in range(3):
        if not (isinstance(data, dict) and len(data) == 1):
            break
        ((key, inner),) = data.items()
        wanted = (list, str) if task is Task.AE else (dict, list) if task is Task.NA else (dict,)
        if _field_name(key) not in names or not isinstance(inner, wanted):
            break
        notes.append(f"unwrapped {key!r}")
        data = inner
    return data


def _read_claim(item: Any, context: dict[str, Any]) -> Claim:
    """One claim: {"citation", "claim_value" (or "value", "amount", ...)}, [citation, value], a
    one-entry {citation: value}, or a bare citation (its value then None)."""
    if isinstance(item, Claim):
        return item
    if isinstance(item, dict):
        citation = _pick(item, _CITATION_KEYS)
        if citation is None and len(item) == 1 and _field_name(next(iter(item))) not in _VALUE_KEYS:
            ((text, raw),) = item.items()
        elif citation is None:
            raise ValueError("a claim has no citation")
        else:
            text = citation[1]
            value = _pick(item, _VALUE_KEYS)
            raw = value[1] if value else None
    elif isinstance(item, (list, tuple)) and len(item) == 2:
        text, raw = item
    elif isinstance(item, str):
        text, raw = item, None
        context.setdefault("notes", []).append(f"claim {item!r} has no value")
    else:
        raise ValueError(f"a claim is {_describe(item)}, not an object with a citation and a claim_value")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a claim's citation is {_describe(text)}, not a citation")
    return Claim(_citation(text, context), parse_amount(raw), raw)


def _read_claims(asset: str, value: Any, context: dict[str, Any]) -> list[Claim]:
    """An asset's claims: a list of claims, one claim object, {citation: value, ...} or null."""
    notes = context.setdefault("notes", [])
    if value is None:
        return []
    if isinstance(value, dict):
        items: list[Any] = [value] if _pick(value, _CITATION_KEYS) else list(value.items())
    elif isinstance(value, (list, str)):
        items = value if isinstance(value, list) else [value]
    else:
        raise ValueError(f"expected a list of claims for {asset!r}, got {_describe(value)}")
    claims = []
    for item in items:
        try:
            claims.append(_read_claim(item, context))
        except ValueError as exc:
            notes.append(f"dropped a claim of {asset!r}: {exc}")
    if items and not claims:
        raise ValueError(f"no claim of {asset!r} could be read")
    return claims


def _read_mapping(data: Any, read_entry: Any, context: dict[str, Any], what: str) -> dict[str, Any]:
    """{asset: entry} with each entry read by `read_entry(asset, value, context)`; unreadable entries are
    dropped (and noted) unless all are."""
    if not isinstance(data, dict):
        raise ValueError(f"expected an object mapping asset descriptions to {what}, got {_describe(data)}")
    notes = context.setdefault("notes", [])
    result: dict[str, Any] = {}
    first_problem = None
    for key, value in data.items():
        asset = str(key).strip()
        try:
            result[asset] = read_entry(asset, value, context)
        except ValueError as exc:
            first_problem = first_problem or str(exc)
            notes.append(f"dropped asset {asset!r}: {exc}")
    if data and not result:
        raise ValueError(f"nothing could be read: {first_problem}")
    return result


def _schedule_rows(rows: list[Any]) -> dict[str, list[Any]] | None:
    """A schedule given as rows [{"asset": ..., "citation": ..., "claim_value": ...}], grouped by asset."""
    grouped: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        if not isinstance(row, dict) or _pick(row, _ASSET_KEYS) is None:
            return None
        key, asset = _pick(row, _ASSET_KEYS)
        grouped[str(asset)].append({k: v for k, v in row.items() if k != key})
    return dict(grouped)


def _error_message(exc: ValidationError) -> str:
    error = exc.errors()[0]
    message = str(error.get("msg", exc)).removeprefix("Value error, ")
    location = ".".join(str(part) for part in error.get("loc", ()))
    return f"{message} (at {location})" if location and error.get("type") != "value_error" else message


class AllowableAnswer(RootModel[list[str]]):
    """AE: jurisdiction ids, from a JSON list of names, a comma-separated text ("Oregon, Federal"), a
    bulleted list, or {name: true/false}. Items that are not names (no letter in them) are dropped (and
    noted); an item with commas is split; a jurisdiction named twice counts once."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        notes = _notes(info)
        if isinstance(data, str):
            data = _split_names(data)
            notes.append("read a list of names from text")
        elif isinstance(data, dict) and data and all(isinstance(v, bool) for v in data.values()):
            data = [key for key, chosen in data.items() if chosen]
            notes.append("read the names marked true")
        if not isinstance(data, list):
            raise ValueError(f"expected a list of jurisdictions, got {_describe(data)}")
        codes: list[str] = []
        for item in data:
            if isinstance(item, dict) and (picked := _pick(item, _JURISDICTION_KEYS)):
                item = picked[1]
            if not isinstance(item, str) or not re.search(r"[^\W\d_]", item):
                notes.append(f"dropped {short_repr(item)}: not a jurisdiction name")
                continue
            for name in _split_names(item) if re.search(r"[,;]", item) else [item]:  # ["Oregon, Federal"]
                code = jurisdiction_code(name)
                if code not in codes:
                    codes.append(code)
        if data and not codes:
            raise ValueError("expected a list of jurisdictions, found no names in it")
        return codes


def _split_names(text: str) -> list[str]:
    """Names in text: quoted ones, or ones separated by commas, semicolons, line breaks, "and" or "&";
    a sentence after the names ("Oregon, Federal. Both apply because ...") is dropped."""
    text = re.split(r"(?<=[a-z]{2})\.(?:\s|$)", text.strip(), maxsplit=1)[0]
    if text.startswith(('"', "'")):
        try:
            value = _plain(ast.literal_eval(f"[{text}]"))
            if all(isinstance(item, str) for item in value):
                return [part for item in value for part in _split_names(item)]
        except Exception:  # not a sequence of string literals: split the text itself
            pass
    parts = re.split(r"\s*(?:[,;\n]|\band\b|&)\s*", text)
    names = [_BULLET.sub("", part).strip(_DECORATION).rstrip(".").strip() for part in parts]
    return [name for name in names if name]


class ClassificationAnswer(RootModel[dict[str, list[str]]]):
    """EC: asset description -> cleaned citations. An asset's value may also be one citation, null, claim
    objects (their citations are taken) or {citation: ...} (its keys)."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        return _read_mapping(data, _read_citations, _context(info), "lists of citations")


def _read_citations(asset: str, value: Any, context: dict[str, Any]) -> list[str]:
    notes = context.setdefault("notes", [])
    if value is None:
        return []
    if isinstance(value, str):
        value = [value] if value.strip() else []
    elif isinstance(value, dict):
        value = [value] if _pick(value, _CITATION_KEYS) else list(value)
    if not isinstance(value, list):
        raise ValueError(f"expected a list of citations for {asset!r}, got {_describe(value)}")
    citations = []
    for item in value:
        if isinstance(item, dict) and (picked := _pick(item, _CITATION_KEYS)):
            item = picked[1]
        if isinstance(item, str) and item.strip():
            citation = _citation(item, context)
            if citation not in citations:
                citations.append(citation)
        else:
            notes.append(f"dropped {short_repr(item)} from {short_repr(asset)}: not a citation")
    if value and not citations:
        raise ValueError(f"no citation of {asset!r} could be read")
    return citations


class ValuationAnswer(RootModel[dict[str, list[Claim]]]):
    """EV: asset description -> claims (see `_read_claim` for the claim forms read)."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, list) and (rows := _schedule_rows(data)) is not None:
            data = rows
        return _read_mapping(data, _read_claims, _context(info), "lists of claims")


class NonExemptAnswer(RootModel[dict[str, Amount]]):
    """NA: jurisdiction id -> non-exempt total (None when unreadable), from {name: amount} or rows
    [{"jurisdiction": name, "non_exempt_total": amount}]. A jurisdiction named twice keeps its first."""

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        notes = _notes(info)
        if isinstance(data, list):
            pairs = []
            for row in data:
                name = _pick(row, _JURISDICTION_KEYS) if isinstance(row, dict) else None
                total = _pick(row, _TOTAL_KEYS) if isinstance(row, dict) else None
                if name is None:
                    notes.append(f"dropped {short_repr(row)}: no jurisdiction")
                    continue
                pairs.append((name[1], total[1] if total else None))
            if data and not pairs:
                raise ValueError("expected an object mapping jurisdictions to amounts, found no rows")
        elif isinstance(data, dict):
            pairs = list(data.items())
        else:
            raise ValueError(f"expected an object mapping jurisdictions to amounts, got {_describe(data)}")
        totals: dict[str, Amount] = {}
        for name, raw in pairs:
            if not isinstance(name, str):
                notes.append(f"dropped {short_repr(name)}: not a jurisdiction name")
                continue
            code = jurisdiction_code(name)
            if code in totals:
                notes.append(f"{name!r} names {code} again; the first amount is kept")
                continue
            totals[code] = parse_amount(raw)
            if totals[code] is None:
                notes.append(f"the amount for {name!r} is not a number: {short_repr(raw)}")
        return totals


class OptimalAnswer(BaseModel):
    """OE: {"jurisdiction": name, "schedule": {asset: claims}}, or OpenExempt's bare schedule (then the
    jurisdiction is None), or the jurisdiction beside the assets at the top level, or the schedule as rows
    [{"asset", "citation", "claim_value"}]."""

    model_config = ConfigDict(frozen=True)

    jurisdiction: str | None
    schedule: dict[str, list[Claim]]

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any, info: ValidationInfo) -> Any:
        context = _context(info)
        if isinstance(data, list) and (rows := _schedule_rows(data)) is not None:
            data = rows
        if not isinstance(data, dict):
            raise ValueError(f"expected an object with a jurisdiction and a schedule, got {_describe(data)}")
        named = _pick(data, _JURISDICTION_KEYS[:2])
        listed = _pick(data, _SCHEDULE_KEYS)
        jurisdiction = None
        if named is not None:
            if isinstance(named[1], str) and named[1].strip():
                jurisdiction = jurisdiction_code(named[1])
            elif named[1] not in (None, ""):
                raise ValueError(f"expected the jurisdiction to be a name, got {_describe(named[1])}")
        if listed is not None:
            schedule = listed[1]
            if isinstance(schedule, list) and (rows := _schedule_rows(schedule)) is not None:
                schedule = rows
        elif named is not None:
            schedule = {k: v for k, v in data.items() if k != named[0] and isinstance(v, (list, dict))}
        else:
            schedule = data
        return {
            "jurisdiction": jurisdiction,
            "schedule": _read_mapping(schedule, _read_claims, context, "lists of claims"),
        }


MODELS: dict[Task, type[BaseModel]] = {
    Task.AE: AllowableAnswer,
    Task.EC: ClassificationAnswer,
    Task.EV: ValuationAnswer,
    Task.NA: NonExemptAnswer,
    Task.OE: OptimalAnswer,
}
"""The pydantic model that reads each task's answer (after `_unwrap`)."""


# --------------------------------------------------------------------------------------------------------
# parse_answer
# --------------------------------------------------------------------------------------------------------


def _typed(task: Task, model: BaseModel) -> Any:
    if isinstance(model, OptimalAnswer):
        return OEAnswer(model.jurisdiction, dict(model.schedule))
    return model.root  # type: ignore[attr-defined]


_UNQUOTED_LIST = re.compile(r"\[([^\[\]{}\"]*)\]")


def _read_span(task: Task, span: str, known: tuple[str, ...]) -> tuple[Any, list[str]]:
    """The typed value in `span`, and the notes made reading it; _Unreadable with the reason otherwise."""
    notes: list[str] = []
    stripped = span.strip()
    if not stripped:
        raise _Unreadable("empty answer after the FINAL ANSWER marker")
    unquoted = _UNQUOTED_LIST.match(stripped) if task is Task.AE else None
    if stripped[0] in "[{":
        try:
            data = _load(stripped, notes)
        except _Unreadable:
            if unquoted is None:
                raise
            data = unquoted.group(1)  # [Oregon, Federal]: names without quotes
            notes.append("read an unquoted list of names")
    elif task is Task.AE:  # quoted names ('"Oregon", "Federal"') or bare ones ("Oregon, Federal")
        data = stripped
    elif stripped[0] in "\"'":
        data = _load(stripped, notes)  # a JSON string: the model will say it is not an object
    else:
        raise _Unreadable(f"expected a JSON object, found text: {short_repr(stripped)}")
    data = _unwrap(data, task, notes)
    context = {"notes": notes, "known": known}
    try:
        model = MODELS[task].model_validate(data, context=context)
    except ValidationError as exc:
        raise _Unreadable(_error_message(exc)) from None
    return _typed(task, model), notes


def parse_answer(task: Task | str, text: str, *, known: Iterable[str] = ()) -> ParsedAnswer:
    """Read a model's response to a `task` prompt (rules in the module docstring). Never raises on any
    `text`: problems come back as ok=False and a one-line `error`. `known` citations, when given, are the
    ones claims are resolved to (`normalize_citation`); otherwise citations are only cleaned. A `task` that
    is not a Task raises ValueError: that is a caller's mistake, not a model's."""
    task = Task.parse(task)
    try:
        return _parse(task, text, tuple(known))
    except Exception as exc:  # the last safety net: one odd response must not stop a run
        reason = _one_line(f"internal error reading the answer: {type(exc).__name__}: {exc}")
        return ParsedAnswer(task, None, False, reason)


def _one_line(message: str, limit: int = 300) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _parse(task: Task, text: Any, known: tuple[str, ...]) -> ParsedAnswer:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return ParsedAnswer(task, None, False, f"the response is {type(text).__name__}, not text")
    span = extract_final_answer(text)
    if span is not None:
        try:
            value, notes = _read_span(task, span, known)
        except _Unreadable as exc:
            return ParsedAnswer(task, None, False, _one_line(str(exc)), True, span=span)
        return ParsedAnswer(task, value, True, None, True, tuple(notes), span)
    first_problem = "and no readable answer in the text"
    for number, (candidate, source) in enumerate(_fallback_spans(text)):
        try:
            value, notes = _read_span(task, candidate, known)
        except _Unreadable as exc:
            first_problem = f"{source}: {exc}" if number == 0 else first_problem
            continue
        if task is Task.AE and not all(code in JURISDICTION_NAMES for code in value):
            # Without the marker, prose such as "I am not sure." would read as a list of one unknown
            # jurisdiction; only names we know count as an answer found elsewhere in the text.
            first_problem = f"{source}: no known jurisdiction" if number == 0 else first_problem
            continue
        notes.insert(0, f"no FINAL ANSWER marker: read {source}")
        return ParsedAnswer(task, value, True, None, False, tuple(notes), candidate)
    return ParsedAnswer(task, None, False, _one_line(f"no FINAL ANSWER marker; {first_problem}"), False)
