"""Ids of the exemption systems a debtor can elect: `US`, a state's USPS code, or a composite `AZ+IL`.

A composite is the paragraph-(3) system of a joint case whose spouses' 730-day rules point to different
laws (11 U.S.C. § 522(b)(3)(A) applied to each debtor, § 522(m)): the debtor claims under the first part,
the spouse under the second. In the rules it is the term mixed(az,il).
"""

from __future__ import annotations

import clingo

from lexsym.law.vocabulary import JURISDICTION_NAMES

SEPARATOR = "+"


def system_id(symbol: clingo.Symbol | str) -> str:
    """`us` -> "US", `mixed(az,il)` -> "AZ+IL" (a string is read as the symbol's text)."""
    if isinstance(symbol, str):
        text = symbol
        if text.startswith("mixed(") and text.endswith(")"):
            return SEPARATOR.join(part.strip().upper() for part in text[len("mixed(") : -1].split(","))
        return text.upper()
    if symbol.type is clingo.SymbolType.Function and symbol.name == "mixed" and len(symbol.arguments) == 2:
        return SEPARATOR.join(str(part).upper() for part in symbol.arguments)
    return str(symbol).upper()


def system_constant(code: str) -> str:
    """The term naming a system id in the rules: "AZ+IL" -> mixed(az,il), "US" -> us."""
    parts = system_parts(code)
    if len(parts) == 2:
        return f"mixed({parts[0].lower()},{parts[1].lower()})"
    return code.lower()


def system_parts(code: str) -> list[str]:
    """The jurisdictions a system is made of: "AZ+IL" -> ["AZ", "IL"], "US" -> ["US"]."""
    return [part.strip().upper() for part in code.split(SEPARATOR)]


def is_composite(code: str) -> bool:
    return SEPARATOR in code


def system_name(code: str) -> str:
    """A display name: "Arizona (debtor) and Illinois (spouse)" for a composite."""
    parts = system_parts(code)
    if len(parts) == 2:
        first, second = (JURISDICTION_NAMES.get(part, part) for part in parts)
        return f"{first} (debtor) and {second} (spouse)"
    return JURISDICTION_NAMES.get(code, code)
