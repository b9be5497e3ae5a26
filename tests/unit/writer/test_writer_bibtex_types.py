"""BibTeX entry types: a book's publisher is not a journal."""

from __future__ import annotations

from eurekaclaw.agents.writer.bibtex import bibtex_entry
from eurekaclaw.domains import discover_plugins
from eurekaclaw.types.artifacts import Paper


def paper(venue: str) -> Paper:
    return Paper(paper_id="doi:10.1/x", title="A title", authors=["A. Author"], year=2020, venue=venue, doi="10.1/x")


def test_a_publisher_without_volume_is_a_book():
    entry = bibtex_entry("lattimore2020bandit", paper("Cambridge University Press"))
    assert entry.startswith("@book{") and "publisher = {Cambridge University Press}" in entry
    assert "journal" not in entry


def test_journals_and_proceedings_stay_articles():
    for venue in (
        "Journal of the American Statistical Association 58(301), 13–30",
        "Machine Learning 47(2–3)",
        "Proceedings of COLT 2012",
    ):
        entry = bibtex_entry("k", paper(venue))
        assert entry.startswith("@article{") and "journal = {" in entry, venue
    assert bibtex_entry("k", paper("")).startswith("@misc{")


def test_the_mab_plugins_book_is_typed_as_a_book():
    refs = {p.title: p for p in discover_plugins()["mab"].get_references()}
    book = next(p for t, p in refs.items() if "Bandit Algorithms" in t)
    assert bibtex_entry("lattimore2020bandit", book).startswith("@book{")
