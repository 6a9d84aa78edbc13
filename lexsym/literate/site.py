"""`lexsym doc`: one static page per jurisdiction and an index, written atomically into a folder.

Each page puts a statute file's law (our paraphrase, its dated amounts, the readings it depends on) beside
the rules that encode it, and shows the statute tests of that file with the status the `lexsym test`
runner gives them. Pages are self-contained (the style inline, no script, no network) so they open from
disk and can be published as they are.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.law.citations import citation_order
from lexsym.law.readings import BY_NAME
from lexsym.law.rules import encoded_jurisdictions, jurisdiction_folder, rules_digest, statute_files
from lexsym.law.statute_sheet import statute_sheet
from lexsym.law.vocabulary import JURISDICTION_NAMES, state_of
from lexsym.literate.statute_facts import (
    AmountRow,
    ExemptionFacts,
    JurisdictionFacts,
    amount_rows,
    jurisdiction_facts,
)
from lexsym.literate.statute_source import READING_USE, StatuteSource, read_statute_source
from lexsym.literate.test_status import TestFileStatus, collect_tests

STYLE = "literate.css"


@dataclass(frozen=True)
class JurisdictionPage:
    """What one page shows: the facts, the parsed files, and the tests of each file and of the rest."""

    facts: JurisdictionFacts
    sources: list[StatuteSource]
    tests: dict[Path, list[TestFileStatus]]
    other_tests: list[TestFileStatus]
    terms: dict[str, tuple[str, ...]]  # citation -> terms in force on the page's date
    cap_terms: dict[str, tuple[str, ...]]  # a cap's citation -> its provision (may be an exemption's too)

    def terms_of(self, exemption: ExemptionFacts) -> tuple[str, ...]:
        """The terms a row shows: a cap's own provision even where it cites its exemption's paragraph
        (C.P.L.R. 5205(a)(2) is an exemption and, for other books, a cap)."""
        if exemption.is_cap and exemption.citation in self.cap_terms:
            return self.cap_terms[exemption.citation]
        return self.terms.get(exemption.citation, ())

    @property
    def file_name(self) -> str:
        return f"{self.facts.code.lower()}.html"

    def all_tests(self) -> list[TestFileStatus]:
        return [status for statuses in self.tests.values() for status in statuses] + self.other_tests

    def exemptions_in_order(self) -> list[tuple[str, ExemptionFacts]]:
        return sorted(self.facts.exemptions.items(), key=lambda item: citation_order(item[1].citation))

    def amounts(self) -> list[AmountRow]:
        return amount_rows(self.facts)

    def departures(self) -> list[tuple[str, str, str]]:
        """(citation, exemption id, text) of every recorded departure from OpenExempt."""
        return [(e.citation, ident, text) for ident, e in self.exemptions_in_order() for text in e.departures]

    def count(self, status: str) -> int:
        return sum(test.count(status) for test in self.all_tests() if test.ran or status == "error")


def _money(value: int) -> str:
    return f"${value:,}"


def _code_html(text: str) -> Markup:
    """Rule text, escaped, with every reading(...) test marked so the reader sees where a choice bites."""
    escaped = str(escape(text))
    return Markup(READING_USE.sub(lambda m: f'<span class="reading">{m.group(0)}</span>', escaped))


def _environment():
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("lexsym.literate", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["money"] = _money
    environment.filters["code"] = _code_html
    environment.filters["anchor"] = anchor
    return environment


def anchor(text: str) -> str:
    """An HTML id from an exemption id or a file stem."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def _links(pages: list[JurisdictionPage]) -> dict[str, str]:
    """Where each exemption is declared: a federal exemption listed on a state's page (§ 522(b)(3)(C))
    links to the federal page's section for it."""
    return {
        ident: f"{page.file_name}#{anchor(ident)}"
        for page in pages
        for source in page.sources
        for ident in source.exemption_ids
    }


