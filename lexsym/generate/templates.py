"""The Jinja environment over data/templates, with the filters and globals the templates use (dates in the
dataset's style, whole-dollar money, opt-out reach under the task's reading), and the phrasing groups.

Every template renders with StrictUndefined: a missing variable is an error, never an empty string."""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from typing import Any

import jinja2

from lexsym._util.datafiles import data_dir
from lexsym.law.vocabulary import JURISDICTION_NAMES

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


DATE_STYLES = ("month_day_year", "day_month_year", "iso", "ordinal")
"""How a narrative writes dates: "March 5, 2023", "5 March 2023", "2023-03-05", "March 5th, 2023". Never a
numeric month/day order such as 03/05/2023, which readers resolve differently."""


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def format_date(day: dt.date, style: str) -> str:
    """`day` in one of DATE_STYLES."""
    month = MONTHS[day.month - 1]
    if style == "month_day_year":
        return f"{month} {day.day}, {day.year}"
    if style == "day_month_year":
        return f"{day.day} {month} {day.year}"
    if style == "iso":
        return day.isoformat()
    if style == "ordinal":
        return f"{month} {_ordinal(day.day)}, {day.year}"
    raise ValueError(f"unknown date style {style!r}")


def format_money(value: int) -> str:
    """Whole dollars with thousands separators: 12500 -> "$12,500"."""
    return f"${value:,}"


def upfirst(text: str) -> str:
    """Capitalise the first letter only ("the debtors'" -> "The debtors'"); Jinja's capitalize would also
    lower-case the rest, names included."""
    return text[:1].upper() + text[1:]


def _json(value: Any) -> str:
    # Jinja's own tojson escapes quotes and apostrophes for HTML; prompts need plain JSON.
    return json.dumps(value, ensure_ascii=False)


@jinja2.pass_context
def _date(context: jinja2.runtime.Context, day: dt.date) -> str:
    return format_date(day, context["date_style"])


@jinja2.pass_context
def _agree(context: jinja2.runtime.Context, singular: str, plural: str) -> str:
    """The verb form that agrees with the case's subject: one debtor or two."""
    return plural if context["plural"] else singular


def _fail(message: str) -> str:
    raise jinja2.TemplateRuntimeError(message)


def jurisdiction_name(code: str) -> str:
    return JURISDICTION_NAMES.get(code, code)


@cache
def environment() -> jinja2.Environment:
    """The shared Jinja environment over data/templates (strict about undefined variables)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(date=_date, money=format_money, upfirst=upfirst, json=_json)
    env.globals.update(
        agree=_agree,
        fail=_fail,
        jurisdiction_name=jurisdiction_name,
        opt_out_reach=_opt_out_reach,
        readings_in_force=_readings_in_force,
    )
    return env


_WHOM = {
    "residents": "its residents",
    "domiciliaries": "debtors domiciled there",
    "citizens": "its citizens",
    "residents_180": "its residents and those who left it fewer than 180 days before filing",
    "longer_180": "debtors domiciled there for the longer portion of the 180 days before filing",
    "filed_in_state": "cases filed there",
}


def _opt_out_reach(name: str, scope: str, readings: dict[str, str]) -> str:
    """What a state's opt-out means for a debtor its law governs, under the task's reading."""
    only = f"A debtor whose exemptions are governed by {name} law may claim only {name}'s own exemptions"
    if scope == "all" or readings.get("nonresident_opt_out") != "camp":
        return only + "."
    return (
        f"Its opt-out names {_WHOM.get(scope, 'certain debtors')}. A debtor whose exemptions are governed by "
        f"{name} law and who is one of them on the petition date may claim only {name}'s own exemptions; any "
        "other such debtor may also choose the federal exemptions of 11 U.S.C. § 522(d)."
    )


def _readings_in_force(readings: dict[str, str]) -> list[str]:
    from lexsym.law.readings import BY_NAME

    return [BY_NAME[name].rules[option] for name, option in readings.items() if name in BY_NAME]


def template_names() -> list[str]:
    """Every template, by name relative to data/templates (sorted)."""
    return sorted(name for name in environment().list_templates() if name.endswith(".j2"))


@cache
def phrasings(group: str) -> tuple[str, ...]:
    """The templates of one group of interchangeable phrasings (a prefix such as INTRO), sorted."""
    names = tuple(name for name in template_names() if name.startswith(group))
    if not names:
        raise jinja2.TemplateNotFound(f"{group}*.j2")
    return names
