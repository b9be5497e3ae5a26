"""Does a source's record describe the work a citation names?

Two questions, answered separately so the ladder in citations.py can explain its verdict:

* **the title** — titles.compare_titles: no content word may differ.
* **the independent fields** — authors (family-name overlap), year (±1 for preprint versus
  publication), venue (normalised names, acronyms, abbreviations). A close title is only
  `verified` when one of them agrees; a title alone proves only that *some* paper has that title.

Rules and their reasons are documented for users in docs/survey.md ("Citation verification").
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from eurekaclaw.tools.literature.records import clean_text
from eurekaclaw.tools.literature.titles import (
    STOP_WORDS,
    SUSPICIOUS_AT,
    WORD,
    compare_titles,
    fold,
)
from eurekaclaw.types.artifacts import CitationStatus, Paper

YEAR_TOLERANCE = 1  # a preprint is often dated the year before its publication

# Ranks of a judgement, best first; the ladder keeps the best over all sources.
RANK_VERIFIED = 5
RANK_FIELD_MISMATCH = 4  # the title matches; authors / year / venue contradict it
RANK_TITLE_ONLY = 3  # the title matches; nothing else could be compared
RANK_TITLE_NEAR = 2  # a similar title that differs in content words
RANK_NO_MATCH = 1

# --------------------------------------------------------------------------------------------
# authors
# --------------------------------------------------------------------------------------------

_PARTICLES = frozenset("van von der den de del della di da dos das du le la al el bin ibn ter ten".split())
_NAME_SUFFIXES = frozenset("jr sr ii iii iv".split())
_ET_AL = re.compile(r"\bet\.?\s*al\b\.?|\band\s+others\b|^\s*others\s*$", re.IGNORECASE)
_AUTHOR_SEP = re.compile(r"\s+and\s+|\s*;\s*|\s+&\s+")


def split_authors(authors: list[str]) -> list[str]:
    """One name per entry. Models and BibTeX hand over lists in one string ("A. Vaswani,
    N. Shazeer, et al.", "Vaswani, A. and Shazeer, N."); "et al." and "others" are dropped."""
    out: list[str] = []
    for entry in authors:
        text = _ET_AL.sub(" ", clean_text(entry)).strip(" ,;")
        for part in _AUTHOR_SEP.split(text):
            pieces = [p.strip() for p in part.split(",") if p.strip()]
            if len(pieces) > 2 or (len(pieces) == 2 and _two_names(*pieces)):
                out.extend(pieces)
            elif pieces:
                out.append(part.strip(" ,"))
    return out


def _two_names(first: str, second: str) -> bool:
    """ "Ashish Vaswani, Noam Shazeer" (two names) rather than "van der Waals, Johannes" (one)."""
    head = first.split()
    if len(head) < 2 or len(second.split()) < 2:
        return False
    return not all(w.lower() in _PARTICLES for w in head[:-1])


def _is_initial(token: str, n_tokens: int) -> bool:
    letters = token.replace(".", "").replace("-", "")
    if len(letters) <= 1:
        return True
    if "." in token and all(len(s) <= 1 for s in re.split(r"[.\-]", token)):
        return True  # "J.-P.", "A.N."
    return n_tokens > 1 and token.isupper() and len(letters) <= 2  # "Vaswani AN"


@dataclass(frozen=True)
class Name:
    family: str  # as shown in details
    keys: frozenset[str]  # family-name keys; two names match when these meet
    full: frozenset[str]  # every non-initial name word, for reversed-order names


def parse_name(name: str) -> Name | None:
    text = re.sub(r"['`]", "", fold(clean_text(name)))
    if "," in text:
        family_part, _, given_part = text.partition(",")
        family = [w for w in family_part.split() if w.lower().strip(".") not in _NAME_SUFFIXES]
        given = [w for w in given_part.split() if w.lower().strip(".") not in _NAME_SUFFIXES and not _is_initial(w, 2)]
    else:
        raw = text.split()
        words = [w for w in raw if w.lower().strip(".") not in _NAME_SUFFIXES and not _is_initial(w, len(raw))]
        if not words:  # "X. LI": the capitals were the family name, not initials
            words = [w for w in raw if len(w.replace(".", "")) > 1]
        if not words:
            return None
        start = len(words) - 1
        while start > 0 and words[start - 1].lower() in _PARTICLES:
            start -= 1
        family, given = words[start:], words[:start]
    parts = [p for w in family for p in WORD.findall(w.lower()) if p not in _PARTICLES]
    if not parts:
        return None
    keys = {"".join(parts), *(p for p in parts if len(p) >= 2)}
    full = frozenset(p for w in family + given for p in WORD.findall(w.lower()) if p not in _PARTICLES)
    return Name(" ".join(family), frozenset(keys), full)


def _same_person(a: Name, b: Name) -> bool:
    if a.keys & b.keys:
        return True
    # "Zhang Wei" / "Wei Zhang": family-first order written as given-first.
    return len(a.full) >= 2 and a.full == b.full


def names(authors: list[str]) -> list[Name]:
    return [n for n in (parse_name(a) for a in split_authors(authors)) if n is not None]


def shared_authors(cited: list[Name], found: list[Name]) -> list[str]:
    """Family names (as cited) of the cited authors who are among the found ones."""
    return [c.family for c in cited if any(_same_person(c, f) for f in found)]


def _show(ns: list[Name], limit: int = 4) -> str:
    shown = ", ".join(n.family for n in ns[:limit])
    return shown + (", …" if len(ns) > limit else "")


# --------------------------------------------------------------------------------------------
# venues
# --------------------------------------------------------------------------------------------

# "a" stays: in venues it is the A of "U.S.A." or "Series A", not an article.
_VENUE_NOISE = (STOP_WORDS - {"a"}) | {"proceedings", "proc", "annual"}
_ORDINAL = re.compile(r"^\d+(st|nd|rd|th)?$")
# Preprint servers say nothing about where a paper appeared; they are never compared.
_PREPRINT_VENUES = frozenset(
    {
        "arxiv",
        "arxivorg",
        "arxiv preprint",
        "arxiv cornell university",
        "corr",
        "biorxiv",
        "medrxiv",
        "ssrn",
        "ssrn electronic journal",
        "preprint",
        "research square",
        "zenodo",
    }
)
# Acronyms whose letters do not follow the name, and the words the full name contains.
_VENUE_ALIASES = {
    "neurips": "neural information processing systems",
    "nips": "neural information processing systems",
    "colt": "conference learning theory",
    "alt": "algorithmic learning theory",
    "aistats": "artificial intelligence statistics",
    "uai": "uncertainty artificial intelligence",
    "stoc": "symposium theory computing",
    "focs": "foundations computer science",
    "soda": "symposium discrete algorithms",
    "iclr": "international conference learning representations",
    "pnas": "national academy sciences",
}


def venue_tokens(venue: str) -> list[str]:
    words = WORD.findall(fold(html.unescape(venue or "")).lower())
    return [w for w in words if w not in _VENUE_NOISE and not _ORDINAL.match(w)]


def informative_venue(venue: str) -> bool:
    folded = " ".join(WORD.findall(fold(venue or "").lower()))
    return bool(venue_tokens(venue)) and folded not in _PREPRINT_VENUES and not folded.startswith("arxiv")


def _abbreviates(short: str, long: str) -> bool:
    """ "mach" / "machine", "natl" / "national": same first letter, letters in order."""
    if not short or not long or short[0] != long[0] or len(short) > len(long):
        return False
    rest = iter(long)
    return all(ch in rest for ch in short)


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


def same_venue(a: str, b: str) -> bool:
    ta, tb = venue_tokens(a), venue_tokens(b)
    if not ta or not tb:
        return False
    if ta == tb:
        return True
    short, long = (ta, tb) if len(" ".join(ta)) <= len(" ".join(tb)) else (tb, ta)
    if len(short) == 1 and len(long) > 1:
        acronym = short[0]
        alias = _VENUE_ALIASES.get(acronym)
        if alias and _contains(long, alias.split()):
            return True
        # "JMLR", "ICML"; "PNAS" also needs the "Proceedings" the noise list drops.
        with_noise = [
            w
            for w in WORD.findall(fold(b if long is tb else a).lower())
            if w not in STOP_WORDS and not _ORDINAL.match(w)
        ]
        return acronym in ("".join(w[0] for w in long), "".join(w[0] for w in with_noise))
    return len(short) == len(long) and all(_abbreviates(s, w) for s, w in zip(short, long, strict=True))


# --------------------------------------------------------------------------------------------
# a record judged against a citation
# --------------------------------------------------------------------------------------------


@dataclass
class FieldCheck:
    agree: list[str] = field(default_factory=list)  # e.g. "authors (Vaswani)", "year 2017"
    disagree: list[str] = field(default_factory=list)  # year or venue that differ
    author_conflict: str = ""  # both have authors and none is shared
    missing: list[str] = field(default_factory=list)  # cited fields the record lacks


def cited_fields(paper: Paper) -> list[str]:
    """The independent fields a citation gives: what it can be checked against beyond words."""
    present = []
    if names(paper.authors):
        present.append("authors")
    if paper.year:
        present.append("year")
    if informative_venue(paper.venue):
        present.append("venue")
    return present


def check_fields(cited: Paper, found: Paper) -> FieldCheck:
    out = FieldCheck()
    cited_names, found_names = names(cited.authors), names(found.authors)
    if cited_names and found_names:
        shared = shared_authors(cited_names, found_names)
        if shared:
            out.agree.append(f"authors ({', '.join(shared[:3])})")
        else:
            out.author_conflict = f"authors differ: cited {_show(cited_names)}; source has {_show(found_names)}"
    elif cited_names:
        out.missing.append("authors")
    if cited.year and found.year:
        if abs(cited.year - found.year) <= YEAR_TOLERANCE:
            out.agree.append(
                f"year {found.year}" if cited.year == found.year else f"year {found.year} (cited {cited.year})"
            )
        else:
            out.disagree.append(f"year: cited {cited.year}, source has {found.year}")
    elif cited.year:
        out.missing.append("year")
    if informative_venue(cited.venue) and informative_venue(found.venue):
        if same_venue(cited.venue, found.venue):
            out.agree.append("venue")
        else:
            out.disagree.append(f"venue: cited {cited.venue!r}, source has {found.venue!r}")
    elif informative_venue(cited.venue):
        out.missing.append("venue")
    return out


@dataclass(frozen=True)
class Judgement:
    status: CitationStatus
    rank: int
    similarity: float
    title_close: bool
    explanation: str


def judge_record(cited: Paper, found: Paper, *, by_id: bool = False) -> Judgement:
    """How well `found` (a source's record) confirms `cited`. See the module docstring."""
    title = compare_titles(cited.title, found.title, by_id=by_id)
    sim = title.similarity
    if not title.close:
        if sim < SUSPICIOUS_AT:
            return Judgement("not_found", RANK_NO_MATCH, sim, False, "a different title")
        why = f"title differs: {title.difference()}" if (title.only_cited or title.only_found) else title.note
        return Judgement("suspicious", RANK_TITLE_NEAR, sim, False, why)
    notes = [title.note] if title.note else []
    fields = check_fields(cited, found)
    if fields.author_conflict:
        return Judgement(
            "suspicious",
            RANK_FIELD_MISMATCH,
            sim,
            True,
            "; ".join(["title matches but " + fields.author_conflict, *fields.disagree, *notes]),
        )
    if fields.agree:
        return Judgement(
            "verified",
            RANK_VERIFIED,
            sim,
            True,
            "; ".join(["title matches; agrees on " + ", ".join(fields.agree), *fields.disagree, *notes]),
        )
    if fields.disagree:
        return Judgement(
            "suspicious",
            RANK_FIELD_MISMATCH,
            sim,
            True,
            "; ".join(["title matches but nothing else agrees", *fields.disagree, *notes]),
        )
    if not cited_fields(cited):
        why = (
            "title matches, but the citation gives only a title (no authors, year or venue), "
            "so it cannot be checked beyond its words"
        )
    else:
        why = f"title matches, but the source's record has no {'/'.join(fields.missing)} to compare"
    return Judgement("unverified", RANK_TITLE_ONLY, sim, True, "; ".join([why, *notes]))
