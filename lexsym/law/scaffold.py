"""`lexsym new statute` and `lexsym new jurisdiction`: the files a legal engineer fills in, written with the
house layout (header, sections, dated amounts) and a YAML test file beside them, so that a new statute
starts from what `lexsym lint` and `lexsym test` expect rather than from a copy of another state's file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.law.citation_formats import formats_for, recognise
from lexsym.law.vocabulary import JURISDICTION_NAMES

PLACEHOLDERS = ("TITLE", "WHERE", "KIND", "OTHER_KIND", "DOLLARS", "DOLLARS_PLUS_ONE", "YYYY")
"""The capitalised words the written files leave to fill in; `lexsym lint` names each line holding one."""


def _code(jurisdiction: str) -> str:
    code = jurisdiction.strip().upper()
    if code not in JURISDICTION_NAMES or code == "US":
        known = ", ".join(sorted(c for c in JURISDICTION_NAMES if c != "US"))
        raise InputError(f"unknown jurisdiction {jurisdiction!r}: give a state's USPS code ({known})")
    return code


def canonical_statute(citation: str, jurisdiction: str) -> tuple[str, str]:
    """The canonical citation and its exemption id, by the jurisdiction's citation form
    (lexsym/law/citation_formats.py): "735 ILCS 5/12-1001(b)" in IL -> ("735 Ill. Comp. Stat.
    5/12-1001(b)", "ilcs735_5_12_1001_b"), the id lint and what-if tables derive too."""
    code = _code(jurisdiction)
    recognised = recognise(citation.strip(), code.lower())
    if recognised is None:
        forms = " or ".join(f"`{f.example}`" for f in formats_for(code.lower()))
        raise InputError(f"citation {citation!r} does not follow {code}'s canonical form {forms}")
    return recognised.canonical, recognised.exemption_id


def _write_new(path: Path, text: str) -> Path:
    if path.exists():
        raise InputError(f"{path}: already exists; nothing was written")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path


def new_statute(root: Path, citation: str, jurisdiction: str, tests: Path) -> list[Path]:
    """Write `statutes/<xx>/<id>.lp` under `root` and `<tests>/<xx>/<id>.yaml`; return their paths."""
    code = _code(jurisdiction)
    if not (root / "statutes" / code.lower() / "jurisdiction.lp").exists():
        folder = root / "statutes" / code.lower()
        raise InputError(f"{folder}: no jurisdiction.lp; run `lexsym new jurisdiction {code}` first")
    citation, ident = canonical_statute(citation, code)
    today = dt.date.today().isoformat()
    rule = f"""%# {citation}: TITLE (one line: what the paragraph protects)
%
% Source: {citation}, read {today} from WHERE (a statute page, the session law, a practice guide; say
%         so if a figure is only recalled).
% Input:  asset_is/2 (kinds).
% Output: exemption/2, citation/2, exemption_title/2, statute_text/2, qualifies/3, amount/4,
%         amount_source/3.
%
% Choices, each with its citation:
% - What the paragraph covers, and how its words map to kinds and uses (vocabulary.lp).
% - Joint cases: does each spouse have their own exemption (separate_per_debtor/1 in jurisdiction.lp)?
% - Where courts disagree, a named reading (lexsym/law/readings.py) with its default.
% - Not modelled: the parts of the section left out, and why.

exemption({ident}, {code.lower()}).
citation({ident}, "{citation}").
exemption_title({ident}, "TITLE").
statute_text({ident}, "A paraphrase of the paragraph, in your own words.").

% {citation}: the property the paragraph names.
qualifies({ident}, A, kind(KIND)) :- asset_is(A, KIND).

% {citation}: the dollar limit, from the date it applies.
amount({ident}, limit, date(YYYY,M,D), DOLLARS).
amount_source({ident}, date(YYYY,M,D), "where the figure was read, and when").
"""
    case = f"""statute: statutes/{code.lower()}/{ident}.lp
cases:
  - name: property the paragraph names, at the limit, is fully protected
    petition_date: {today}
    assets: [{{id: item, kind: KIND, use: personal, value: DOLLARS}}]
    expect:
      jurisdiction: {code}
      eligible: {{item: ["{citation}"]}}
      max_claim: {{item: {{"{citation}": DOLLARS}}}}
  - name: one dollar over the limit leaves that dollar non-exempt
    petition_date: {today}
    assets: [{{id: item, kind: KIND, use: personal, value: DOLLARS_PLUS_ONE}}]
    expect:
      jurisdiction: {code}
      non_exempt: 1
  - name: property the paragraph does not name does not qualify (must not apply)
    petition_date: {today}
    assets: [{{id: other, kind: OTHER_KIND, use: personal, value: 100}}]
    expect:
      jurisdiction: {code}
      excludes: {{other: ["{citation}"]}}
"""
    return [
        _write_new(root / "statutes" / code.lower() / f"{ident}.lp", rule),
        _write_new(tests / code.lower() / f"{ident}.yaml", case),
    ]


def new_jurisdiction(root: Path, jurisdiction: str, tests: Path) -> list[Path]:
    """Write `statutes/<xx>/jurisdiction.lp` under `root` and `<tests>/<xx>/jurisdiction.yaml`."""
    code = _code(jurisdiction)
    name = JURISDICTION_NAMES[code]
    today = dt.date.today().isoformat()
    rule = f"""%# {name}: the jurisdiction, and how its exemptions apply in joint cases
%
% Source: {name}'s exemption statutes, read {today} from WHERE.
% Input:  none.
% Output: jurisdiction/1, jurisdiction_name/2, separate_per_debtor/1.
%
% Choices, each with its citation:
% - Joint cases: which exemptions each spouse may claim separately (separate_per_debtor/1), with the
%   state's own rule cited; the others are one household pool.
% - The opt-out: statutes/opt_out.lp already records whether {name} permits the federal exemptions;
%   check its citation.

jurisdiction({code.lower()}).
jurisdiction_name({code.lower()}, "{name}").
"""
    case = f"""cases:
  - name: a debtor domiciled in {name} for years may use {name}'s exemptions
    petition_date: {today}
    assets: []
    expect:
      jurisdiction: {code}
      allowable: [{code}]
"""
    return [
        _write_new(root / "statutes" / code.lower() / "jurisdiction.lp", rule),
        _write_new(tests / code.lower() / "jurisdiction.yaml", case),
    ]
