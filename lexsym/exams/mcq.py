"""Multiple-choice questions: prompts, answer extraction, accuracy with standard errors, shuffling, and
the position-bias report.

Prompts. Options are labelled A, B, C, ... (AA, AB, ... past Z, for LEXam's 32 choices) or 1, 2, 3, ...,
in the question's language (English, German, French, Italian, Korean; others fall back to English). Every
template asks for one final line "ANSWER: X": one marker in every language makes extraction uniform.

Extraction. The answer is the label after the last "ANSWER:" marker (or a localised one: "Antwort:",
"Réponse:", "Risposta:", "정답:", "Final answer:", a LaTeX \\boxed{X}); failing that, the last phrase such
as "the answer is (B)", "die richtige Antwort ist B", "la bonne réponse est B", "la risposta corretta è B",
"정답은 B입니다"; failing that, a lone label on the last line. A marker followed by an option's text
instead of its label counts too. Anything else is an extraction failure, counted apart from wrong answers:
a model that answers wrongly and one that does not follow the format need different fixes. (Accuracy still
counts a failure as wrong, so a model cannot gain by not answering.)

Statistics. Accuracy is the mean of 0/1 correctness. Its bootstrap standard error is the standard deviation
of bootstrap means (`lexsym.metrics.bootstrap_se`): a standard error, in accuracy units. LEXam's published
evaluation script prints the *variance* of the bootstrap means under the label "standard error"; for an
accuracy near 50% on 1,000 items that is 0.00025 where the SE is 0.016, so the two must not be mixed up.
Questions from the same course (or exam) are not independent draws, so a clustered standard error is
given too: the cluster-robust (CR1) SE of a mean,

    SE_cluster = sqrt( G/(G-1) * sum_g ( sum_{i in g} (x_i - mean) )^2 ) / n,

with G clusters and n questions; with every question its own cluster it is the textbook s/sqrt(n).

Shuffling. Options are permuted by a seed and the item's id, so the permutation of an item does not
depend on what else is in the file; the permutation is recorded (display position p shows original
option permutation[p]) and predictions are mapped back through it. The position-bias report gives
accuracy by gold position, prediction rates by predicted position, and a chi-square test of whether
predicted positions are uniform.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from lexsym import metrics
from lexsym._version import __version__
from lexsym.errors import InputError
from lexsym.exams.prompts import (
    PrecedentText,
    Prompt,
    precedents_block,
    prompt_language,
    question_block,
    templates_digest,
)

#: Bumped whenever the wording of an MCQ template changes: run logs key on it.
MCQ_TEMPLATE_VERSION = "exam-mcq-1"
LABEL_STYLES = ("letters", "numbers")
#: The marker every MCQ template asks the answer to follow.
MARKER = "ANSWER"


# --- labels and prompts ------------------------------------------------------------------------------------


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


_MCQ_SYSTEM = {
    "en": (
        "You are an expert in law answering a multiple-choice exam question. Reason step by step, rule out "
        "the wrong options, and choose exactly one option.{jurisdiction} End your response with a final line "
        "of the form 'ANSWER: X', where X is the label of the option you choose ({labels})."
    ),
    "de": (
        "Sie sind Rechtsexpertin oder Rechtsexperte und beantworten eine Multiple-Choice-Prüfungsfrage. "
        "Denken Sie Schritt für Schritt, scheiden Sie die falschen Optionen aus und wählen Sie genau eine "
        "Option.{jurisdiction} Beenden Sie Ihre Antwort mit einer letzten Zeile der Form 'ANSWER: X', wobei "
        "X die Bezeichnung der gewählten Option ist ({labels})."
    ),
    "fr": (
        "Vous êtes juriste et répondez à une question d'examen à choix multiple. Raisonnez étape par étape, "
        "écartez les options fausses et choisissez une seule option.{jurisdiction} Terminez votre réponse "
        "par une dernière ligne de la forme 'ANSWER: X', où X est l'étiquette de l'option choisie ({labels})."
    ),
    "it": (
        "Lei è un esperto di diritto e risponde a una domanda d'esame a scelta multipla. Ragioni passo dopo "
        "passo, escluda le opzioni errate e scelga una sola opzione.{jurisdiction} Termini la risposta con "
        "un'ultima riga nella forma 'ANSWER: X', dove X è l'etichetta dell'opzione scelta ({labels})."
    ),
    "ko": (
        "당신은 법률 전문가로서 객관식 시험 문제에 답합니다. "
        "단계적으로 추론하고 틀린 선택지를 배제한 뒤 하나의 선택지만 고르십시오.{jurisdiction} "
        "답변의 마지막 줄은 'ANSWER: X' 형식으로 쓰십시오. "
        "X는 선택한 선택지의 기호입니다 ({labels})."
    ),
}
_OPTIONS_HEADER = {"en": "Options:", "de": "Optionen:", "fr": "Options :", "it": "Opzioni:", "ko": "선택지:"}
_REMINDER = {
    "en": "Give your final answer as 'ANSWER: X'.",
    "de": "Geben Sie Ihre endgültige Antwort als 'ANSWER: X' an.",
    "fr": "Donnez votre réponse finale sous la forme 'ANSWER: X'.",
    "it": "Dia la risposta finale nella forma 'ANSWER: X'.",
    "ko": "최종 답은 'ANSWER: X' 형식으로 쓰십시오.",
}
MCQ_TABLES = (_MCQ_SYSTEM, _OPTIONS_HEADER, _REMINDER)


def _label_range(labels: Sequence[str]) -> str:
    return ", ".join(labels) if len(labels) <= 6 else f"{labels[0]}–{labels[-1]}"


def render_mcq_prompt(
    question: str,
    options: Sequence[str],
    labels: Sequence[str],
    *,
    language: str | None,
    jurisdiction: str | None = None,
    precedents: Sequence[PrecedentText] | None = None,
) -> tuple[Prompt, str]:
    """The prompt of a multiple-choice question with its options in display order, and the template
    language used. Precedents, when given, come after the options and before the reminder, so the
    question and its options stay together at the top."""
    from lexsym.exams.prompts import jurisdiction_clause

    if len(options) != len(labels):
        raise ValueError(f"{len(options)} options but {len(labels)} labels")
    lang = prompt_language(language)
    system = _MCQ_SYSTEM[lang].format(
        jurisdiction=jurisdiction_clause(jurisdiction, lang), labels=_label_range(labels)
    )
    listing = "\n".join(f"{label}. {text.strip()}" for label, text in zip(labels, options, strict=True))
    sections = [question_block(question, lang), f"{_OPTIONS_HEADER[lang]}\n{listing}"]
    if precedents:
        sections.append(precedents_block(precedents, lang))
    sections.append(_REMINDER[lang])
    return Prompt(system=system, user="\n\n".join(sections)), lang


def mcq_templates_digest() -> str:
    return templates_digest(MCQ_TEMPLATE_VERSION, *MCQ_TABLES)


# --- shuffling ---------------------------------------------------------------------------------------------


def shuffle_permutation(n: int, seed: int, key: str) -> list[int]:
    """A seeded permutation of n options for the item `key`: display position p shows original option
    permutation[p]. Seeded through sha256 of (seed, key), so an item's order does not depend on the
    other items in the file or on their order."""
    digest = hashlib.sha256(f"{seed}\x1f{key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:16], "big"))
    return [int(i) for i in rng.permutation(n)]


def apply_permutation(options: Sequence[Any], permutation: Sequence[int]) -> list[Any]:
    """Options in display order."""
    if sorted(permutation) != list(range(len(options))):
        raise ValueError(f"{list(permutation)} is not a permutation of {len(options)} options")
    return [options[i] for i in permutation]


def to_original(display_index: int, permutation: Sequence[int]) -> int:
    """The original index of the option shown at `display_index`."""
    return permutation[display_index]


def to_display(original_index: int, permutation: Sequence[int]) -> int:
    """Where the original option `original_index` is shown."""
    return list(permutation).index(original_index)


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


# --- statistics ---------------------------------------------------------------------------------------------


def accuracy(correct: Iterable[bool | float]) -> float | None:
    """The share of correct answers (extraction failures count as wrong); None for no questions."""
    values = [float(c) for c in correct]
    return sum(values) / len(values) if values else None


def bootstrap_se(
    values: Sequence[float] | np.ndarray, *, resamples: int = metrics.RESAMPLES, seed: int = metrics.SEED
) -> float | None:
    """Bootstrap standard error of a mean: the standard deviation (ddof=1) of the means of `resamples`
    seeded resamples, as `lexsym.metrics.bootstrap_se` computes it for every other metric. Not the variance
    of those means, which LEXam's evaluation script prints as "standard error"."""
    return metrics.bootstrap_se(values, resamples=resamples, seed=seed)


