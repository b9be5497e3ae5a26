"""Citation keys and the BibTeX file, written by us from verified bibliography entries only.

Keys are deterministic: a paper's own `cite_key` when it is a valid key, else
`<first author's surname><year><first significant title word>`, with `b`, `c`, ... appended on a
clash in bibliography order. The evaluator recomputes the same keys to see what the paper cites.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from eurekaclaw.agents.writer.escape import escape_text
from eurekaclaw.knowledge_bus.bus import paper_identity
from eurekaclaw.types.artifacts import Bibliography, Paper

_VALID_KEY = re.compile(r"[A-Za-z][A-Za-z0-9:_\-.]{0,63}")
_TITLE_STOP = frozenset("a an the on of for and in to with from towards toward via using is are new".split())
_SAFE_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?=&+,;@!()*']+")
# Listed under "Unverified references" (never cited); `not_found` entries are dropped.
LISTED_UNVERIFIED = ("unverified", "suspicious")


def _ascii_slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", plain.lower())


def base_key(paper: Paper) -> str:
    if paper.cite_key and _VALID_KEY.fullmatch(paper.cite_key):
        return paper.cite_key
    surname = ""
    if paper.authors:
        name = paper.authors[0].strip()
        # "Surname, Given" or "Given Surname"
        surname = name.split(",")[0] if "," in name else (name.split() or [""])[-1]
    surname = _ascii_slug(surname) or "anon"
    year = str(paper.year) if paper.year else "nd"
    word = next(
        (w for w in (_ascii_slug(t) for t in paper.title.split()) if len(w) >= 3 and w not in _TITLE_STOP),
        "paper",
    )
    return f"{surname}{year}{word}"


def assign_cite_keys(papers: list[Paper]) -> dict[str, str]:
    """paper_id -> unique cite key, stable for a given bibliography."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for paper in papers:
        if paper.paper_id in keys:
            continue
        key = base_key(paper)
        candidate, n = key, 0
        while candidate in used:
            n += 1
            candidate = key + _suffix(n)
        keys[paper.paper_id] = candidate
        used.add(candidate)
    return keys


def _suffix(n: int) -> str:
    """1 -> "b", 2 -> "c", ...: the unsuffixed key plays the part of "a"."""
    return chr(ord("a") + n) if n < 26 else str(n + 1)


@dataclass
class CitePlan:
    """What the paper may cite (verified and relevant) and what it lists as unverified."""

    keys: dict[str, str] = field(default_factory=dict)  # paper_id -> key, every entry
    cited: list[Paper] = field(default_factory=list)
    unverified: list[Paper] = field(default_factory=list)
    dropped_not_found: int = 0
    dropped_irrelevant: int = 0
    checks_ran: bool = False
    offline: bool = False  # EUREKACLAW_OFFLINE: no literature service was asked, by choice
    excluded_keys: set[str] = field(default_factory=set)  # dropped by the compile repair
    shipped_keys: set[str] = field(default_factory=set)  # from the domain plugin's bibliography

    def citable_keys(self) -> set[str]:
        return {self.keys[p.paper_id] for p in self.cited} - self.excluded_keys

    def citable(self) -> list[tuple[str, Paper]]:
        usable = self.citable_keys()
        return [(self.keys[p.paper_id], p) for p in self.cited if self.keys[p.paper_id] in usable]

    def resolve(self, ref: str | None) -> str | None:
        """The citable key for a paper id, DOI, arXiv id or cite key, else None."""
        if not ref:
            return None
        ref = ref.strip()
        usable = self.citable_keys()
        for paper in self.cited:
            key = self.keys[paper.paper_id]
            ids = {paper.paper_id, key, paper.cite_key or "", paper_identity(paper)}
            if paper.doi:
                ids |= {paper.doi, f"doi:{paper.doi}"}
            if paper.arxiv_id:
                ids |= {paper.arxiv_id, f"arxiv:{paper.arxiv_id}"}
            if ref in ids or ref.lower() in {i.lower() for i in ids if i}:
                return key if key in usable else None
        loose = [self.keys[p.paper_id] for p in loosely_named(ref, self.cited)]
        return loose[0] if len(loose) == 1 and loose[0] in usable else None

    def add_shipped(self, papers: list[Paper]) -> list[str]:
        """Offer a domain's shipped references (already checked) for citation, skipping the
        ones the bibliography has already; returns their keys."""
        have = {paper_identity(p) for p in self.cited + self.unverified}
        used = set(self.keys.values())
        added = []
        for paper in papers:
            if paper_identity(paper) in have or paper.paper_id in self.keys:
                continue
            key, n = base_key(paper), 0
            candidate = key
            while candidate in used:
                n += 1
                candidate = key + _suffix(n)
            self.keys[paper.paper_id] = candidate
            used.add(candidate)
            self.cited.append(paper)
            self.shipped_keys.add(candidate)
            added.append(candidate)
        return added

    def drop_shipped(self, keep: set[str]) -> None:
        """Withdraw the shipped references nothing cites (the paper lists what it uses)."""
        gone = self.shipped_keys - keep
        self.cited = [p for p in self.cited if self.keys[p.paper_id] not in gone]
        self.shipped_keys -= gone