def _readings(sources: list[StatuteSource]) -> list[dict[str, Any]]:
    """Every contested reading the jurisdiction's rules test, with the files and options that use it."""
    used: dict[str, dict[str, Any]] = {}
    for source in sources:
        for name, option in source.readings:
            reading = BY_NAME.get(name)
            if reading is None:
                continue
            entry = used.setdefault(name, {"reading": reading, "files": [], "options": set()})
            if source.path.name not in entry["files"]:
                entry["files"].append(source.path.name)
            entry["options"].add(option)
    return [used[name] for name in sorted(used)]


def build_pages(
    root: Path, as_of: dt.date, tests: Path | None, *, run_tests: bool = True
) -> list[JurisdictionPage]:
    """The pages of every jurisdiction encoded under `root`, federal first."""
    grouped = collect_tests(tests, root, run=run_tests)
    codes = encoded_jurisdictions(root)
    codes.sort(key=lambda code: (code != "US", code))
    pages = []
    shown: set[Path | str] = set()
    for code in codes:
        folder = jurisdiction_folder(code)
        statutes = root / "statutes"
        paths = [p for p in statute_files(root, [code]) if p.relative_to(statutes).parts[0] == folder]
        sources = sorted(
            (read_statute_source(path) for path in paths),
            key=lambda source: (source.path.name != "jurisdiction.lp", citation_order(source.title)),
        )
        one_of_several = state_of(code) != code  # California's folder holds two systems, a page each
        declared = [] if one_of_several else [ident for source in sources for ident in source.exemption_ids]
        facts = jurisdiction_facts(root, code, JURISDICTION_NAMES, as_of, declared)
        if one_of_several:  # this system's files, and those declaring no exemption (jurisdiction.lp)
            mine = set(facts.exemptions)
            sources = [s for s in sources if not s.exemption_ids or set(s.exemption_ids) & mine]
            paths = [source.path for source in sources]
        sheet = statute_sheet(as_of, ("US",) if code == "US" else ("US", code), str(root))
        terms = {entry.citation: entry.terms for entry in sheet.for_jurisdiction(code)}
        # group caps are stated as provisions, with their amounts
        cap_terms = {cited: (text,) for cited, text in sheet.provisions}
        own = {path.resolve(): grouped.get(path.resolve(), []) for path in paths}
        other = grouped.get(folder, [])
        shown.update([*own, folder])
        pages.append(JurisdictionPage(facts, sources, own, other, terms, cap_terms))
    for key in shown:
        grouped.pop(key, None)
    for leftover in grouped.values():  # tests of no encoded jurisdiction: on the federal page, never dropped
        if pages:
            pages[0].other_tests.extend(leftover)
    return pages


def write_site(
    root: Path, out: Path, *, as_of: dt.date, tests: Path | None, run_tests: bool = True
) -> tuple[list[Path], dict[str, int]]:
    """Render the pages into `out`; returns the files written (index first) and the tests' counts by
    status (pass, fail, error) with the number of cases."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    pages = build_pages(root, as_of, tests, run_tests=run_tests)
    environment = _environment()
    style = resources.files("lexsym.literate").joinpath("assets", STYLE).read_text(encoding="utf-8")
    common = {
        "style": Markup(style),
        "as_of": as_of.isoformat(),
        "digest": rules_digest(root),
        "root": str(root),
        "tests_ran": run_tests,
        "tests_folder": str(tests) if tests is not None else None,
    }
    links = _links(pages)
    common["href"] = lambda ident: links.get(ident, f"#{anchor(ident)}")
    written = [out / "index.html"]
    write_atomic(written[0], environment.get_template("index.html.j2").render(pages=pages, **common))
    template = environment.get_template("jurisdiction.html.j2")
    for page in pages:
        path = out / page.file_name
        write_atomic(
            path, template.render(page=page, pages=pages, readings=_readings(page.sources), **common)
        )
        written.append(path)
    counts = {status: sum(page.count(status) for page in pages) for status in ("pass", "fail", "error")}
    counts["cases"] = sum(len(test.outcomes) for page in pages for test in page.all_tests())
    return written, counts