def clustered_se(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable]) -> float | None:
    """Cluster-robust (CR1) standard error of the mean of `values`, clustered by `clusters`:

        sqrt( G/(G-1) * sum_g ( sum_{i in g} (x_i - mean) )^2 ) / n

    Why: LEXam's questions come from a few hundred exams, and questions of one course or exam share topic
    and difficulty, so they are not independent draws and the i.i.d. SE is too small. This is the sandwich
    estimator of an intercept-only regression with the small-sample factor G/(G-1) (statsmodels' default
    for cluster SEs, whose extra (n-1)/(n-k) factor is 1 here). None with fewer than two clusters, where it
    is not defined.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) != len(clusters):
        raise ValueError(f"{len(x)} values but {len(clusters)} cluster labels")
    n = len(x)
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(c, len(index)) for c in clusters], dtype=int)
    groups = len(index)
    if n == 0 or groups < 2:
        return None
    sums = np.bincount(codes, weights=x - x.mean(), minlength=groups)
    return float(math.sqrt(groups / (groups - 1) * float(np.sum(sums**2))) / n)


# --- evaluation ---------------------------------------------------------------------------------------------


def mcq_task_problem(record: Mapping[str, Any]) -> str | None:
    """Why an MCQ task record cannot be scored, or None: its gold must be one of its option labels."""
    identifier = record.get("id")
    reference = record.get("reference")
    if not isinstance(reference, Mapping):
        return f"task {identifier!r}: an MCQ task needs its reference (labels and options)"
    labels = reference.get("labels")
    if not isinstance(labels, list) or len(labels) < 2 or not all(isinstance(x, str) for x in labels):
        return f"task {identifier!r}: reference.labels must list the option labels"
    if len(set(labels)) != len(labels):
        return f"task {identifier!r}: reference.labels repeat a label"
    options = reference.get("options")
    if options is not None and (not isinstance(options, list) or len(options) != len(labels)):
        return f"task {identifier!r}: reference.options must give one text per label"
    if record.get("gold") not in labels:
        return f"task {identifier!r}: gold {record.get('gold')!r} is not one of the labels {labels}"
    return None


class McqSample(BaseModel):
    """One question's outcome."""

    id: str
    variant: str
    gold: str
    predicted: str | None
    correct: bool
    extracted: bool
    method: str
    error: str | None = None
    n_choices: int
    gold_position: int
    predicted_position: int | None = None
    predicted_original_index: int | None = Field(
        None, description="The predicted option's index in the source's order (through the permutation)."
    )
    cluster: str
    language: str | None = None
    course: str | None = None


