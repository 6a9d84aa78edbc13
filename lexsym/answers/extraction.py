"""Finding the answer in a response: the last FINAL ANSWER marker, fences, and the first complete value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import takewhile

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
OPENERS = {"[": "]", "{": "}"}
_CLOSERS = {"]", "}"}


@dataclass(frozen=True)
class ValueScan:
    end: int  # index after the value (or len(text) when it never closes)
    open_brackets: int  # brackets left open at `end`
    in_string: bool  # the text ended inside a string


def scan_value(text: str, start: int) -> ValueScan:
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
        elif char in OPENERS:
            stack.append(OPENERS[char])
        elif char in _CLOSERS:
            expected = stack.pop()
            if char != expected or not stack:  # closed, or a mismatched bracket (left for json to report)
                return ValueScan(index + 1, 0, False)
        index += 1
    return ValueScan(len(text), len(stack), quote is not None)


def _first_value(text: str, start: int) -> str:
    return text[start : scan_value(text, start).end]


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
            if stripped[:1] in OPENERS or _FENCE_OPEN.match(stripped):
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


def fallback_spans(text: str, limit: int = 20) -> list[tuple[str, str]]:
    """Candidate answers in a response without a marker, best first, each with how it was found."""
    spans: list[tuple[str, str]] = []
    for match in reversed(list(_FENCE_BLOCK.finditer(text))):
        body = match.group(1).strip()
        if body[:1] in OPENERS:
            spans.append((_first_value(body, 0), "the last fenced block"))
    values = []
    index, failed = 0, 0
    while index < len(text) and len(values) < 200 and failed < 50:  # bounded: each failed scan is O(n)
        char = text[index]
        if char in OPENERS:
            scan = scan_value(text, index)
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
