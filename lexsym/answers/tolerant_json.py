"""Reading a value tolerantly: JSON with repairs, then Python literals (never eval)."""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from itertools import pairwise
from typing import Any

from lexsym.answers.extraction import OPENERS, scan_value

# --------------------------------------------------------------------------------------------------------
# Reading a value
# --------------------------------------------------------------------------------------------------------


class Unreadable(ValueError):
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


def as_json_types(value: Any) -> Any:
    """A Python literal as the JSON types (tuples become lists); Unreadable for anything else (sets,
    bytes, complex numbers: a JSON answer never reads as one of them)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [as_json_types(item) for item in value]
    if isinstance(value, dict):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, float)) or isinstance(key, bool):
                raise Unreadable(f"an object key is not text: {key!r}")
            plain[str(key)] = as_json_types(item)
        return plain
    raise Unreadable(f"not a JSON value: {type(value).__name__}")


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
        return as_json_types(ast.literal_eval(span))
    except Exception:  # SyntaxError, ValueError, Unreadable, MemoryError, RecursionError: not a literal
        return _NOT_A_LITERAL


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})


def load_span(span: str, notes: list[str]) -> Any:
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
    start = next((i for i, char in enumerate(span) if char in OPENERS), None)
    if start is not None:
        scan = scan_value(span, start)
        if scan.in_string:
            raise Unreadable("truncated JSON: the answer ends inside a string")
        if scan.open_brackets:
            raise Unreadable(f"truncated JSON: {scan.open_brackets} bracket(s) never closed")
    raise Unreadable(first_error)