class AccuracySummary(BaseModel):
    """Accuracy of a group of questions with its standard errors."""

    n: int
    correct: int
    extraction_failures: int
    accuracy: float | None
    se_bootstrap: float | None = Field(description="SD of bootstrap means (not their variance).")
    se_clustered: float | None = Field(description="Cluster-robust SE; None with fewer than two clusters.")
    clusters: int
    accuracy_extracted: float | None = Field(description="Accuracy among the answers that were extracted.")


class PositionCell(BaseModel):
    """One display position of a k-choice group."""

    position: int
    label: str
    gold_count: int
    gold_accuracy: float | None = Field(description="Accuracy on questions whose gold is here.")
    predicted_count: int
    predicted_rate: float | None = Field(description="Share of extracted answers that chose this position.")
    predicted_precision: float | None = Field(description="Share of answers choosing it that were right.")


class PositionBias(BaseModel):
    """Position bias among k-choice questions: by gold and by predicted position, and a chi-square test
    of uniformity of the predicted positions (extraction failures left out)."""

    k: int
    n: int
    extracted: int
    positions: list[PositionCell]
    chi2: float | None
    dof: int
    p_value: float | None
    min_expected: float | None = Field(description="n/k; below 5 the chi-square approximation is rough.")
    gold_chi2: float | None = Field(None, description="The same test on gold positions (0 when balanced).")
    gold_p_value: float | None = None


