"""The canonical citation form of each jurisdiction's statutes, and the exemption-id prefix it maps to.

One table serves three readers: `lexsym lint` (is a citation canonical for its jurisdiction, and what
is the canonical form), `exemption_id` (the id a citation derives, so what-if tables and rules agree) and
`lexsym new statute` (the id and citation a new file starts with).

The forms follow The Bluebook's table T1 (state statutory compilations), without the "Ann." and
publisher parentheticals that the encoded states' citations already leave out. They are recalled, not
confirmed against a copy of T1 (none is in the stored sources, checked 2026-12-02); a form that a
jurisdiction's courts write differently is listed under `aliases`, which `lexsym lint --fix` rewrites to
the canonical form. The six first encoded jurisdictions keep the id prefixes their rules already use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from lexsym.law.vocabulary import state_of

_SECTION = r"(?P<section>[0-9][0-9A-Za-z.:/\-]*(?:\([0-9A-Za-z.]+\))*)"


@dataclass(frozen=True)
class CitationFormat:
    """`prefix` is the text before the section number; `{title}` stands for a numbered title or chapter."""

    jurisdiction: str
    prefix: str
    id_prefix: str
    aliases: tuple[str, ...] = ()

    @property
    def example(self) -> str:
        return self.prefix.replace("{title}", "<title>") + "<section>"

    def canonical_pattern(self) -> re.Pattern[str]:
        return _canonical_pattern(self.prefix)

    def loose_patterns(self) -> list[re.Pattern[str]]:
        return [_loose_pattern(prefix) for prefix in (self.prefix, *self.aliases)]

    def render(self, title: str | None, section: str) -> str:
        return self.prefix.replace("{title}", title or "") + section

    def exemption_id(self, title: str | None, section: str) -> str:
        return self.id_prefix.replace("{title}", title or "") + _slug(section)


def _f(jurisdiction: str, prefix: str, id_prefix: str | None = None, *aliases: str) -> CitationFormat:
    return CitationFormat(jurisdiction, prefix, id_prefix or f"{jurisdiction}_", aliases)


FORMATS: tuple[CitationFormat, ...] = (
    _f("us", "{title} U.S.C. § ", "usc{title}_"),
    _f("al", "Ala. Code § "),
    _f("ak", "Alaska Stat. § "),
    _f("az", "Ariz. Rev. Stat. § ", "ars_", "A.R.S. § "),
    _f("ar", "Ark. Code Ann. § "),
    _f("ca", "Cal. Civ. Proc. Code § ", "ca_ccp_", "C.C.P. § ", "Cal. Code Civ. Proc. § "),
    _f("co", "Colo. Rev. Stat. § "),
    _f("ct", "Conn. Gen. Stat. § "),
    _f("de", "Del. Code Ann. tit. {title}, § ", "de_{title}_"),
    _f("dc", "D.C. Code § "),
    _f("fl", "Fla. Stat. § ", None, "F.S. § "),
    _f("fl", "Fla. Const. art. X, § ", "fl_const_x_"),
    _f("ga", "Ga. Code Ann. § ", None, "O.C.G.A. § "),
    _f("hi", "Haw. Rev. Stat. § "),
    _f("id", "Idaho Code § "),
    _f("il", "{title} Ill. Comp. Stat. ", "ilcs{title}_", "{title} ILCS "),
    _f("in", "Ind. Code § "),
    _f("ia", "Iowa Code § "),
    _f("ks", "Kan. Stat. Ann. § ", None, "K.S.A. "),
    _f("ky", "Ky. Rev. Stat. Ann. § ", None, "KRS "),
    _f("la", "La. Stat. Ann. § "),
    _f("me", "Me. Stat. tit. {title}, § ", "me_{title}_"),
    _f("md", "Md. Code Ann., Cts. & Jud. Proc. § ", "md_cjp_"),
    _f("ma", "Mass. Gen. Laws ch. {title}, § ", "ma_{title}_"),
    _f("mi", "Mich. Comp. Laws § ", None, "MCL "),
    _f("mn", "Minn. Stat. § "),
    _f("ms", "Miss. Code Ann. § "),
    _f("mo", "Mo. Rev. Stat. § ", None, "RSMo "),
    _f("mt", "Mont. Code Ann. § ", None, "MCA "),
    _f("ne", "Neb. Rev. Stat. § "),
    _f("nv", "Nev. Rev. Stat. § ", None, "NRS "),
    _f("nh", "N.H. Rev. Stat. Ann. § ", None, "RSA "),
    _f("nj", "N.J. Stat. Ann. § "),
    _f("nm", "N.M. Stat. Ann. § "),
    _f("ny", "N.Y. C.P.L.R. ", "ny_cplr_", "CPLR "),
    _f("ny", "N.Y. Debt. & Cred. Law § ", "ny_dcl_"),
    _f("ny", "N.Y. Ins. Law § ", "ny_ins_"),
    _f("nc", "N.C. Gen. Stat. § "),
    _f("nd", "N.D. Cent. Code § "),
    _f("oh", "Ohio Rev. Code § ", None, "R.C. ", "Ohio Rev. Code Ann. § "),
    _f("ok", "Okla. Stat. tit. {title}, § ", "ok_{title}_"),
    _f("or", "Or. Rev. Stat. § ", "ors_", "ORS "),
    _f("pa", "{title} Pa. Cons. Stat. § ", "pacs{title}_", "{title} Pa.C.S. § "),
    _f("ri", "R.I. Gen. Laws § "),
    _f("sc", "S.C. Code Ann. § "),
    _f("sd", "S.D. Codified Laws § "),
    _f("tn", "Tenn. Code Ann. § "),
    _f("tx", "Tex. Prop. Code § ", "tx_prop_", "Tex. Prop. Code Ann. § "),
    _f("tx", "Tex. Ins. Code § ", "tx_ins_"),
    _f("ut", "Utah Code Ann. § "),
    _f("vt", "Vt. Stat. Ann. tit. {title}, § ", "vt_{title}_"),
    _f("va", "Va. Code Ann. § "),
    _f("wa", "Wash. Rev. Code § ", None, "RCW "),
    _f("wv", "W. Va. Code § "),
    _f("wi", "Wis. Stat. § ", "wis_", "Wis. Stats. § "),
    _f("wy", "Wyo. Stat. Ann. § "),
)


def formats_for(jurisdiction: str) -> list[CitationFormat]:
    """The citation forms of a jurisdiction: its state's (California's two systems cite one code)."""
    state = state_of(jurisdiction.upper()).lower()
    return [f for f in FORMATS if f.jurisdiction == state]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@cache
def _canonical_pattern(prefix: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(prefix).replace(r"\{title\}", r"(?P<title>\d+)") + _SECTION + "$")


@cache
def _loose_pattern(prefix: str) -> re.Pattern[str]:
    """The prefix with any punctuation, spacing and section sign: `Ohio Rev Code 2329.66 (A)` matches."""
    words = [
        r"(?P<title>\d+)" if w == "{title}" else re.escape(w) for w in re.findall(r"\{title\}|\w+", prefix)
    ]
    separator = r"[\s.,]*"
    body = separator.join(words) + r"[\s.,]*(?:§+|sec(?:tion)?s?\.?)?\s*(?P<section>\d.*?)"
    return re.compile(r"^\s*(?<!\w)" + body + r"\s*$", re.IGNORECASE)


def _tidy_section(section: str) -> str:
    return re.sub(r"\s+", "", section)


@dataclass(frozen=True)
class Recognised:
    format: CitationFormat
    canonical: str
    title: str | None
    section: str

    @property
    def exemption_id(self) -> str:
        return self.format.exemption_id(self.title, self.section)


def recognise(citation: str, jurisdiction: str | None = None) -> Recognised | None:
    """The format `citation` is written in (exactly, or loosely, or as an alias) and its canonical form;
    only `jurisdiction`'s formats when one is given."""
    candidates = formats_for(jurisdiction) if jurisdiction else list(FORMATS)
    for fmt in candidates:
        match = fmt.canonical_pattern().match(citation)
        if match:
            title = match.groupdict().get("title")
            return Recognised(fmt, citation, title, match["section"])
    for fmt in candidates:
        for pattern in fmt.loose_patterns():
            match = pattern.match(citation)
            if match:
                title = match.groupdict().get("title")
                section = _tidy_section(match["section"])
                if re.fullmatch(_SECTION, section):
                    return Recognised(fmt, fmt.render(title, section), title, section)
    return None


def mentions_a_citation(text: str) -> bool:
    """Whether a comment cites a statute: a section sign, or any registered form of any jurisdiction."""
    if "§" in text:
        return True
    for fmt in FORMATS:
        for pattern in fmt.loose_patterns():
            searching = re.compile(pattern.pattern.removeprefix(r"^\s*").removesuffix(r"\s*$"), re.IGNORECASE)
            if searching.search(text):
                return True
    return False


def formats_markdown() -> str:
    """The table of canonical forms for docs/lint.md."""
    lines = [
        "| Jurisdiction | Canonical form | Id prefix | Also read (rewritten by `--fix`) |",
        "|---|---|---|---|",
    ]
    for fmt in FORMATS:
        aliases = ", ".join(f"`{a.replace('{title}', '<title>')}`" for a in fmt.aliases)
        prefix = fmt.id_prefix.replace("{title}", "<title>")
        lines.append(f"| {fmt.jurisdiction} | `{fmt.example}` | `{prefix}` | {aliases} |")
    return "\n".join(lines) + "\n"
