"""Reading dollar amounts as models write them: currency signs, US, German and spaced digit groups."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

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
