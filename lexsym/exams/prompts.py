"""Prompt languages and the open-question templates, versioned.

An exam question is asked in its own language: LEXam's English and German exams are distinct exams, not
translations, and KCL is Korean. Templates exist for English, German, French, Italian and Korean; any other
language falls back to English, and the language actually used is recorded in each task's metadata so a
fallback is visible rather than silent.

The wording is ours (LEXam's and KCL's prompts were read, not copied). What they share with those prompts
is the method they ask for: identify the issues, state the rules with their sources, apply them, conclude.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

#: Bumped whenever the wording of an open-question template changes: run logs key on it.
OPEN_TEMPLATE_VERSION = "exam-open-1"

LANGUAGES = ("en", "de", "fr", "it", "ko")
FALLBACK_LANGUAGE = "en"

_LANGUAGE_NAMES = {
    "english": "en",
    "englisch": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "italian": "it",
    "italiano": "it",
    "korean": "ko",
    "한국어": "ko",
}


def prompt_language(language: str | None) -> str:
    """The template language for a dataset's language field ("de", "de-CH", "German", None ...): one of
    LANGUAGES, English when there is no template for it."""
    if not language:
        return FALLBACK_LANGUAGE
    text = language.strip().lower()
    code = _LANGUAGE_NAMES.get(text, text.replace("_", "-").split("-")[0])
    return code if code in LANGUAGES else FALLBACK_LANGUAGE


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: what the runner sends as the system and the user message."""

    system: str
    user: str


@dataclass(frozen=True)
class PrecedentText:
    """One supporting precedent as it goes into a prompt: its name (if any) and its (possibly cut) text."""

    name: str | None
    text: str


_OPEN_SYSTEM = {
    "en": (
        "You are an expert in law answering a law exam question. Answer as in a written exam: identify the "
        "legal issues, state the applicable rules with their sources (statutes, case law), apply them to the "
        "facts, and reach a clear conclusion. Answer in English.{jurisdiction}"
    ),
    "de": (
        "Sie sind Rechtsexpertin oder Rechtsexperte und beantworten eine juristische Prüfungsfrage. "
        "Antworten Sie wie in einer schriftlichen Prüfung: Erkennen Sie die Rechtsfragen, nennen Sie "
        "die anwendbaren Normen mit ihren Quellen (Gesetz, Rechtsprechung), wenden Sie sie auf den "
        "Sachverhalt an und ziehen Sie ein klares Ergebnis. Antworten Sie auf Deutsch.{jurisdiction}"
    ),
    "fr": (
        "Vous êtes juriste et répondez à une question d'examen de droit. Répondez comme dans un examen "
        "écrit : identifiez les questions juridiques, énoncez les règles applicables avec leurs sources "
        "(lois, jurisprudence), appliquez-les aux faits et formulez une conclusion claire. Répondez en "
        "français.{jurisdiction}"
    ),
    "it": (
        "Lei è un esperto di diritto e risponde a una domanda d'esame di diritto. Risponda come in un esame "
        "scritto: individui le questioni giuridiche, indichi le norme applicabili con le loro fonti (leggi, "
        "giurisprudenza), le applichi ai fatti e tragga una conclusione chiara. Risponda in "
        "italiano.{jurisdiction}"
    ),
    "ko": (
        "당신은 법률 전문가로서 법학 시험의 사례형 문제에 답합니다. "
        "필기시험 답안처럼 작성하십시오. 쟁점을 파악하고, "
        "적용되는 법령과 판례의 법리를 근거와 함께 제시하고, "
        "이를 사실관계에 적용한 뒤 명확한 결론을 내리십시오. "
        "한국어로 답하십시오.{jurisdiction}"
    ),
}

_JURISDICTION_CLAUSE = {
    "en": " Unless the question says otherwise, {name} law applies.",
    "de": " Sofern die Frage nichts anderes sagt, ist {name} Recht anwendbar.",
    "fr": " Sauf indication contraire dans la question, le droit {name} s'applique.",
    "it": " Salvo diversa indicazione nella domanda, si applica il diritto {name}.",
    "ko": " 문제에서 달리 정하지 않는 한 {name} 법이 적용됩니다.",
}

#: Jurisdiction names as adjectives per language. LEXam's field holds "Swiss", "International", "Generic"
#: ...; only a national jurisdiction gets the "X law applies" clause.
_JURISDICTION_ADJECTIVES = {
    "swiss": {"en": "Swiss", "de": "schweizerisches", "fr": "suisse", "it": "svizzero", "ko": "스위스"},
    "german": {"en": "German", "de": "deutsches", "fr": "allemand", "it": "tedesco", "ko": "독일"},
    "eu": {"en": "EU", "de": "europäisches", "fr": "de l'UE", "it": "dell'UE", "ko": "EU"},
    "us": {"en": "U.S.", "de": "US-amerikanisches", "fr": "américain", "it": "statunitense", "ko": "미국"},
    "korean": {"en": "Korean", "de": "koreanisches", "fr": "coréen", "it": "coreano", "ko": "대한민국"},
}

_QUESTION_HEADER = {"en": "Question:", "de": "Frage:", "fr": "Question :", "it": "Domanda:", "ko": "문제:"}
_PRECEDENTS_HEADER = {
    "en": "Supporting precedents (use them where they are relevant):",
    "de": "Einschlägige Entscheide (ziehen Sie sie heran, wo sie relevant sind):",
    "fr": "Précédents pertinents (utilisez-les lorsqu'ils sont pertinents) :",
    "it": "Precedenti di riferimento (li utilizzi dove sono pertinenti):",
    "ko": "참고 판례 (관련이 있는 경우 활용하십시오):",
}


def jurisdiction_clause(jurisdiction: str | None, language: str) -> str:
    """' Unless the question says otherwise, Swiss law applies.' for a national jurisdiction, else ''."""
    if not jurisdiction:
        return ""
    names = _JURISDICTION_ADJECTIVES.get(jurisdiction.strip().lower())
    if names is None:
        return ""
    return _JURISDICTION_CLAUSE[language].format(name=names[language])


def precedents_block(precedents: Sequence[PrecedentText], language: str) -> str:
    """The supporting precedents as a prompt section: a header, then each one's name and text."""
    parts = [_PRECEDENTS_HEADER[language]]
    for number, precedent in enumerate(precedents, 1):
        title = f"[{number}] {precedent.name}" if precedent.name else f"[{number}]"
        parts.append(f"{title}\n{precedent.text}".rstrip())
    return "\n\n".join(parts)


def question_block(question: str, language: str) -> str:
    return f"{_QUESTION_HEADER[language]}\n{question.strip()}"


def render_open_prompt(
    question: str,
    *,
    language: str | None,
    jurisdiction: str | None = None,
    precedents: Sequence[PrecedentText] | None = None,
) -> tuple[Prompt, str]:
    """The prompt of an open question or essay, and the template language used."""
    lang = prompt_language(language)
    system = _OPEN_SYSTEM[lang].format(jurisdiction=jurisdiction_clause(jurisdiction, lang))
    sections = [question_block(question, lang)]
    if precedents:
        sections.append(precedents_block(precedents, lang))
    return Prompt(system=system, user="\n\n".join(sections)), lang


def templates_digest(*tables: object) -> str:
    """A short hash of template tables, so a manifest says which wording produced its prompts."""
    text = json.dumps(tables, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


OPEN_TABLES = (
    _OPEN_SYSTEM,
    _JURISDICTION_CLAUSE,
    _JURISDICTION_ADJECTIVES,
    _QUESTION_HEADER,
    _PRECEDENTS_HEADER,
)
