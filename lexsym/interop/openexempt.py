"""Reading OpenExempt's statute files and cases into lexsym's own models, so its benchmark can be replayed.

OpenExempt (Servantez et al., arXiv:2601.13183) ships its exemption parameters as JSON statute files and
generates cases with gold answers. This module only converts; it holds no OpenExempt data. Tests read
the data from `../shared` at run time.

How OpenExempt's semantics map onto lexsym's:

- A statute entry is an exemption exactly when it has a `single_limit` key (its value may be null, for
  an exemption without a dollar cap); entries without the key are definitions, preambles or the joint
  case rules, which OpenExempt reads as prose only.
- Each exemption becomes a `TableExemption`, whose table semantics are OpenExempt's: one household pool
  per case. OpenExempt's married figures are household figures for both spouses together (for
  § 522(d) they are the single figures doubled, for a state whatever its file says), so they become the
  table's joint figures as they are; no rule of ours doubles them again.
- `single_/married_item_claim_count` become item counts: the pool allows that many claims of
  limit/count each, and several may stack on one item. OpenExempt gives (d)(1) an item count of 1
  (2 married), where the statute (and `statutes/federal/522d1_residence.lp`) caps only the aggregate
  interest: there a single debtor's (d)(1) reaches one residence only, and a couple's two $27,900
  claims may both fall on the one home they share.
- `per_item_limit` is one figure in OpenExempt and is not doubled for married filers: it becomes the
  per-item cap of both filings (the (d)(3) $700 stays $700 in a joint case).
- `fallback_relationship` with `single_/married_fallback_limit` becomes `fallback_of` and the fallback
  amounts ((d)(5) may use up to that much of the unused (d)(1)).
- `mutual_exclusion` becomes `excludes`; `has_opted_out` (null for the federal file) becomes the opt-out
  status of the file's state, overriding `statutes/opt_out.lp` for it.

A case's assets carry OpenExempt's `applicable_exemptions` (every jurisdiction's citations at once) as
their explicit list, so classification is OpenExempt's and lexsym filters it by jurisdiction.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.law.case import Case, load_json, parse_case
from lexsym.law.vocabulary import FEDERAL, STATES, AssetKind, Filing
from lexsym.law.whatif import ExemptionTable, TableExemption, TableFigures, parse_table

JURISDICTION_IDS: dict[str, str] = {"Federal": FEDERAL, **{name: code for code, name in STATES.items()}}
"""OpenExempt's display names of jurisdictions ("Federal", "Arizona", ...) -> lexsym's ids (US, AZ, ...).

Display names key a case's `all_jurisdictions`, `allowable_jurisdictions_gold` and gold NA answers.
"""

_PLACE_IDS: dict[str, str] = {"FEDERAL": FEDERAL, **{name.upper(): code for code, name in STATES.items()}}
"""OpenExempt's upper-case names (statute files' `jurisdiction`, domicile states) -> lexsym's ids."""

RULE_PATHS: dict[str, str] = {"730": "730", "180_whole": "180_single", "180_longer": "180_longer"}
"""lexsym's § 522(b)(3)(A) rule paths -> the names the `literal_522b3A` records use for them."""


def openexempt_rule_path(path: str) -> str:
    """The `literal_522b3A["rule_path"]` name of lexsym's rule path `path` (e.g. "180_whole" -> "180_single").

    The hanging paragraph has no name there (none of the recorded cases reaches it), so asking for it is
    an error rather than a guess.
    """
    try:
        return RULE_PATHS[path]
    except KeyError:
        raise ValueError(f"rule path {path!r} has no OpenExempt name") from None


def place_id(name: str) -> str:
    """lexsym's id for an OpenExempt upper-case place name ("OREGON" -> "OR", "FEDERAL" -> "US")."""
    try:
        return _PLACE_IDS[name.strip().upper()]
    except KeyError:
        raise InputError(f"unknown OpenExempt jurisdiction {name!r}") from None


def _exemption(entry: dict[str, Any], jurisdiction: str) -> TableExemption:
    """One statute entry that has `single_limit` as a table exemption (see the module docstring)."""

    def figures(prefix: str) -> TableFigures:
        return TableFigures(
            limit=entry.get(f"{prefix}_limit"),
            item_count=entry.get(f"{prefix}_item_claim_count"),
            per_item=entry.get("per_item_limit"),
            fallback=entry.get(f"{prefix}_fallback_limit"),
        )

    exclusion = entry.get("mutual_exclusion")
    excludes = [] if exclusion is None else [exclusion] if isinstance(exclusion, str) else list(exclusion)
    return TableExemption(
        citation=entry["citation"],
        jurisdiction=jurisdiction,
        single=figures("single"),
        joint=figures("married"),
        fallback_of=entry.get("fallback_relationship"),
        excludes=excludes,
    )