def _surname(author: str) -> str:
    name = author.strip()
    return _ascii_slug(name.split(",")[0] if "," in name else (name.split() or [""])[-1])


def loosely_named(ref: str, papers: list[Paper]) -> list[Paper]:
    """Papers a free-text citation such as "Auer, Cesa-Bianchi and Fischer (2002), Thm. 1"
    names: the first author's surname and the year appear in it; when several do, only those
    whose every author's surname appears. Ambiguity is left to the caller (no guess)."""
    words = set(re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", ref).encode("ascii", "ignore").decode().lower()))
    joined = _ascii_slug(ref)
    hits = [
        p
        for p in papers
        if p.authors and p.year and str(p.year) in words and _surname(p.authors[0]) and _surname(p.authors[0]) in joined
    ]
    if len(hits) > 1:
        hits = [p for p in hits if all(_surname(a) in joined for a in p.authors if _surname(a))]
    return hits


def plan_citations(bib: Bibliography | None) -> CitePlan:
    if bib is None:
        return CitePlan()
    plan = CitePlan(keys=assign_cite_keys(bib.papers), checks_ran=bib.checks_ran)
    for paper in bib.papers:
        if paper.verification == "verified":
            if paper.relevant:
                plan.cited.append(paper)
                if any(src.startswith("plugin:") for src in paper.sources):
                    plan.shipped_keys.add(plan.keys[paper.paper_id])
            else:
                plan.dropped_irrelevant += 1
        elif paper.verification in LISTED_UNVERIFIED:
            plan.unverified.append(paper)
        else:
            plan.dropped_not_found += 1
    return plan


# --- BibTeX -------------------------------------------------------------------------------------


def bib_escape(text: str) -> str:
    """Text for a BibTeX field: LaTeX-escaped, with braces removed because BibTeX counts every
    brace (escaped or not) when it balances a field."""
    cleaned = " ".join(text.replace("{", "").replace("}", "").split())
    return str(escape_text(cleaned))


# A venue that is a publisher's name with no volume or pages: the work is a book.
_BOOK_PUBLISHER = re.compile(r"\b(University Press|Press|Springer|Publishers|Publishing|Birkh\u00e4user|Wiley)\b")


def bibtex_entry(key: str, paper: Paper) -> str:
    fields: list[tuple[str, str]] = [("title", "{" + bib_escape(paper.title) + "}")]
    authors = [bib_escape(a) for a in paper.authors if a.strip()]
    if authors:
        fields.append(("author", " and ".join(authors)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    kind = "misc"
    if _BOOK_PUBLISHER.search(paper.venue) and not any(ch.isdigit() for ch in paper.venue):
        # "Cambridge University Press" is a book's publisher, not a journal
        kind = "book"
        fields.append(("publisher", bib_escape(paper.venue)))
    elif paper.venue.strip():
        kind = "article"
        fields.append(("journal", bib_escape(paper.venue)))
    if paper.doi:
        fields.append(("doi", bib_escape(paper.doi)))
    if paper.arxiv_id:
        fields.append(("eprint", bib_escape(paper.arxiv_id)))
        fields.append(("archiveprefix", "arXiv"))
        fields.append(("note", "arXiv:" + bib_escape(paper.arxiv_id)))
    elif not paper.doi and paper.url and _SAFE_URL.fullmatch(paper.url):
        fields.append(("url", paper.url))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def render_bibtex(plan: CitePlan) -> str:
    header = (
        "% references.bib written by EurekaClaw: only bibliography entries whose metadata was\n"
        "% verified against a literature service are included.\n"
    )
    return header + "\n".join(bibtex_entry(key, paper) for key, paper in plan.citable())


def plain_reference(paper: Paper) -> str:
    """One line of plain text describing an entry (for the unverified list and Markdown)."""
    authors = ", ".join(a for a in paper.authors[:4] if a.strip())
    if len(paper.authors) > 4:
        authors += " et al."
    parts = [p for p in (authors, f"({paper.year})" if paper.year else "") if p]
    text = " ".join(parts)
    text = f"{text}. {paper.title.strip()}" if text else paper.title.strip()
    if paper.venue.strip():
        text += f". {paper.venue.strip()}"
    ident = paper.doi and f"doi:{paper.doi}" or paper.arxiv_id and f"arXiv:{paper.arxiv_id}"
    if ident:
        text += f". {ident}"
    return text + "."
