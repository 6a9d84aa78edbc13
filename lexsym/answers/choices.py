"""Reading a model's answer to a multiple-choice question: the option label, how it was found, or why not.

The answer is the label after the last "ANSWER:" marker (or a localised one: "Antwort:", "Réponse:",
"Risposta:", "정답:", "Final answer:", a LaTeX \\boxed{X}); failing that, the last phrase such as "the answer
is (B)", "die richtige Antwort ist B", "la bonne réponse est B", "la risposta corretta è B", "정답은 B입니다";
failing that, a lone label on the last line. A marker followed by an option's text instead of its label
counts too. Anything else is an extraction failure, counted apart from wrong answers: a model that answers
wrongly and one that does not follow the format need different fixes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

LABEL_STYLES = ("letters", "numbers")
#: The marker every MCQ template asks the answer to follow.
MARKER = "ANSWER"
# --- extraction ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Extraction:
    """What was read from a model's output: the label (None on failure), how it was found, and why not."""

    label: str | None
    method: str  # "marker", "phrase", "last-line", "option-text", or "none"
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.label is not None


_MARKERS = (
    r"final\s+answer|answer|endgültige\s+antwort|antwort|lösung|loesung|réponse\s+finale|réponse|reponse"
    r"|risposta\s+finale|risposta|respuesta|정답|최종\s*답|답"
)
_MARKER_RE = re.compile(
    rf"(?<![\w])(?:\*\*|__)?(?:{_MARKERS})(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?[ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
_BOXED_RE = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*(?P<rest>[^{}]*)\}")
_PHRASES = (
    # English: "the answer is (B)", "the correct option is B", "I choose B" ...
    r"(?:answer|option|choice)\s+(?:is|would\s+be|must\s+be|should\s+be)\s*:?",
    r"\bI\s+(?:choose|pick|select)(?:\s+option)?",
    # German: "die richtige Antwort ist B", "Antwort lautet B", "richtig ist B"
    r"(?:antwort|option|lösung|loesung)\s+(?:ist|lautet|wäre)\s*:?",
    r"richtig\s+ist(?:\s+option)?",
    # French: "la bonne réponse est B", "la réponse correcte est B"
    r"(?:réponse|reponse|option)(?:\s+correcte|\s+juste)?\s+est\s*:?",
    # Italian: "la risposta corretta è B"
    r"(?:risposta|opzione)(?:\s+corretta|\s+giusta|\s+esatta)?\s+(?:è|e'|e`)\s*:?",
    # Korean: "정답은 B입니다", "답은 B"
    r"정답은|답은",
)
_PHRASE_RE = re.compile(
    rf"(?:{'|'.join(_PHRASES)})\s*(?:\*\*|__)?[ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
_OPEN = "([{\"'“‘«*_ \t"
_CLOSE = ")]}\"'”’»*_.,;:!?。 \t"
_THINK_END = "</think>"
_JOINED = re.compile(r"\s*(?:,|/|&|\b(?:or|and|oder|und|ou|et|o|e|или)\b)\s*(\S+)", re.IGNORECASE)


def _label_at(rest: str, labels: Sequence[str]) -> tuple[str | None, bool]:
    """The label at the start of `rest` (after brackets, quotes, "option"), and whether `rest` names
    several labels joined by and/or (a hedge, not an answer)."""
    text = rest.lstrip(_OPEN)
    text = re.sub(r"^(?:option|choice|antwort|opzione|choix|선택지)\s+", "", text, flags=re.IGNORECASE)
    text = text.lstrip(_OPEN)
    bracketed = rest.lstrip(" \t*_")[:1] in ("(", "[", "{")
    for label in sorted(labels, key=len, reverse=True):
        if text[: len(label)].upper() != label.upper():
            continue
        after = text[len(label) :]
        if re.match(r"[A-Za-z0-9_]", after):
            continue  # "Because", "12" for label "1": not this label ("C입니다" is: Korean follows)
        # A lower-case "a"/"b" is only a label when nothing else follows on the line (or it is
        # bracketed): "answer: a combination of ..." is prose.
        if text[: len(label)] != label and not bracketed and after.strip(_CLOSE):
            continue
        joined = _JOINED.match(after)
        if joined:
            other = joined.group(1).strip(_CLOSE)
            if other.upper() in {x.upper() for x in labels} and other.upper() != label.upper():
                return None, True
        return label, False
    return None, False


def _normalise_option(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip(_CLOSE).strip().casefold()


def _option_at(rest: str, labels: Sequence[str], options: Sequence[str] | None) -> str | None:
    """The label of the option whose text is all of `rest` ("ANSWER: i and iii")."""
    if not options:
        return None
    wanted = _normalise_option(rest.strip(_OPEN))
    for label, text in zip(labels, options, strict=True):
        if wanted and wanted == _normalise_option(text):
            return label
    return None


def extract_choice(
    text: str | None, labels: Sequence[str], *, options: Sequence[str] | None = None
) -> Extraction:
    """The option label a model chose, read from its raw output (see the module docstring for the rules).

    `labels` are the question's labels in display order; `options` (their texts, same order) let a marker
    followed by an option's text count. Reasoning inside <think>...</think> is skipped; an unclosed
    <think> means the model never got to answer (an extraction failure).
    """
    if text is None or not text.strip():
        return Extraction(None, "none", "empty output")
    if _THINK_END in text:
        text = text.rsplit(_THINK_END, 1)[1]
    elif re.search(r"<think>", text):
        return Extraction(None, "none", "unfinished reasoning (<think> without </think>)")
    hedged = False
    markers = [*_MARKER_RE.finditer(text), *_BOXED_RE.finditer(text)]
    for match in sorted(markers, key=lambda m: m.start(), reverse=True):
        rest = match.group("rest")
        label, hedge = _label_at(rest, labels)
        hedged = hedged or hedge
        by_text = None if hedge else _option_at(rest, labels, options)
        # "ANSWER: i" names the option reading "i" (a statement number), not the label I of a 9+ choice
        # question; the label wins only when written as a label (same case).
        if by_text is not None and (label is None or label not in rest):
            return Extraction(by_text, "option-text")
        if label is not None:
            return Extraction(label, "marker")
    for match in reversed(list(_PHRASE_RE.finditer(text))):
        label, hedge = _label_at(match.group("rest"), labels)
        hedged = hedged or hedge
        if label is not None:
            return Extraction(label, "phrase")
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines:
        last = lines[-1].strip("*_#> \t`")
        match = re.fullmatch(r"[(\[]?\s*(?P<label>[A-Za-z]{1,2}|\d{1,2})\s*[)\].:]?", last)
        if match and match.group("label") in labels:
            return Extraction(match.group("label"), "last-line")
    if hedged:
        return Extraction(None, "none", "several options named after the answer marker")
    if markers:
        return Extraction(None, "none", "answer marker without a valid option label")
    return Extraction(None, "none", "no answer marker")


def option_labels(n: int, style: str = "letters") -> list[str]:
    """Labels of n options: A..Z, then AA, AB, ... (spreadsheet style), or 1..n."""
    if style not in LABEL_STYLES:
        raise ValueError(f"label style must be one of {', '.join(LABEL_STYLES)}, not {style!r}")
    if style == "numbers":
        return [str(i) for i in range(1, n + 1)]
    labels = []
    for i in range(n):
        name, number = "", i + 1
        while number:
            number, rest = divmod(number - 1, 26)
            name = chr(ord("A") + rest) + name
        labels.append(name)
    return labels
