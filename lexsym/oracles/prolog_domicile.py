"""The 730-day domicile rule again, in SWI-Prolog (`lexsym/oracles/prolog/domicile.pl`), through pyswip.

This is an oracle for tests, not part of `lexsym.solve`: a second program, written independently of
`encodings/domicile.lp`, that a property test compares with the ASP answer for each debtor. Both read the
opt-out table (status on the petition date and each opt-out's wording) from `statutes/opt_out.lp`, so a
disagreement is about day counting, rule paths and whom an opt-out reaches. How the spouses of a joint case
combine their systems (11 U.S.C. § 522(b)(1)) is not re-implemented here.

pyswip and SWI-Prolog are test-time dependencies (the `dev` extra, and `swipl` on the PATH), so they are
imported only when an answer is asked for, and their absence is a one-line SolveError.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lexsym._util.errors import SolveError
from lexsym.law.case import Case
from lexsym.law.facts import asp_date
from lexsym.law.rules import rules_root
from lexsym.law.stratified import solve_stratified

PROGRAM = Path(__file__).parent / "prolog" / "domicile.pl"
"""Inside the package, so it ships in the wheel."""

_PLACE = re.compile(r"^[A-Z]{2,7}$")
"""What Case validation lets through (USPS codes, FOREIGN): safe to quote as a Prolog atom."""


@dataclass(frozen=True)
class PrologAllowable:
    """What the Prolog program decided; the fields mirror `lexsym.law.solution.AllowableJurisdictions`."""

    jurisdictions: list[str]
    rule_path: str
    applicable_state: str | None
    days_730: dict[str, int]
    days_180: dict[str, int]


@cache
def prolog_engine() -> Any:
    """pyswip's Prolog with `domicile.pl` consulted; once per process, since SWI-Prolog is one global engine.

    Raises SolveError naming what is missing (the pyswip package or the SWI-Prolog library).
    """
    try:
        from pyswip import Prolog
    except ModuleNotFoundError as error:
        if error.name != "pyswip":
            raise
        raise SolveError("the Prolog cross-check needs the pyswip package (pip install pyswip)") from None
    except Exception as error:  # pyswip raises ImportError or its own errors when libswipl is missing
        raise SolveError(f"the Prolog cross-check needs SWI-Prolog (swipl): {error}") from None
    Prolog.consult(str(PROGRAM))
    return Prolog


@cache
def opted_out_states(root: Path, petition: dt.date) -> tuple[tuple[str, str], ...]:
    """(state id, scope) of each state opted out under § 522(b)(2) on `petition` (statutes/opt_out.lp)."""
    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", root / "statutes" / "opt_out.lp"],
        f"petition_date({asp_date(petition)}).\n#show opt_out/1. #show opt_out_scope/2.",
    )
    out = {str(s.arguments[0]) for s in symbols if s.match("opt_out", 1)}
    scopes = {str(s.arguments[0]): str(s.arguments[1]) for s in symbols if s.match("opt_out_scope", 2)}
    return tuple(sorted((code.upper(), scopes.get(code, "all")) for code in out))


def allowable_by_prolog(case: Case, *, claimant: str = "debtor", rules: str | None = None) -> PrologAllowable:
    """Task AE for one debtor of `case` (`claimant`: debtor or spouse) by the Prolog program.

    rules: a directory holding statutes/ and encodings/, for the opt-out table (default: the packaged rules).
    """
    prolog = prolog_engine()
    petition = case.petition_date.toordinal()
    periods = ",".join(
        f"period({_atom(p.state)},{p.start.toordinal()},{(p.end or case.petition_date).toordinal()})"
        for p in case.domicile_of(claimant)
    )
    table = opted_out_states(rules_root(rules), case.petition_date)
    opt_out = ",".join(f"optout({_atom(code)},{scope})" for code, scope in table)
    reading = case.readings.nonresident_opt_out
    residence = case.place_on_petition_date(claimant)
    filed = case.filing_state()
    where = _atom(residence) if residence else "none"
    filed_in = _atom(filed) if filed else "none"
    goal = (
        f"allowable({petition},[{periods}],[{opt_out}],{reading},{where},{filed_in},Js,Path,State,D730,D180),"
        "pairs_keys_values(D730,P730,N730),pairs_keys_values(D180,P180,N180)"
    )
    answers = list(prolog.query(goal, maxresult=2))
    if len(answers) != 1:
        found = len(answers)
        raise SolveError(f"{PROGRAM.name}: allowable/11 gave {found} answers for case {case.id}; expected 1")
    answer = answers[0]
    state = _text(answer["State"])
    return PrologAllowable(
        jurisdictions=[_text(j) for j in answer["Js"]],
        rule_path=_text(answer["Path"]),
        applicable_state=None if state == "none" else state,
        days_730=_days(answer["P730"], answer["N730"]),
        days_180=_days(answer["P180"], answer["N180"]),
    )


def _atom(code: str) -> str:
    if not _PLACE.match(code):
        raise SolveError(f"{code!r} is not a place code the Prolog program can read")
    return f"'{code}'"


def _text(value: Any) -> str:
    """pyswip hands atoms back as str, bytes or Atom objects depending on version and settings."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    return str(getattr(value, "value", value))


def _days(places: list[Any], counts: list[Any]) -> dict[str, int]:
    return {_text(place): int(count) for place, count in zip(places, counts, strict=True)}