def is_statute_file(data: Any) -> bool:
    """Whether parsed JSON is one of OpenExempt's statute files (a jurisdiction and its statutes list)."""
    return isinstance(data, dict) and "jurisdiction" in data and isinstance(data.get("statutes"), list)


def table_from_openexempt(statutes: Path) -> ExemptionTable:
    """A what-if table holding every exemption of OpenExempt's statute files: `statutes` is its
    `data/statutes` folder (every `*.json` in it) or one such file.

    Replaying OpenExempt's cases under this table reproduces its own NA optimum; the table is also a way
    to ask how a case fares under OpenExempt's (2022) figures.
    """
    statutes_dir = Path(statutes)
    if statutes_dir.is_file():
        files = [statutes_dir]
    elif statutes_dir.is_dir():
        files = sorted(statutes_dir.glob("*.json"))
    else:
        raise InputError(f"{statutes_dir}: no such file or directory")
    if not files:
        raise InputError(f"{statutes_dir}: no OpenExempt statute files (*.json)")
    exemptions: list[dict[str, Any]] = []
    opt_out: dict[str, bool] = {}
    for path in files:
        data = load_json(path)
        if not is_statute_file(data):
            raise InputError(f"{path}: not an OpenExempt statute file (needs jurisdiction and statutes)")
        try:
            jurisdiction = place_id(str(data["jurisdiction"]))
        except InputError as error:
            raise InputError(f"{path}: jurisdiction: {error}") from None
        if jurisdiction != FEDERAL and data.get("has_opted_out") is not None:
            opt_out[jurisdiction] = bool(data["has_opted_out"])
        exemptions.extend(
            _exemption(entry, jurisdiction).model_dump()
            for entry in data["statutes"]
            if "single_limit" in entry
        )
    return parse_table(
        {
            "name": "openexempt",
            "description": f"OpenExempt's statute parameters, read from {statutes_dir}",
            "opt_out": opt_out,
            "exemptions": exemptions,
        },
        source=str(statutes_dir),
    )


OPENEXEMPT_READINGS = {"nonresident_opt_out": "literal", "residency_limits": "preempted"}
"""The contested readings that reproduce OpenExempt's semantics (it models neither point)."""


def case_from_openexempt(
    record: dict[str, Any], *, readings: dict[str, str] | None = None, source: str | None = None
) -> Case:
    """A lexsym case from one reshaped OpenExempt case record (a line of the replay export's `cases.jsonl`;
    `openexempt_native` reads the generator's own records into this shape).

    Assets get the ids a1..an in record order, since OpenExempt keys them only by description.
    OpenExempt's domicile periods are half-open like ours (one ends on the day the next starts, the last
    on the petition date), so their dates carry over unchanged. Its generator sometimes appends an empty
    period (a move on the petition date itself: start == end == petition date); it covers no day of either
    window, and is kept as lexsym's move on the petition day. OpenExempt applies every opt-out to every
    debtor and no residency limit, so by default the case is solved under those readings
    (OPENEXEMPT_READINGS); `readings` replaces them (lexsym's defaults: `{}`).
    `married` is required: the filing decides every amount, so it is never assumed.
    """
    case_id = str(record.get("case_id", "case"))
    where = source or f"OpenExempt case {case_id}"
    for key in ("married", "petition_date", "domicile_history"):
        if key not in record:
            raise InputError(f"{where}: missing {key}")
    if not isinstance(record["married"], bool):
        raise InputError(f"{where}: married: expected true or false, got {record['married']!r}")
    petition = record["petition_date"]
    try:
        petition_day = dt.date.fromisoformat(str(petition))
    except ValueError:
        raise InputError(f"{where}: petition_date: {petition!r} is not an ISO date") from None
    data = {
        "id": case_id,
        "petition_date": petition_day,
        "filing": Filing.JOINT if record["married"] else Filing.SINGLE,
        "debtors": list(record.get("parties", [])),
        "domicile": [
            {"state": place_id(period["state"]), "start": period["start"], "end": period.get("end")}
            for period in record["domicile_history"]
            if period.get("end") is None or period["start"] < period["end"] or period["start"] == petition
        ],
        "readings": OPENEXEMPT_READINGS if readings is None else readings,
        "assets": [
            {
                "id": f"a{number}",
                "description": asset["description"],
                "value": asset["dollar_value"],
                "kind": AssetKind.OTHER,
                "applicable_exemptions": list(asset.get("applicable_exemptions", [])),
            }
            for number, asset in enumerate(record.get("assets", []), start=1)
        ],
    }
    return parse_case(data, source=where)
