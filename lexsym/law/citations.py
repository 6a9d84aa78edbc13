"""Citation strings: cleaning them up, matching them to known ones, and deriving exemption ids.

Exemption ids in the rules are derived from citations (`11 U.S.C. § 522(d)(2)` -> `usc11_522_d_2`), so a
citation found in a case, a table or a model's answer always leads to the same rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lexsym.law.citation_formats import recognise

_SECTION_WORDS = re.compile(r"(?i)(§§?|\bsections?\b\.?|\bsecs?\.(?=\s*\d)|\bsecs?\b(?=\s*\d))\s*")
_USC = re.compile(r"(?i)\b(\d+)\s*U\.?\s*S\.?\s*C\.?(?:\s*A\.?)?(?=[\s§]|$)")
_SPACE_BEFORE_PAREN = re.compile(r"\s+\(")
_SPACES = re.compile(r"\s+")


def citation_order(citation: str) -> tuple:
    """A sort key that puts (d)(2) before (d)(10): the digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", citation))


def clean_citation(text: str) -> str:
    """Normalise spacing and the section sign: `11 usc sec. 522 (d) (3)` -> `11 U.S.C. § 522(d)(3)`."""
    cleaned = _SPACES.sub(" ", text.strip())
    cleaned = _USC.sub(lambda m: f"{m.group(1)} U.S.C.", cleaned)
    cleaned = _SECTION_WORDS.sub("§ ", cleaned)
    cleaned = re.sub(r"\s*§\s*", " § ", cleaned).strip()
    cleaned = _SPACE_BEFORE_PAREN.sub("(", cleaned)
    return _SPACES.sub(" ", cleaned)


def citation_key(text: str) -> str:
    """A comparison key: cleaned, case-folded, without spaces and the section sign."""
    return re.sub(r"[\s§]", "", clean_citation(text)).casefold()


def resolve_citation(text: str, known: Iterable[str]) -> str:
    """The known citation `text` denotes, or its cleaned form if none matches."""
    wanted = citation_key(text)
    for citation in known:
        if citation_key(citation) == wanted:
            return citation
    return clean_citation(text)


def canonical_citation(text: str) -> str:
    return clean_citation(text)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def exemption_id(citation: str) -> str:
    """The ASP constant naming the exemption a canonical citation refers to."""
    cleaned = clean_citation(citation)
    recognised = recognise(cleaned)
    if recognised is not None and recognised.canonical == cleaned:
        return recognised.exemption_id
    slug = _slug(cleaned)
    return slug if slug[:1].isalpha() else f"c_{slug}"
