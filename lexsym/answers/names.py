"""Jurisdiction names and citations as models write them, mapped to ids and to the known citations."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from lexsym.law.citations import citation_key, clean_citation, resolve_citation
from lexsym.law.vocabulary import FEDERAL, JURISDICTION_NAMES, STATE_SYSTEMS

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
DECORATION = "\"'`*_“”‘’ \t\n"


def jurisdiction_code(name: str) -> str:
    """The jurisdiction id ("OR", "US") a name in an answer denotes: a full name ("Oregon"), a USPS code
    ("or", "OR") or "Federal" and its usual variants ("U.S.", "United States", "federal bankruptcy
    exemptions"), in any case, with words such as "exemptions", "state", "the" and parenthesised remarks
    ignored ("Oregon (state) exemptions", "the Federal exemptions"). An unknown name is returned upper-cased
    as given (without quotes or markdown), so a scorer counts it as a wrong jurisdiction."""
    text = " ".join(str(name).split()).strip(DECORATION)
    folded = text.casefold()
    for state in STATE_SYSTEMS:  # "California System 2", "the California 704 exemptions"
        named = re.search(rf"\b{JURISDICTION_NAMES[state].casefold()}\b", folded) or re.match(
            rf"{state.casefold()}\b", folded
        )
        if named and (system := _system_named(state, text)) != state:
            return system
    core = text
    while "(" in core and core != (core := re.sub(r"\([^()]*\)", " ", core)):
        pass  # innermost parentheses first: "Federal (11 U.S.C. § 522(d))"
    core = re.sub(r"['’]s\b", "", " ".join(core.split()).casefold().rstrip("."))  # "Oregon's exemptions"
    for _ in range(4):
        shorter = _TRAILING_WORDS.sub("", _LEADING_WORDS.sub("", core)).strip(" -–—,:.")
        if shorter == core or not shorter:
            break
        core = shorter
    for candidate in (text.casefold(), core, core + ".", core.replace("-", "_").replace(" ", "_")):
        if candidate in _JURISDICTION_BY_NAME:
            return _system_named(_JURISDICTION_BY_NAME[candidate], text)
    return text.upper()


_SYSTEM_MARKERS: dict[str, tuple[re.Pattern[str], ...]] = {
    "CA_703": (re.compile(r"703(?!\d)"), re.compile(r"\bsystem\s*(?:2|ii|two)\b")),
    "CA_704": (re.compile(r"704(?!\d)"), re.compile(r"\bsystem\s*(?:1|i|one)\b")),
}
"""How answers tell California's two systems apart: the section (§ 703.140(b) or § 704) or the practitioners'
"System 1" (§ 704) and "System 2" (§ 703.140(b))."""


def _system_named(code: str, text: str) -> str:
    """A state with several systems ("California") named with the one it means ("California (§ 704)"): that
    system's id. Named bare, or with both, it stays the state's code, which no gold answer holds."""
    if code not in STATE_SYSTEMS:
        return code
    folded = text.casefold()
    named = [s for s in STATE_SYSTEMS[code] if any(p.search(folded) for p in _SYSTEM_MARKERS[s])]
    return named[0] if len(named) == 1 else code


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
    text = _DASHES.sub("-", str(text)).strip(DECORATION)
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
    """The known citation `text` denotes, else `text` cleaned (`lexsym.law.citations.clean_citation`).

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


def citation_in_context(text: str, context: dict[str, Any]) -> str:
    known = context.get("known", ())
    return normalize_citation(text, known) if known else clean_citation(_prepared(text))
