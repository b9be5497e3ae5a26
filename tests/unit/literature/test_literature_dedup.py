from __future__ import annotations

import json

from lit_helpers import fixture

from eurekaclaw.tools.literature import crossref, openalex, semantic_scholar
from eurekaclaw.tools.literature.arxiv import parse_feed
from eurekaclaw.tools.literature.dedup import dedupe, same_work
from eurekaclaw.tools.literature.records import make_paper


def test_same_doi_from_openalex_and_crossref_merges() -> None:
    oa = openalex.parse_work(json.loads(fixture("openalex_work.json")))
    cr = crossref.parse_work(json.loads(fixture("crossref_work.json")))
    assert oa is not None and cr is not None
    (merged,) = dedupe([oa, cr])
    assert merged.sources == ["openalex", "crossref"]
    assert merged.paper_id == "doi:10.1073/pnas.1414271111"
    assert merged.openalex_id == "W2109415576"
    assert merged.citation_count == max(oa.citation_count or 0, cr.citation_count or 0)


def test_same_arxiv_id_from_arxiv_and_semantic_scholar_merges_versions_ignored() -> None:
    (arx,), _ = parse_feed(fixture("arxiv_idlist_1706.03762.xml"))
    s2 = make_paper(
        "semantic_scholar",
        title="Attention is All you Need",
        arxiv_id="1706.03762v5",
        s2_id="204e3073870fae3d05bcbc2f6a8e263d9b72e776",
        doi="10.5555/3295222.3295349",
        citation_count=100000,
    )
    (merged,) = dedupe([arx, s2])
    assert merged.sources == ["arxiv", "semantic_scholar"]
    assert merged.paper_id == "arxiv:1706.03762"
    assert merged.doi == "10.5555/3295222.3295349" and merged.s2_id
    assert merged.abstract == arx.abstract  # the richer abstract is kept


def test_title_author_year_match_when_no_ids() -> None:
    a = make_paper("openalex", title="Bandit Algorithms", authors=["Tor Lattimore", "Csaba Szepesvári"], year=2020)
    b = make_paper("semantic_scholar", title="Bandit algorithms.", authors=["T. Lattimore"], year=2020)
    c = make_paper("semantic_scholar", title="Bandit algorithms", authors=["T. Lattimore"], year=2019)
    merged = dedupe([a, b, c])
    assert len(merged) == 2 and merged[0].sources == ["openalex", "semantic_scholar"]


def test_conflicting_ids_never_merge_on_title() -> None:
    a = make_paper("crossref", title="On bandits", authors=["A. Smith"], year=2020, doi="10.1000/a")
    b = make_paper("crossref", title="On bandits", authors=["A. Smith"], year=2020, doi="10.1000/b")
    assert not same_work(a, b)
    assert len(dedupe([a, b])) == 2


def test_search_results_across_sources_dedupe() -> None:
    arxiv_papers, _ = parse_feed(fixture("arxiv_search_testing.xml"))
    s2_papers = [semantic_scholar.parse_paper(i) for i in json.loads(fixture("s2_search.json"))["data"]]
    copy = arxiv_papers[3].model_copy(update={"sources": ["semantic_scholar"], "abstract": ""})
    merged = dedupe(arxiv_papers + [p for p in s2_papers if p] + [copy])
    assert len(merged) == len(arxiv_papers) + len([p for p in s2_papers if p])
    assert merged[3].sources == ["arxiv", "semantic_scholar"] and merged[3].abstract