class McqEvaluation(BaseModel):
    """Everything `lexsym exam score` found."""

    lexsym_version: str = __version__
    tasks_path: str
    predictions_path: str
    seed: int
    resamples: int
    cluster_by: str
    overall: AccuracySummary
    by_variant: dict[str, AccuracySummary]
    by_n_choices: dict[str, AccuracySummary]
    by_language: dict[str, AccuracySummary]
    by_course: dict[str, AccuracySummary]
    extraction_methods: dict[str, int]
    position_bias: list[PositionBias]
    missing: list[str] = Field(description="MCQ task ids without a usable prediction (extraction failures).")
    unknown: list[str]
    skipped: int = Field(description="Task records that are not MCQ (left to their own scorers).")
    errors: list[str]
    samples: list[McqSample]


def cluster_key(record: Mapping[str, Any], cluster_by: str) -> str:
    """The cluster of a task: a metadata field ("course"), or "exam" = course and year (LEXam has no exam
    id; a course's exam in one year is the closest); a task without it is its own cluster."""
    meta = record.get("metadata") if isinstance(record.get("metadata"), Mapping) else {}
    if cluster_by == "exam":
        course, year = meta.get("course"), meta.get("year")
        if course is None:
            return f"item:{record.get('id')}"
        return f"{course} ({year})" if year is not None else str(course)
    value = meta.get(cluster_by)
    return str(value) if value not in (None, "") else f"item:{record.get('id')}"


def score_sample(record: Mapping[str, Any], output: str | None, cluster_by: str = "course") -> McqSample:
    """Score one model output against one (valid) MCQ task record."""
    reference = record["reference"]
    labels = list(reference["labels"])
    meta = record.get("metadata") if isinstance(record.get("metadata"), Mapping) else {}
    extraction = extract_choice(output, labels, options=reference.get("options"))
    gold = str(record["gold"])
    permutation = meta.get("permutation")
    position = labels.index(extraction.label) if extraction.label is not None else None
    original = None
    if position is not None and isinstance(permutation, list) and len(permutation) == len(labels):
        original = int(permutation[position])
    return McqSample(
        id=str(record["id"]),
        variant=str(record.get("variant") or "MCQ"),
        gold=gold,
        predicted=extraction.label,
        correct=extraction.label == gold,
        extracted=extraction.ok,
        method=extraction.method,
        error=extraction.error if output is not None else "no prediction",
        n_choices=len(labels),
        gold_position=labels.index(gold),
        predicted_position=position,
        predicted_original_index=original,
        cluster=cluster_key(record, cluster_by),
        language=meta.get("language"),
        course=meta.get("course"),
    )


