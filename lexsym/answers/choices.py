"""Reading a model's answer to a multiple-choice question: the option label, how it was found, or why not.

The answer is read from the **last answer marker in the whole text** (not the last line: a line may hold
two, "I first thought ANSWER: B but the final ANSWER: D" reads D). The markers, all of one rank:

- a label after a keyword and a colon: "ANSWER: X", "Answer: X", "Correct Answer: X", "**Answer: X**",
  "Final answer: X", "Antwort:", "Lösung:", "Réponse :", "Risposta:", "Respuesta:", and the Korean
  "정답:", "최종정답:", "최종 정답:", "최종 답:", "답:", "답변:", "응답:" (KCL's evaluator reads these);
- the Korean phrase "정답은 X입니다" / "정답은 X라고", the line KCL's prompt asks for (method "phrase");
- a label in delimiters: LEXam's "###X###" (its prompt asks for "Correct Answer: ###X###" and its script
  reads the last ###X###), "『X』", LaTeX "\\boxed{X}", and JSON "answer": "X" (or 'answer': 'x').

A marker's answer runs to the next marker or the end of its line, whichever comes first; a marker with no
valid label after it gives way to the one before it. Failing every marker, the last phrase such as "the
answer is (B)", "die richtige Antwort ist B", "la bonne réponse est B", "la risposta corretta è B" counts
(phrases are looser than markers: "if the answer is A, then ..." is reasoning, so a marker anywhere beats
them); failing that, a lone label on the last line. A marker followed by an option's text instead of its
label counts too.

Letter labels are read in either case ("c" is C), but a lower-case letter after a keyword only when it is
bracketed, or nothing but punctuation or a Korean ending ("c입니다") follows it: "Answer: a" reads A,
"answer: a combination of factors" is prose. In delimiters ("###c###", "『c』", "answer": "c") any case
counts. A label that is not one of the question's labels is never read. Anything else is an extraction
failure, counted apart from wrong answers: a model that answers wrongly and one that does not follow the
format need different fixes.
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


_KEYWORDS = (
    r"final\s+answer|answer|endgültige\s+antwort|antwort|lösung|loesung|réponse\s+finale|réponse|reponse"
    r"|risposta\s+finale|risposta|respuesta|최종\s*정답|정답|최종\s*답변|최종\s*답|답변|응답|답"
)
# The keyword and its colon only: what follows is cut at the next marker (see `_Candidate.rest`).
_KEYWORD_RE = re.compile(
    rf"(?<![\w])(?:\*\*|__)?(?:{_KEYWORDS})(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?[ \t]*", re.IGNORECASE
)
_KOREAN_PHRASE_RE = re.compile(r"(?:최종\s*)?정답은\s*")
_BOXED_RE = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*(?P<rest>[^{}]*)\}")
# Delimited labels: the delimiters say where the label ends, so its case does not matter.
_DELIMITED_RES = (
    re.compile(r"###[ \t]*(?P<label>[A-Za-z]{1,2}|\d{1,2})[ \t]*###"),  # LEXam's ###C###
    re.compile(r"『\s*(?P<label>[A-Za-z]{1,2}|\d{1,2})\s*』"),  # KCL's 『C』
    re.compile(
        r"(?P<q>[\"'])(?:final[ _]?answer|answer|정답)(?P=q)\s*:\s*(?P<v>[\"'])"
        r"\s*\(?(?P<label>[A-Za-z]{1,2}|\d{1,2})\)?\s*(?P=v)",
        re.IGNORECASE,
    ),  # JSON "answer": "C"
)
_PHRASES = (
    # English: "the answer is (B)", "the correct option is B", "I choose B" ...
    r"(?:answer|option|choice)\s+(?:is|would\s+be|must\s+be|should\s+be)\s*:?",
    r"\bI\s+(?:choose|pick|select)(?:\s+option)?",
    # German: "die richtige Antwort ist B", "Antwort lautet B", "richtig ist B"
    r"(?:antwort|option|lösung|loesung)\s+(?:ist|lautet|wäre)\s*:?",
    r"richtig\s+ist(?:\s+option)?",
    # French: "la bonne réponse est B", "la réponse correcte est B"
    r"(?:réponse|reponse|option)(?:\s+correcte|\s+juste)?\s+est\s*:?",
    # Italian: "la risposta corretta è A"
    r"(?:risposta|opzione)(?:\s+corretta|\s+giusta|\s+esatta)?\s+(?:è|e'|e`)\s*:?",
    # Korean: "답은 B" ("정답은 B입니다" is a marker)
    r"(?<!정)답은",
)
_PHRASE_RE = re.compile(rf"(?:{'|'.join(_PHRASES)})\s*(?:\*\*|__)?[ \t]*", re.IGNORECASE)
_OPEN = "([{\"'“‘«『「*_ \t"
_CLOSE = ")]}\"'”’»』」*_.,;:!?。 \t"
_THINK_END = "</think>"
_JOINED = re.compile(r"\s*(?:,|/|&|\b(?:or|and|oder|und|ou|et|o|e|или)\b)\s*(\S+)", re.IGNORECASE)
# After a lower-case letter label, a Korean ending ("c입니다", "c라고", "(c)번") says it is the label.
_KOREAN_ENDING = re.compile(r"[ \t\"'”’』」)\]]*[\uac00-\ud7a3]")


def _label_at(rest: str, labels: Sequence[str]) -> tuple[str | None, bool]:
    """The label at the start of `rest` (after brackets, quotes, "option"), and whether `rest` names
    several labels joined by and/or (a hedge, not an answer)."""
    text = rest.lstrip(_OPEN)
    text = re.sub(r"^(?:option|choice|antwort|opzione|choix|선택지)\s+", "", text, flags=re.IGNORECASE)
    text = text.lstrip(_OPEN)
    bracketed = rest.lstrip(" \t*_")[:1] in ("(", "[", "{", "『", "「")
    for label in sorted(labels, key=len, reverse=True):
        if text[: len(label)].upper() != label.upper():
            continue
        after = text[len(label) :]
        if re.match(r"[A-Za-z0-9_]", after):
            continue  # "Because", "12" for label "1": not this label ("C입니다" is: Korean follows)
        # A lower-case "a"/"b" is only a label when nothing else follows on the line, a Korean ending
        # follows, or it is bracketed: "answer: a combination of ..." is prose.
        prose = after.strip(_CLOSE) and not _KOREAN_ENDING.match(after)
        if text[: len(label)] != label and not bracketed and prose:
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


@dataclass(frozen=True)
class _Candidate:
    """One marker found in the text: where it starts, the text after it that may hold the answer, and
    whether that text is a delimited label (compared whole, in any case) or the start of a line."""

    start: int
    rest: str
    delimited: bool = False
    method: str = "marker"


def _cut(text: str, end: int, starts: list[int]) -> str:
    """The text after a marker ending at `end`: up to the next marker or the end of its line."""
    stop = min((s for s in starts if s >= end), default=len(text))
    line_end = text.find("\n", end)
    return text[end : stop if line_end < 0 else min(stop, line_end)]


def _markers(text: str) -> list[_Candidate]:
    """Every marker of the text (see the module docstring), last first."""
    keywords = [(m.start(), m.end(), "marker") for m in _KEYWORD_RE.finditer(text)]
    keywords += [(m.start(), m.end(), "phrase") for m in _KOREAN_PHRASE_RE.finditer(text)]
    found = [_Candidate(m.start(), m.group("rest")) for m in _BOXED_RE.finditer(text)]
    found += [
        _Candidate(m.start(), m.group("label"), delimited=True)
        for pattern in _DELIMITED_RES
        for m in pattern.finditer(text)
    ]
    starts = sorted([start for start, _, _ in keywords] + [c.start for c in found])
    found += [_Candidate(start, _cut(text, end, starts), method=method) for start, end, method in keywords]
    return sorted(found, key=lambda c: c.start, reverse=True)


def _phrases(text: str) -> list[str]:
    """The text after each answer phrase, last first, each cut at the next phrase or the end of its line."""
    matches = list(_PHRASE_RE.finditer(text))
    starts = [m.start() for m in matches]
    return [_cut(text, m.end(), starts) for m in reversed(matches)]


def _delimited_label(value: str, labels: Sequence[str]) -> str | None:
    wanted = value.strip().upper()
    return next((label for label in labels if label.upper() == wanted), None)


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
    markers = _markers(text)
    for marker in markers:
        if marker.delimited:
            label = _delimited_label(marker.rest, labels)
            if label is not None:
                return Extraction(label, marker.method)
            continue
        label, hedge = _label_at(marker.rest, labels)
        hedged = hedged or hedge
        by_text = None if hedge else _option_at(marker.rest, labels, options)
        # "ANSWER: i" names the option reading "i" (a statement number), not the label I of a 9+ choice
        # question; the label wins only when written as a label (same case).
        if by_text is not None and (label is None or label not in marker.rest):
            return Extraction(by_text, "option-text")
        if label is not None:
            return Extraction(label, marker.method)
    for rest in _phrases(text):
        label, hedge = _label_at(rest, labels)
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