def summarise(samples: Sequence[McqSample], *, seed: int, resamples: int) -> AccuracySummary:
    correct = [float(s.correct) for s in samples]
    extracted = [float(s.correct) for s in samples if s.extracted]
    return AccuracySummary(
        n=len(samples),
        correct=int(sum(correct)),
        extraction_failures=sum(not s.extracted for s in samples),
        accuracy=accuracy(correct),
        se_bootstrap=bootstrap_se(correct, resamples=resamples, seed=seed),
        se_clustered=clustered_se(correct, [s.cluster for s in samples]),
        clusters=len({s.cluster for s in samples}),
        accuracy_extracted=accuracy(extracted),
    )


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X ~ chi-square with `dof` degrees of freedom, in closed form (no scipy needed):
    even dof 2m: exp(-x/2) sum_{j<m} (x/2)^j / j!; odd dof 2m+1: erfc(sqrt(x/2)) plus
    exp(-x/2) sum_{j=1..m} (x/2)^(j-1/2) / Gamma(j+1/2)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be positive, not {dof}")
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, dof // 2):
            term *= half / j
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / math.gamma(1.5)  # j = 1
    for j in range(1, (dof - 1) // 2 + 1):
        if j > 1:
            term *= half / (j - 0.5)
        total += math.exp(-half) * term
    return min(1.0, total)


def chisquare_uniform(counts: Sequence[int]) -> tuple[float | None, float | None]:
    """Pearson's chi-square statistic of `counts` against a uniform distribution and its p-value
    (scipy.stats.chisquare when scipy is installed, the closed form `chi2_sf` otherwise); (None, None)
    for no counts."""
    n, k = sum(counts), len(counts)
    if n == 0 or k < 2:
        return None, None
    try:
        from scipy.stats import chisquare
    except ImportError:
        expected = n / k
        statistic = sum((c - expected) ** 2 / expected for c in counts)
        return float(statistic), chi2_sf(statistic, k - 1)
    result = chisquare(counts)
    return float(result.statistic), float(result.pvalue)


def position_bias(
    samples: Sequence[McqSample], labels_of: Callable[[int], list[str]] | None = None
) -> list[PositionBias]:
    """Position bias per number of choices k (positions are only comparable among k-choice questions)."""
    by_k: dict[int, list[McqSample]] = defaultdict(list)
    for sample in samples:
        by_k[sample.n_choices].append(sample)
    reports = []
    for k in sorted(by_k):
        group = by_k[k]
        labels = labels_of(k) if labels_of else option_labels(k)
        extracted = [s for s in group if s.predicted_position is not None]
        gold_counts = Counter(s.gold_position for s in group)
        gold_right = Counter(s.gold_position for s in group if s.correct)
        predicted = Counter(s.predicted_position for s in extracted)
        predicted_right = Counter(s.predicted_position for s in extracted if s.correct)
        cells = [
            PositionCell(
                position=p,
                label=labels[p] if p < len(labels) else str(p),
                gold_count=gold_counts[p],
                gold_accuracy=gold_right[p] / gold_counts[p] if gold_counts[p] else None,
                predicted_count=predicted[p],
                predicted_rate=predicted[p] / len(extracted) if extracted else None,
                predicted_precision=predicted_right[p] / predicted[p] if predicted[p] else None,
            )
            for p in range(k)
        ]
        chi2, p_value = chisquare_uniform([predicted[p] for p in range(k)])
        gold_chi2, gold_p = chisquare_uniform([gold_counts[p] for p in range(k)])
        reports.append(
            PositionBias(
                k=k,
                n=len(group),
                extracted=len(extracted),
                positions=cells,
                chi2=chi2,
                dof=k - 1,
                p_value=p_value,
                min_expected=len(extracted) / k if extracted else None,
                gold_chi2=gold_chi2,
                gold_p_value=gold_p,
            )
        )
    return reports


@dataclass
class _Tasks:
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def _read_tasks(path: Path) -> _Tasks:
    from lexsym.scoring import LineError, _read_jsonl

    found = _Tasks()
    line_errors: list[LineError] = []
    seen: set[str] = set()
    for number, record in _read_jsonl(path, line_errors):
        if not isinstance(record, dict) or record.get("task") != "MCQ":
            found.skipped += 1
            continue
        problem = mcq_task_problem(record)
        if problem is None and record["id"] in seen:
            problem = f"duplicate task id {record['id']!r}"
        if problem:
            found.errors.append(f"{path}:{number}: {problem}")
            continue
        seen.add(record["id"])
        found.records.append(record)
    found.errors[:0] = [str(e) for e in line_errors]
    return found


def evaluate(
    tasks_path: str | Path,
    predictions_path: str | Path,
    *,
    cluster_by: str = "course",
    seed: int = metrics.SEED,
    resamples: int = metrics.RESAMPLES,
) -> McqEvaluation:
    """Score every MCQ task of `tasks_path` against `predictions_path` (the JSONL `lexsym score` reads):
    accuracy with bootstrap and clustered SEs overall and by variant, number of choices, language and
    course; extraction failures apart; and the position-bias report."""
    from lexsym.scoring import LineError, _load_predictions

    tasks_path, predictions_path = Path(tasks_path), Path(predictions_path)
    tasks = _read_tasks(tasks_path)
    if not tasks.records:
        first = tasks.errors[0] if tasks.errors else f"{tasks_path}: no MCQ task records"
        raise InputError(first)
    line_errors: list[LineError] = []
    predictions = _load_predictions(predictions_path, line_errors)
    known = {r["id"] for r in tasks.records}
    samples = []
    missing = []
    for record in tasks.records:
        prediction = predictions.get(record["id"])
        if prediction is None:
            missing.append(record["id"])
        samples.append(score_sample(record, prediction.text if prediction else None, cluster_by))

    def grouped(key: Callable[[McqSample], Any]) -> dict[str, AccuracySummary]:
        groups: dict[str, list[McqSample]] = defaultdict(list)
        for sample in samples:
            value = key(sample)
            if value is not None:
                groups[str(value)].append(sample)
        return {
            name: summarise(members, seed=seed, resamples=resamples)
            for name, members in sorted(groups.items(), key=lambda item: _natural(item[0]))
        }

    labels_by_k = {len(r["reference"]["labels"]): list(r["reference"]["labels"]) for r in tasks.records}
    return McqEvaluation(
        tasks_path=str(tasks_path),
        predictions_path=str(predictions_path),
        seed=seed,
        resamples=resamples,
        cluster_by=cluster_by,
        overall=summarise(samples, seed=seed, resamples=resamples),
        by_variant=grouped(lambda s: s.variant),
        by_n_choices=grouped(lambda s: s.n_choices),
        by_language=grouped(lambda s: s.language),
        by_course=grouped(lambda s: s.course),
        extraction_methods=dict(sorted(Counter(s.method for s in samples).items())),
        position_bias=position_bias(samples, lambda k: labels_by_k.get(k) or option_labels(k)),
        missing=missing,
        unknown=[i for i in predictions if i not in known],
        skipped=tasks.skipped,
        errors=[*tasks.errors, *(str(e) for e in line_errors)],
        samples=samples,
    )


def _natural(text: str) -> list[Any]:
    """Sort key putting "k4" before "k16"."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def render_evaluation(report: McqEvaluation, console: Any) -> None:
    """Print an McqEvaluation for people: accuracy tables, then position bias per k."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=Text(f"MCQ accuracy of {report.predictions_path}"), title_justify="left", box=box.SIMPLE_HEAD
    )
    for header in (
        "Group",
        "n",
        "acc%",
        "± SE boot",
        f"± SE by {report.cluster_by}",
        "clusters",
        "no answer",
    ):
        table.add_column(header, justify="left" if header == "Group" else "right", no_wrap=True)
    rows = [("all", report.overall)]
    rows += [(f"k={k}", s) for k, s in report.by_n_choices.items()]
    rows += [(f"lang {k}", s) for k, s in report.by_language.items()]
    rows += [(f"variant {k}", s) for k, s in report.by_variant.items()]
    for name, s in rows:
        table.add_row(
            Text(name),
            str(s.n),
            _pct(s.accuracy),
            _pct(s.se_bootstrap),
            _pct(s.se_clustered),
            str(s.clusters),
            str(s.extraction_failures),
        )
    console.print(table)
    for bias in report.position_bias:
        if bias.p_value is None:
            continue
        rates = ", ".join(f"{c.label} {_pct(c.predicted_rate)}%" for c in bias.positions)
        note = " (expected counts under 5: rough)" if (bias.min_expected or 0) < 5 else ""
        console.print(
            f"k={bias.k}: predicted positions {rates}; chi2={bias.chi2:.2f} (dof {bias.dof}), "
            f"p={bias.p_value:.3g}{note}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    methods = ", ".join(f"{name} {count}" for name, count in report.extraction_methods.items())
    console.print(
        f"{report.overall.n} MCQ tasks ({report.skipped} other records skipped); "
        f"answers found by: {methods}; "
        f"{len(report.missing)} without a prediction, {len(report.unknown)} predictions for unknown ids, "
        f"{len(report.errors)} unusable lines",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for error in report.errors[:5]:
        console.print(f"  {error}", markup=False, highlight=False, soft_wrap=True)


def evaluation_json(report: McqEvaluation) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)
